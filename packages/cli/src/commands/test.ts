/**
 * `skillrig test`: grades deliverables against task files.
 *
 * - One task: `skillrig test <task-file> --deliverable <file-or-folder>`, exactly as before (per-case report).
 * - A suite: several task files and/or folders (a folder is searched for task.json files; one without any has
 *   its *.json files taken as task files), with `--deliverable DIR` (DIR/<task_id>.py or DIR/<task_id>/ per task)
 *   or `--samples FILE.jsonl` (any number of samples per task), graded in this one process with pass@k.
 * - Either one on a jobs server: `--server URL` (remote-run.ts); the report is built here as for a local run.
 *
 * Exit 0 when everything passed, 1 when something did not pass, 2 when a task file, a case or a deliverable is
 * invalid or missing, or the command is misused. With --json, stdout holds only the JSON report.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InvalidArgumentError } from "commander";
import { SkillrigError, applyReporters, checkReporterNames, type LoadedTask, type ReporterRequest, type Runner } from "@skillrig/core";
import { Bail, loadTask, resolveDeliverable, runTask, toJsonReport } from "@skillrig/oracle/one-task";
// A suite's modules are imported when a suite is graded (testSuite), not for one task.
import type { SuiteReport } from "@skillrig/oracle/suite";
import type { CommandContext } from "../context.js";
import type { CommandModule } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { withInterrupts } from "../interrupts.js";
import { REMOTE_IN_FLIGHT, SERVER_TOKEN_ENV } from "../server-option.js";
import { recordRun } from "../run-record.js";
import { refuseUngradableSuite } from "../suite-usage.js";
import { testSelection } from "../test-selection.js";
import { loadRemoteRun } from "../server-package.js";

/** The reporters skillrig offers itself (the help's list; what a run may use is what the runner's plugins offer). */
const BUILTIN_REPORTERS = ["console", "json", "junit", "html"] as const;

interface TestOptions {
  deliverable?: string;
  samples?: string;
  k?: number[];
  reporter?: string[];
  out?: string;
  jobs?: number;
  strict?: boolean;
  record?: boolean;
  server?: string;
  sandboxLevel?: SandboxLevel;
  filter?: string;
  bail?: number | true;
  lastFailed?: boolean;
  limit?: number;
}

const SANDBOX_LEVELS = ["auto", "namespaces", "rlimits", "none"] as const;
type SandboxLevel = (typeof SANDBOX_LEVELS)[number];

