/**
 * Runs one process case: a fresh case folder with the case's `files`, `<runtime> <entry> [argv...]` with `stdin`
 * through the run's sandbox, then stdout, stderr, exit code and the files created or changed. Every process type
 * (script, cli, a team's Node CLI) runs its cases here; they differ in runtime and in the argv rule.
 */
import { describeProcessEnding, endingOfExit } from "@skillrig/process";
import { join } from "node:path";
import {
  DISK_ENTRY_LIMIT,
  resolveCaseLimits,
  type CaseComparison,
  type CaseOutcome,
  type CaseWork,
  type Runner,
  type SandboxResult,
  type TestCase,
} from "@skillrig/core";
import { caseLimitDefaults } from "./case-limit-defaults.js";
import { fileText, folderChanges, writeCaseFiles } from "./case-folder.js";
import {
  DEFAULT_OUTPUT_ENTRIES,
  DEFAULT_OUTPUT_TOTAL_BYTES,
  describeEntry,
  entryAt,
  type OutputCaps,
  readCaseOutput,
} from "./read-case-output.js";
import type { ProcessExpected, ProcessInput } from "./validate-process-case.js";

/** Lines of stderr quoted in a verdict message when the exit code is not the expected one: the last line is where Python (and most tools) say what went wrong. */
const STDERR_TAIL_LINES = 1;

export interface ProcessCaseOptions {
  runner: Runner;
  work: CaseWork;
  input: ProcessInput;
  /** The task run's temp folder; the case folder is created inside it. */
  root: string;
  /** The entry file inside the run's copy of the deliverable (under `root`). */
  entryFile: string;
  /** What starts the entry file: `["python3"]` runs `python3 <entry> argv...`; `[]` runs the entry file itself. */
  runtime: readonly string[];
  /** Variables the case's process gets (added to the sandbox's scrubbed allow-list). */
  env: Record<string, string>;
}

export async function runProcessCase({ runner, work, input, root, entryFile, runtime, env }: ProcessCaseOptions): Promise<CaseOutcome> {
  const { run, testCase, index } = work;
  const caseDir = join(root, `case-${String(index).padStart(4, "0")}`);
  await writeCaseFiles(caseDir, input.files);
  const limits = resolveCaseLimits(run.loaded.task, testCase, caseLimitDefaults(runner.config));
  const command = [...runtime, entryFile, ...input.argv];
  const result = await run.sandbox.run({
    command,
    cwd: caseDir,
    // The whole run folder, not just the copy: the sandbox then need not create any parent folder of its own.
    readOnlyPaths: [root],
    env,
    stdin: input.stdin,
    limits,
    signal: run.signal,
  });
  // run() settles only once the case's process tree is gone: nothing changes the folder while it is read.
  return processCaseOutcome({ testCase, input, limits, command, result, caseDir });
}

/** How a process case ended, as a sandbox run reports it (a case of the sample host is mapped to the same shape). */
export type ProcessCaseEnd = Pick<
  SandboxResult,
  | "exitCode"
  | "signal"
  | "stdout"
  | "stderr"
  | "durationMs"
  | "timedOut"
  | "outputLimited"
  | "memoryLimited"
  | "cpuLimited"
  | "fileSizeLimited"
  | "diskLimited"
  | "isolation"
>;

export interface ProcessCaseEnded {
  testCase: TestCase;
  input: ProcessInput;
  limits: CaseLimits;
  /** The command line the case ran as (`python3 <entry> argv...`), for the report. */
  command: string[];
  result: ProcessCaseEnd;
  /** The case's folder as the case left it; nothing of the case runs any more. */
  caseDir: string;
}

/**
 * The one mapping of an ended process case to its outcome, whichever way it ran (a process of its own or a fork of
 * the sample host): what it printed, its exit code, the files it created, changed or deleted (read from its folder
 * without following links), a limit it passed, and the comparisons the oracle makes.
 */
