/**
 * Process cases through the sample host (`Sandbox.openSample`, docs/sandbox.md "The sample host"): a Python
 * script or cli is compiled once per sample, and each case runs it as `__main__` in a fork, instead of a fresh
 * sandboxed interpreter per case.
 *
 * A run opens `min(jobs, cases)` samples of the same snapshot, its "lanes": cases that run at once never share a
 * sample (so never a uid or a folder), and a lane runs its cases one after another, each in a fresh folder, after
 * everything of the previous case is gone (the host answers only then). A reply is data about what the program did;
 * it is mapped to the same `ProcessCaseEnd` a process of its own gives, and from there to the outcome by the one
 * mapping both paths share (`processCaseOutcome`).
 */
import { lstat, readlink } from "node:fs/promises";
import { FILE_SIZE_EVIDENCE, MEMORY_EVIDENCE } from "@skillrig/process";
import { join } from "node:path";
import {
  resolveCaseLimits,
  type CaseOutcome,
  type CaseWork,
  type OpenSample,
  type ResourceLimits,
  type Runner,
  type SampleCaseReply,
  type SampleLoad,
  type TaskRun,
} from "@skillrig/core";
import { caseLimitDefaults } from "./case-limit-defaults.js";
import { writeCaseFiles } from "./case-folder.js";
import { type ProcessCaseEnd, processCaseOutcome } from "./run-process-case.js";
import type { ProcessInput } from "./validate-process-case.js";

/** Time a sample may take beyond its cases' own backstops (its start and load). */
const SAMPLE_OVERHEAD_MS = 30_000;

export interface SampleLanesOptions {
  runner: Runner;
  run: TaskRun;
  /** The run's temp folder (case folders for a sample that did not load go here). */
  root: string;
  snapshotDir: string;
  entryFile: string;
  /** The command a process of its own would have run, for the report: `python3 <entry>`. */
  runtime: readonly string[];
}

export class SampleLanes {
  readonly #options: SampleLanesOptions;
  readonly #free: OpenSample[];
  readonly #waiting: ((lane: OpenSample) => void)[] = [];
  readonly #all: OpenSample[];

  private constructor(options: SampleLanesOptions, lanes: OpenSample[]) {
    this.#options = options;
    this.#all = lanes;
    this.#free = [...lanes];
  }

  /** Opens the run's lanes; undefined when the run's sandbox has no sample host. */
  static async open(options: SampleLanesOptions): Promise<SampleLanes | undefined> {
    const { run, runner, snapshotDir, entryFile } = options;
    const openSample = run.sandbox?.openSample?.bind(run.sandbox);
    if (!openSample) return undefined;
    const cases = run.loaded.task.tests.length;
    const count = Math.max(1, Math.min(run.jobs, cases));
    const perLane = Math.ceil(cases / count);
    const limits = sampleLimits(runner, run, perLane);
    const opened = await Promise.allSettled(
      Array.from({ length: count }, () =>
        openSample({ program: { kind: "main", entryFile }, snapshotDir, concurrency: 1, cases: perLane, limits, signal: run.signal }),
      ),
    );
    const lanes = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    const failed = opened.find((o): o is PromiseRejectedResult => o.status === "rejected");
    if (failed) {
      await Promise.allSettled(lanes.map((lane) => lane.close()));
      throw failed.reason;
    }
    return new SampleLanes(options, lanes);
  }

  async runCase(work: CaseWork, input: ProcessInput): Promise<CaseOutcome> {
    const { runner, root, entryFile, runtime } = this.#options;
    const { run, testCase, index } = work;
    const limits = resolveCaseLimits(run.loaded.task, testCase, caseLimitDefaults(runner.config));
    const command = [...runtime, entryFile, ...input.argv];
    /** The outcome of a case whose folder cannot be read: its input files as given, nothing of the program's. */
    const withInputFilesOnly = async (ended: ProcessCaseEnd) => {
      const caseDir = join(root, `case-${String(index).padStart(4, "0")}`);
      await writeCaseFiles(caseDir, input.files);
      return processCaseOutcome({ testCase, input, limits, command, result: ended, caseDir });
    };
    const lane = await this.#take();
    try {
      if (!lane.load.ok) {
        // The program never started: every case ends as `python3 <entry>` would have (its input files untouched).
        const ended = loadFailureEnd(lane.load, lane.isolation);
        if (!ended) return loadError(lane.load, command);
        return await withInputFilesOnly(ended);
      }
      const reply = await lane.run({ limits, argv: input.argv, stdin: input.stdin, files: input.files });
      const ended = endOfReply(reply, lane.isolation);
      if (typeof ended === "string") return hostError(command, reply, ended);
      if (reply.end === "lost") {
        // Stuck: its harness was stopped with it, so no folder of the case can be read; its verdict is the timeout.
        return await withInputFilesOnly(ended);
      }
      if (reply.folder === undefined) return hostError(command, reply, "the sample host named no folder for this case");
      // The folder sits in the sample's own working folder, which its code may write: it may have put something else
      // in its place (a symlink to a folder of the runner's). Only a real folder is read, and nothing through a link.
      const replaced = await notAFolder(reply.folder);
      if (replaced) {
        return {
          actual: null,
          status: "error",
          message: `the case replaced its working folder: ${replaced}; nothing in it was read`,
          comparisons: [],
          details: { command, exit_code: ended.exitCode, stderr: ended.stderr },
        };
      }
      // The host answers once nothing of the case runs any more; the folder stays as it was until the lane's next case.
      return await processCaseOutcome({ testCase, input, limits, command, result: ended, caseDir: reply.folder });
    } finally {
      this.#give(lane);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#all.map((lane) => lane.close()));
  }

  #take(): Promise<OpenSample> {
    const lane = this.#free.shift();
    if (lane) return Promise.resolve(lane);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #give(lane: OpenSample): void {
    const next = this.#waiting.shift();
    if (next) next(lane);
    else this.#free.push(lane);
  }
}