function parseSandboxLevel(value: string): SandboxLevel {
  if (!(SANDBOX_LEVELS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${SANDBOX_LEVELS.join(", ")}`);
  }
  return value as SandboxLevel;
}

function parseJobs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a whole number of at least 1");
  return n;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(",").filter(Boolean)];
}

function collectKs(value: string, previous: number[] = []): number[] {
  return [...previous, ...value.split(",").filter(Boolean).map(parseJobs)];
}

export const testCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("test")
      .description("Grade deliverables against task files: one task, or a suite of many tasks and samples with pass@k")
      .argument("<task-files...>", "task files (JSON, Task Oracle Input Contract v1.0) and/or folders of them")
      .option(
        "-d, --deliverable <file-or-folder>",
        "one task: the code under test (a .py file or a folder holding it); a suite: a folder with <task_id>.py or <task_id>/ per task",
      )
      .option(
        "--samples <file.jsonl>",
        'a suite\'s samples, one JSON line each: {"task_id", "solution": "<Python source>"} or {"task_id", "path"}',
      )
      .option("--k <n>", "also report pass@<n> (1 and the powers of ten up to the sample count always are); repeatable", collectKs)
      .option(
        "--reporter <name>",
        `reporter to use, repeatable: ${BUILTIN_REPORTERS.join(", ")} or one a plugin offers (default console)`,
        collect,
      )
      .option(
        "--out <dir>",
        "folder for report files (one task: <task_id>.json, <task_id>.junit.xml, <task_id>.html; a suite: suite.json, suite.junit.xml, suite.html)",
      )
      .option(
        "-j, --jobs <n>",
        "cases (one task) or task samples (a suite) run at once (default: oracle.jobs from the config, else the number of cores)",
        parseJobs,
      )
      .option("--strict", "refuse a task, before running any of its cases, if any case is invalid")
      .option(
        "-k, --filter <expr>",
        'grade only the cases whose task id or name contains these words: pytest\'s -k, e.g. -k "parse and not empty"',
      )
      .option("--bail [n]", "stop after n cases did not pass (default 1); what did not start is reported as not run", parseJobs)
      .option("--last-failed", "grade only the cases that did not pass in the newest recorded run of these tasks (none recorded: all)")
      .option("--limit <n>", "grade only the first n (selected) cases of each task", parseJobs)
      .option("--no-record", "do not record this run in the runs folder (skillrig runs, skillrig view)")
      .option(
        "--server <url>",
        `grade on a jobs server (skillrig serve) instead of here, a suite's samples in parallel on its workers; its token from ${SERVER_TOKEN_ENV}`,
      )
      .option(
        "--sandbox-level <level>",
        `isolation level for the code under test, overriding sandbox.level: ${SANDBOX_LEVELS.join(", ")}. Grading at "rlimits" or "none" (where the code can reach the hidden tests) happens only when named here or in the config`,
        parseSandboxLevel,
      )
      .addHelpText(
        "after",
        "\nA suite is more than one task file, a folder, or --samples. A folder is searched (recursively) for files named\n" +
          "task.json; a folder without any has the *.json files directly in it taken as task files. --samples paths are\n" +
          "relative to the samples file. Several lines with one task_id are several samples of that task.\n" +
          "\n-k/--filter takes words matched, case-insensitively, as parts of a task id or a case name, joined by and, or,\n" +
          "not and parentheses (quote a word with spaces). --last-failed reads the runs folder (skillrig runs list). The\n" +
          "options combine: -k narrows, --last-failed narrows further, --limit keeps the first n of what is left.\n" +
          "\nExit codes: 0 everything passed, 1 something did not pass, 2 a task file, case or deliverable is invalid or\n" +
          "missing, or misuse.\n" +
          "With --json, stdout holds only the report: one task {task_id, summary, cases: [{name, status, duration_ms,\n" +
          "expected, actual, message}]}; a suite {summary, pass_at_k, tasks: [{task_id, pass_at_k, samples: [{status, cases}]}]}.\n",
      )
      .action(async (paths: string[], options: TestOptions, command) => {
        const ctx = context(command);
        const requested = options.reporter ?? [];
        if (options.server !== undefined && options.bail !== undefined) {
          throw new SkillrigError("usage", "--bail does not apply with --server: the server grades each task run whole", {
            field: "--bail",
            hint: "drop --bail, or grade here (without --server)",
          });
        }
        if (options.sandboxLevel) {
          // Before the runner exists: the sandbox plugin reads sandbox.level when it is first asked for a sandbox.
          const config = (await ctx.config()).config;
          config.sandbox = { ...config.sandbox, level: options.sandboxLevel };
        }
        if (options.deliverable && options.samples) {
          throw new SkillrigError("usage", "give either --deliverable or --samples, not both", { field: "--samples" });
        }
        if (!options.deliverable && !options.samples) {
          throw new SkillrigError("usage", "nothing to grade: give --deliverable <file-or-folder> or --samples <file.jsonl>", {
            field: "--deliverable",
            hint: "skillrig test task.json --deliverable solution.py, or skillrig test tasks/ --samples samples.jsonl",
          });
        }
        if (options.server !== undefined && (options.jobs !== undefined || options.strict !== undefined)) {
          throw new SkillrigError("usage", "--jobs and --strict do not apply with --server: the server's oracle config decides them", {
            field: options.jobs !== undefined ? "--jobs" : "--strict",
          });
        }
        if (options.server !== undefined && !/^https?:\/\/[^/]+/.test(options.server)) {
          throw new SkillrigError("usage", `--server must be an http(s) URL such as http://127.0.0.1:8765, not "${options.server}"`, {
            field: "--server",
          });
        }
        const suite =
          paths.length > 1 || options.samples !== undefined || options.k !== undefined || (await isFolder(resolve(ctx.cwd, paths[0]!)));
        if (suite) setExit(await testSuite(ctx, paths, options, requested));
        else setExit(await testOneTask(ctx, paths[0]!, options, requested));
      });
  },
};