export async function processCaseOutcome({ testCase, input, limits, command, result, caseDir }: ProcessCaseEnded): Promise<CaseOutcome> {
  const expected = testCase.expected as ProcessExpected;
  const caps: OutputCaps = {
    entries: DEFAULT_OUTPUT_ENTRIES,
    fileBytes: limits.fileSizeBytes,
    totalBytes: Math.max(limits.fileSizeBytes, DEFAULT_OUTPUT_TOTAL_BYTES),
  };
  const output = await readCaseOutput(caseDir, caps);
  const changes = folderChanges(input.files, output);
  const actual: Record<string, unknown> = {
    stdout: result.stdout,
    stderr: result.stderr,
    exit_code: result.exitCode,
    files: changes.changed,
  };
  if (changes.deleted.length > 0) actual.deleted_files = changes.deleted;
  const details: Record<string, unknown> = {
    command,
    exit_code: result.exitCode,
    signal: result.signal,
    stderr: result.stderr,
    isolation: result.isolation,
    duration_ms: Math.round(result.durationMs),
  };

  const abnormal =
    abnormalEnd(result, limits) ??
    (output.overflow
      ? { status: "output_limit" as const, message: `${output.overflow.message} (output cap: ${output.overflow.cap})` }
      : undefined);
  if (abnormal) return { actual, status: abnormal.status, message: abnormal.message, comparisons: [], details };

  const comparisons: CaseComparison[] = [];
  if (expected.stdout !== undefined)
    comparisons.push({ field: "stdout", expected: expected.stdout, actual: result.stdout, defaultMode: "trim" });
  if (expected.stderr !== undefined)
    comparisons.push({ field: "stderr", expected: expected.stderr, actual: result.stderr, defaultMode: "trim" });
  const notRead: string[] = [];
  for (const [path, content] of Object.entries(expected.files ?? {})) {
    const found = entryAt(output, path);
    if (found && found.entry.type !== "file") {
      // Not a regular file of its own: nothing behind it is read, so the comparison sees it as not produced.
      notRead.push(
        `files/${path} is not a regular file: ${found.at === path ? "it is" : `${found.at} on its path is`} ${describeEntry(found.entry)}`,
      );
    }
    const actualText = found?.entry.type === "file" ? fileText(found.entry.bytes) : undefined;
    comparisons.push({ field: `files/${path}`, expected: content, actual: actualText, defaultMode: "trim" });
  }
  const expectedExit = expected.exit_code ?? 0;
  comparisons.push({ field: "exit_code", expected: expectedExit, actual: result.exitCode, defaultMode: "exact", fixedMode: true });

  const message = [...notRead, ...(result.exitCode === expectedExit ? [] : [exitMessage(result, expectedExit)])].join("; ") || undefined;
  return { actual, comparisons, details, ...(message ? { message } : {}) };
}

type CaseLimits = ReturnType<typeof resolveCaseLimits>;

function abnormalEnd(result: ProcessCaseEnd, limits: CaseLimits): Pick<CaseOutcome, "status" | "message"> | undefined {
  // The time limit counts the CPU of the case's own processes; the wall clock only ends one that sleeps or blocks.
  if (result.cpuLimited)
    return {
      status: "timeout",
      message: `used more than ${Math.min(limits.cpuTreeMs, limits.cpuMs)} ms of CPU time (its processes together)`,
    };
  if (result.timedOut)
    return {
      status: "timeout",
      message: `timed out after ${limits.wallMs} ms of wall-clock time (the backstop of its ${limits.cpuTreeMs} ms CPU time limit: it slept, blocked or waited)`,
    };
  if (result.memoryLimited) return { status: "memory_limit", message: `ran out of memory (limit ${formatBytes(limits.memoryBytes)})` };
  if (result.outputLimited)
    return { status: "output_limit", message: `wrote more than ${formatBytes(limits.outputBytes)} to stdout or stderr` };
  if (result.fileSizeLimited) return { status: "output_limit", message: `wrote a file larger than ${formatBytes(limits.fileSizeBytes)}` };
  if (result.diskLimited)
    return {
      status: "output_limit",
      message: `wrote more than the disk cap of ${formatBytes(limits.diskBytes)} (or ${DISK_ENTRY_LIMIT} entries) in its case folder (sandbox.limits.disk_bytes)`,
    };
  if (result.exitCode === null)
    return { status: "error", message: `it ${describeProcessEnding(endingOfExit(null, result.signal))}${stderrTail(result.stderr)}` };
  return undefined;
}

function exitMessage(result: ProcessCaseEnd, expected: number): string {
  return `${describeProcessEnding(endingOfExit(result.exitCode, result.signal))} (expected ${expected})${stderrTail(result.stderr)}`;
}

function stderrTail(stderr: string): string {
  // Caret lines under a traceback frame say nothing in one line of text.
  const lines = stderr
    .trimEnd()
    .split("\n")
    .filter((l) => l.trim() !== "" && !/^\s*[\^~]+\s*$/.test(l));
  return lines.length === 0 ? "" : `: ${lines.slice(-STDERR_TAIL_LINES).join(" | ")}`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${bytes} bytes`;
}