/** A sample as a whole: its time bounds all the cases of its lane; its processes and disk cover one case at a time. */
function sampleLimits(runner: Runner, run: TaskRun, casesPerLane: number): ResourceLimits {
  const task = run.loaded.task;
  const defaults = caseLimitDefaults(runner.config);
  const perCase = resolveCaseLimits(task, undefined, defaults);
  const longest = task.tests.reduce((most, testCase) => Math.max(most, resolveCaseLimits(task, testCase, defaults).wallMs), 0);
  const wallMs = SAMPLE_OVERHEAD_MS + longest * casesPerLane;
  return {
    wallMs,
    cpuMs: wallMs,
    memoryBytes: perCase.memoryBytes,
    // One case at a time, the fork server, the harness and a spare.
    maxProcesses: perCase.maxProcesses + 3,
    fileSizeBytes: perCase.fileSizeBytes,
    // The case running and the one before it, left for the runner to read until the next starts.
    diskBytes: perCase.diskBytes * 2,
  };
}

/** A main sample that did not load, as `python3 <entry>` would have ended: a syntax error is exit 1, its message on stderr. */
function loadFailureEnd(load: Extract<SampleLoad, { ok: false }>, isolation: string): ProcessCaseEnd | undefined {
  if (load.kind !== "syntax_error" && load.kind !== "import_error") return undefined;
  return {
    ...NOTHING_PASSED,
    exitCode: load.kind === "syntax_error" ? 1 : 2,
    signal: null,
    stdout: "",
    stderr: load.traceback ?? `${load.message}\n`,
    durationMs: 0,
    isolation,
  };
}

const NOTHING_PASSED = {
  timedOut: false,
  outputLimited: false,
  memoryLimited: false,
  cpuLimited: false,
  fileSizeLimited: false,
  diskLimited: false,
} as const;

/**
 * A reply as the sandbox would have reported a process of its own: the host's kills become the same limit flags,
 * and what the program's own stderr says about memory and file size counts as the sandbox counts it (only when the
 * case ended badly). Ends a main case cannot have, or a lost sample, are an error of the host, never the program's verdict.
 */
function endOfReply(reply: SampleCaseReply, isolation: string): ProcessCaseEnd | string {
  const base = { stdout: reply.stdout, stderr: reply.stderr, durationMs: reply.ms, isolation, ...NOTHING_PASSED };
  const evidence = (exitCode: number | null, signal: string | null): ProcessCaseEnd => {
    const endedBadly = exitCode !== 0;
    return {
      ...base,
      exitCode,
      signal,
      outputLimited: reply.overCap === "stdout" || reply.overCap === "stderr",
      memoryLimited: (endedBadly && MEMORY_EVIDENCE.test(reply.stderr)) || signal === "SIGKILL",
      cpuLimited: signal === "SIGXCPU",
      fileSizeLimited: signal === "SIGXFSZ" || (endedBadly && FILE_SIZE_EVIDENCE.test(reply.stderr)),
    };
  };
  switch (reply.end) {
    case "exited":
      return evidence(reply.exit_code, null);
    case "signaled":
      return evidence(null, reply.signal);
    case "killed": {
      const flag = {
        wall: "timedOut",
        cpu: "cpuLimited",
        disk: "diskLimited",
        stdout: "outputLimited",
        stderr: "outputLimited",
      } as const;
      const which = reply.reason in flag ? flag[reply.reason as keyof typeof flag] : undefined;
      if (!which) return `the sample host stopped this case for a reason a program case cannot have (${reply.reason})`;
      return { ...base, exitCode: null, signal: "SIGKILL", [which]: true };
    }
    case "failed_to_start":
      return `the case could not be started: ${reply.message}`;
    case "lost":
      // Silent past its wall backstop and the grace: a timeout, as a function case's (a case can stop its own harness).
      if (reply.stuck) return { ...base, exitCode: null, signal: "SIGKILL", timedOut: true };
      return `the sample's process was lost while this case ran: ${reply.message}`;
    default:
      return `the sample host answered "${reply.end}", which a program case cannot end with`;
  }
}

/** Why `folder` is not a real folder (a symlink, a file, gone), or undefined when it is one. Never follows a link. */
async function notAFolder(folder: string): Promise<string | undefined> {
  try {
    const stat = await lstat(folder);
    if (stat.isSymbolicLink())
      return `it is a symlink (to ${JSON.stringify(await readlink(folder).catch(() => "?"))}), which is never followed`;
    return stat.isDirectory() ? undefined : "it is not a folder any more";
  } catch (error) {
    return `it is gone (${(error as NodeJS.ErrnoException).code ?? error})`;
  }
}

function loadError(load: Extract<SampleLoad, { ok: false }>, command: string[]): CaseOutcome {
  return {
    actual: null,
    status: "error",
    message: `the program could not be loaded: ${load.message}`,
    comparisons: [],
    details: { command, load_error: load.kind, ...(load.traceback ? { traceback: load.traceback } : {}) },
  };
}

function hostError(command: string[], reply: SampleCaseReply, message: string): CaseOutcome {
  return { actual: null, status: "error", message, comparisons: [], details: { command, sample_host: reply.end } };
}