/**
 * The reporters asked for (console when none is and there is no --json), made by the plugins that offer them
 * (core's `reporter` hook; the built-in ones in @skillrig/oracle's reporters-plugin.ts) and applied to the runner.
 * Returns the names applied.
 */
function useReporters(
  ctx: CommandContext,
  runner: Runner,
  requested: string[],
  scope: ReporterRequest["scope"],
  out?: string,
): Set<string> {
  const json = ctx.global.json ?? false;
  const chosen = new Set(requested.length > 0 ? requested : json ? [] : ["console"]);
  const { stdout, stderr } = ctx.out.streams;
  applyReporters(runner, [...chosen], {
    scope,
    json,
    ...(out !== undefined ? { out: resolve(ctx.cwd, out) } : {}),
    stdout,
    stderr,
    wrote: (file) => stderr.write(`wrote ${file}\n`),
  });
  return chosen;
}

/**
 * Once the grading is done the runner is closed (its sandboxed processes end) while the run is recorded, instead of
 * after: main() closes it again, which waits on the same close. A failure to close is main's to ignore, as always.
 */
async function recordWhileClosing(ctx: CommandContext, record: (() => Promise<unknown>) | undefined): Promise<void> {
  const closing = ctx.close().catch(() => undefined);
  await record?.();
  await closing;
}

/** Ctrl-C cancels the run: cases not yet started are reported as canceled, not run (interrupts.ts). */
function withSigint<T>(ctx: CommandContext, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return withInterrupts({ stopping: "the cases not yet started", warn: (line) => ctx.out.warn(line) }, (interrupts) =>
    run(interrupts.signal),
  );
}

async function testOneTask(ctx: CommandContext, taskFile: string, options: TestOptions, requested: string[]): Promise<number> {
  const json = ctx.global.json ?? false;
  // The config and its plugins load while the task file is read (neither needs the other). The task's own error
  // still comes first: the runner's is taken only once the task is good. The deliverable's path is read by its
  // type's plugin, so after the runner.
  const building = ctx.runner();
  building.catch(() => undefined);
  const loaded = await loadTask(taskFile, ctx.cwd);
  const runner = await building;
  const deliverable = await resolveDeliverable(runner, options.deliverable!, loaded.task, ctx.cwd);
  checkReporterNames(runner, requested);
  const selection = await testSelection(ctx, [loaded], options);
  selection?.assertSelects([loaded]);
  const select = selection?.of(loaded);
  const { stdout, stderr } = ctx.out.streams;
  // With --json, stdout is reserved for the JSON report (written below), so reporters write their text to stderr.
  useReporters(ctx, runner, requested, "task", options.out);

  const oracle = runner.config.oracle ?? {};
  const startedAt = new Date();
  const remote = options.server ? await loadRemoteRun() : undefined;
  const report = await withSigint(ctx, (signal) =>
    remote && options.server
      ? remote.runTaskOnServer(runner, {
          server: options.server,
          loaded,
          deliverable: options.deliverable!,
          cwd: ctx.cwd,
          signal,
          progress: stderr,
          select,
        })
      : runTask(runner, {
          loaded,
          deliverable,
          jobs: options.jobs ?? oracle.jobs,
          strict: options.strict ?? oracle.strict ?? false,
          signal,
          select,
          bail: bailOf(options),
        }),
  );
  if (json) stdout.write(`${JSON.stringify(toJsonReport(report), null, 2)}\n`);
  await recordWhileClosing(ctx, options.record !== false ? () => recordRun(ctx, "test", toJsonReport(report), startedAt) : undefined);
  const s = report.summary;
  // A report that ended early is an error, never a pass (issue 38).
  if (report.incomplete) return ExitCode.InvalidInput;
  return s.invalid > 0 ? ExitCode.InvalidInput : s.passed === s.total ? ExitCode.Success : ExitCode.Failure;
}

async function testSuite(ctx: CommandContext, paths: string[], options: TestOptions, requested: string[]): Promise<number> {
  const json = ctx.global.json ?? false;
  const { stdout, stderr } = ctx.out.streams;
  const { createSuiteProgress, deliverablesFromFolder, deliverablesFromSamples, loadSuite, runSuite, toSuiteJson } = await import(
    "@skillrig/oracle/suite"
  );
  const tasks = await loadSuite(paths, ctx.cwd);
  const workDir = await mkdtemp(join(tmpdir(), "skillrig-samples-"));
  try {
    const runner = await ctx.runner();
    const entries = options.samples
      ? await deliverablesFromSamples(runner, tasks, options.samples, { cwd: ctx.cwd, workDir })
      : await deliverablesFromFolder(runner, tasks, options.deliverable!, ctx.cwd);
    refuseUngradableSuite(entries, options.deliverable, ctx.cwd);
    checkReporterNames(runner, requested);
    const selection = await testSelection(
      ctx,
      entries.map((e) => e.loaded),
      options,
    );
    selection?.assertSelects(entries.map((e) => e.loaded));
    // A task none of whose cases is selected is left out of the suite, as a deselected test is.
    const graded = selection ? entries.filter((e) => selection.count(e.loaded) > 0) : entries;
    // Each task whose deliverable is missing is said up front; the others still run.
    for (const entry of graded) if (entry.problem) stderr.write(`error[usage]: ${entry.problem}\n`);

    const chosen = useReporters(ctx, runner, requested, "suite", options.out);
    const oracle = runner.config.oracle ?? {};
    const progress = chosen.has("console") || json ? await createSuiteProgress({ stream: stderr }) : undefined;
    // The live line ends before any reporter writes the suite's end (stage -1: before the reporters' taps).
    runner.hooks.runEnd.tap({ name: "skillrig:suite-progress", stage: -1 }, (info) => {
      if (info.kind === "suite") progress?.done();
    });
    const startedAt = new Date();
    const grade = options.server ? (await loadRemoteRun()).remoteSampleGrader(options.server) : undefined;
    const report = await withSigint(ctx, (signal) =>
      runSuite(runner, {
        entries: graded,
        // With --server every sample is one oracle run on the server; how many run at once is its workers' affair.
        jobs: options.server ? REMOTE_IN_FLIGHT : (options.jobs ?? oracle.jobs ?? defaultJobs()),
        ...(grade ? { grade } : {}),
        ks: options.k,
        strict: options.strict ?? oracle.strict ?? false,
        signal,
        ...(selection ? { select: (loaded: LoadedTask) => selection.of(loaded) } : {}),
        bail: bailOf(options),
        onProgress: (p) => progress?.update(p),
      }),
    );
    if (json) stdout.write(`${JSON.stringify(toSuiteJson(report), null, 2)}\n`);
    await recordWhileClosing(ctx, options.record !== false ? () => recordRun(ctx, "test", toSuiteJson(report), startedAt) : undefined);
    return suiteExitCode(report);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

function bailOf(options: TestOptions): Bail | undefined {
  return options.bail === undefined ? undefined : new Bail(options.bail === true ? 1 : options.bail);
}

/** 2 when anything could not be judged for a reason of input (a missing deliverable, an invalid case), else 1 when any sample failed. */
function suiteExitCode(report: SuiteReport): number {
  const inputProblem = (code: string | undefined) => code === "usage" || code === "invalid_task" || code === "invalid_test_format";
  const samples = report.tasks.flatMap((t) => t.samples);
  if (report.summary.tasks_not_graded > 0 || report.summary.samples_invalid > 0 || samples.some((s) => inputProblem(s.error?.code)))
    return ExitCode.InvalidInput;
  return report.summary.samples_passed === report.summary.samples && report.summary.samples > 0 ? ExitCode.Success : ExitCode.Failure;
}

function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
