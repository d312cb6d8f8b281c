/**
 * The flow of one task run, straight through core's task hooks, keyed by the deliverable type T:
 *   task.setUp[T] -> task.start -> task.resolveInput[T] for every case (nothing runs until all are checked)
 *   -> per valid case, up to `jobs` at once: task.execute[T] -> task.compare[mode] each field -> task.caseResult
 *   -> task.tearDown[T] (always) -> runEnd (always; a remote run's report reaches the reporters there too).
 */
import { availableParallelism } from "node:os";
import pLimit from "p-limit";
import {
  assertNoTaskFiles,
  pointer,
  SkillrigError,
  isSkillrigError,
  type CaseComparison,
  type CaseOutcome,
  type CaseVerdict,
  type CaseWork,
  type Deliverable,
  type LoadedTask,
  type NotRunCase,
  type Runner,
  type Sandbox,
  type TaskReport,
  type TaskRun,
  type TaskSummary,
  type Violation,
} from "@skillrig/core";
import type { Bail, CaseSelection } from "./case-selection.js";
import { assertModesClaimed, chooseMode } from "./compare/compare-spec.js";
import { withUserPaths } from "./snapshot-paths.js";
import { withCompleteness } from "./report-completeness.js";

export interface RunTaskOptions {
  loaded: LoadedTask;
  deliverable: Deliverable;
  /** Cases run at once (default: the number of cores). */
  jobs?: number;
  /** Refuse the whole task, before anything runs, when any case is invalid. */
  strict?: boolean;
  signal?: AbortSignal;
  /** Which cases run (`-k`, `--last-failed`, `--limit`); the others are left out of the report. Default: all. */
  select?: CaseSelection;
  /** Stop starting cases once it has counted enough failures (`--bail`); the cases it stopped are `not_run`. */
  bail?: Bail;
}

export async function runTask(runner: Runner, options: RunTaskOptions): Promise<TaskReport> {
  const { loaded, deliverable } = options;
  const task = loaded.task;
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  const signal = options.signal ?? new AbortController().signal;

  // Misconfiguration is found before any hook fires.
  runner.requireClaim("deliverable", task.deliverable_type, { file: loaded.displayPath, pointer: "/deliverable_type" });
  assertModesClaimed(runner, loaded);
  const sandbox = runner.sandbox({ purpose: task.deliverable_type });
  const hiddenTestsReachable = checkGradingLevel(sandbox);
  // Nothing of the task crosses into the sandbox: a deliverable that would carry the task file is refused.
  if (loaded.file) await assertNoTaskFiles(deliverable, [loaded.file]);

  const type = task.deliverable_type;
  const run: TaskRun = { loaded, deliverable, sandbox, jobs, signal };
  const works: CaseWork[] = task.tests
    .map((testCase, index) => ({ run, testCase, index }))
    .filter((work) => options.select?.(work.testCase, work.index) ?? true);
  if (works.length < task.tests.length) run.selectedCases = works.length;
  const notRun: NotRunCase[] = [];
  const info = { kind: "task" as const, id: task.task_id, startedAt: new Date() };
  const started = performance.now();
  const verdicts: Array<CaseVerdict | undefined> = new Array(task.tests.length);
  let report: TaskReport | undefined;
  let ok = false;

  // Warnings input resolution raised (e.g. a signature that could not be read), reported once each.
  const inputWarnings = new Set<string>();
  const hooks = runner.hooks.task;
  try {
    try {
      // Inside the try: when one plugin's setup fails, the others that did set up still tear down.
      await hooks.setUp.for(type).promise(run);
      await hooks.start.promise(run);
      const inputs: unknown[] = [];
      const invalid: Array<{ work: CaseWork; violations: Violation[] }> = [];
      for (const work of works) {
        const resolution = await hooks.resolveInput.for(type).promise({ value: work.testCase.input, violations: [] }, work);
        inputs[work.index] = resolution.value;
        for (const warning of resolution.warnings ?? []) inputWarnings.add(warning);
        if (resolution.violations.length > 0) invalid.push({ work, violations: resolution.violations });
      }
      if (options.strict && invalid.length > 0) throw strictRefusal(loaded, invalid);
      for (const { work, violations } of invalid) {
        const verdict = invalidVerdict(work, violations);
        verdicts[work.index] = verdict;
        await hooks.caseResult.promise(verdict, work);
      }

      // A type whose host queues a sample's cases takes them at once (one batch, no round trip per case); `--bail`
      // keeps one case per job, so that it can stop cases before they start.
      const limit = pLimit(options.bail ? jobs : Math.max(jobs, run.casesInFlight ?? jobs));
      const invalidIndexes = new Set(invalid.map((i) => i.work.index));
      // A fatal error (no sandbox, a broken plugin) stops cases from starting, but the ones already running are
      // awaited before taskEnd tears their folders and harnesses down.
      let fatal: { error: unknown } | undefined;
      await Promise.all(
        works
          .filter((work) => !invalidIndexes.has(work.index))
          .map((work) =>
            limit(async () => {
              if (fatal) return;
              if (options.bail?.stopped) {
                notRun.push({ name: work.testCase.name, index: work.index, reason: options.bail.reason });
                return;
              }
              try {
                const verdict = withUserPaths(await runCase(runner, work, inputs[work.index]), deliverable);
                verdicts[work.index] = verdict;
                if (verdict.status !== "passed") options.bail?.failed();
                await hooks.caseResult.promise(verdict, work);
              } catch (error) {
                fatal ??= { error };
              }
            }),
          ),
      );
      if (fatal) throw fatal.error;
    } finally {
      notRun.sort((a, b) => a.index - b.index);
      report = buildReport(
        run,
        { verdicts, selected: works.length, notRun },
        performance.now() - started,
        inputWarnings,
        hiddenTestsReachable,
      );
      await hooks.tearDown.for(type).promise(run, report);
    }
    ok = true;
    return report;
  } finally {
    // A run that was refused or broke off has no report to write: the error that ended it is what the user sees.
    await runner.hooks.runEnd.promise({ ...info, ok, durationMs: Math.round(performance.now() - started), ...(ok ? { report } : {}) });
  }
}

async function runCase(runner: Runner, work: CaseWork, input: unknown): Promise<CaseVerdict> {
  const { testCase, index } = work;
  const started = performance.now();
  if (work.run.signal.aborted) {
    // Canceled (Ctrl-C, a canceled job): cases not yet started are reported, not run.
    return {
      name: testCase.name,
      index,
      status: "error",
      duration_ms: 0,
      input: testCase.input,
      expected: testCase.expected,
      actual: null,
      message: "canceled before it ran",
    };
  }
  let outcome: CaseOutcome;
  try {
    const type = work.run.loaded.task.deliverable_type;
    const result = await runner.hooks.task.execute.for(type).promise({ work, input });
    if (result === undefined) {
      const claim = runner.claimant("deliverable", type);
      throw new SkillrigError(
        "invalid_config",
        `plugin "${claim?.plugin}" claims deliverable type "${work.run.loaded.task.deliverable_type}" but did not execute case ${index} ("${testCase.name}")`,
      );
    }
    outcome = result;
  } catch (error) {
    // Setup and configuration problems (no sandbox, a broken plugin) stop the run; they are not the deliverable's fault.
    if (isSkillrigError(error)) throw error;
    outcome = {
      actual: undefined,
      status: "error",
      message: `internal error while running the case: ${(error as Error)?.message ?? error}`,
      comparisons: [],
    };
  }
  const base = {
    name: testCase.name,
    index,
    input: testCase.input,
    expected: testCase.expected,
    actual: outcome.actual,
    ...(outcome.details ? { details: outcome.details } : {}),
  };
  if (outcome.status !== undefined) {
    return { ...base, status: outcome.status, duration_ms: elapsed(started, outcome.queuedMs), message: outcome.message ?? outcome.status };
  }
  const failures = compareAll(runner, work, outcome.comparisons);
  if (failures.length === 0) return { ...base, status: "passed", duration_ms: elapsed(started, outcome.queuedMs) };
  return {
    ...base,
    status: "failed",
    duration_ms: elapsed(started, outcome.queuedMs),
    message: [outcome.message, ...failures.map((f) => f.message)].filter(Boolean).join("; "),
    diff: failures
      .map((f) => f.diff)
      .filter(Boolean)
      .join("\n"),
  };
}

interface FieldFailure {
  message: string;
  diff?: string;
}

function compareAll(runner: Runner, work: CaseWork, comparisons: CaseComparison[]): FieldFailure[] {
  const failures: FieldFailure[] = [];
  const taskCompare = work.run.loaded.task.compare;
  for (const comparison of comparisons) {
    const { field, expected, actual } = comparison;
    if (actual === undefined && expected !== undefined) {
      failures.push({ message: `${field} was not produced` });
      continue;
    }
    const chosen = chooseMode(comparison, work.testCase, work.index, taskCompare);
    const result = runner.hooks.task.compare.for(chosen.mode).call({
      mode: chosen.mode,
      options: chosen.options,
      expected,
      actual,
      field,
      decoded: comparison.decoded,
      exactJson: comparison.exactJson,
    });
    if (result === undefined) {
      const claim = runner.claimant("compare", chosen.mode);
      throw new SkillrigError(
        claim ? "invalid_config" : "invalid_task",
        claim
          ? `compare mode "${chosen.mode}" (${chosen.source}) is claimed by plugin "${claim.plugin}" but its tap returned no result`
          : `unknown compare mode "${chosen.mode}" (${chosen.source})`,
        { file: work.run.loaded.displayPath, pointer: chosen.source.startsWith("/") ? chosen.source : undefined },
      );
    }
    if (!result.equal) {
      failures.push({ message: result.message ?? `${field} differs (${chosen.mode})`, diff: result.diff });
    }
  }
  return failures;
}

function invalidVerdict(work: CaseWork, violations: Violation[]): CaseVerdict {
  return {
    name: work.testCase.name,
    index: work.index,
    status: "invalid_test_format",
    duration_ms: 0,
    input: work.testCase.input,
    expected: work.testCase.expected,
    actual: null,
    message: [...new Set(violations.map((v) => v.message))].join("; "),
    details: { violations },
  };
}

function strictRefusal(loaded: LoadedTask, invalid: Array<{ work: CaseWork; violations: Violation[] }>): SkillrigError {
  const violations = invalid.flatMap(({ violations }) => violations.map((v) => ({ ...v, file: v.file ?? loaded.displayPath })));
  const lines = invalid.map(
    ({ work, violations }) => `  ${pointer("tests", work.index)} ("${work.testCase.name}"): ${violations.map((v) => v.message).join("; ")}`,
  );
  return new SkillrigError(
    "invalid_test_format",
    `--strict: ${invalid.length} case(s) of ${loaded.displayPath} break the Input Contract; nothing was run:\n${lines.join("\n")}`,
    { file: loaded.displayPath, pointer: violations[0]?.pointer, violations },
  );
}

/**
 * Levels that cannot keep the task file and the runner's argv, cwd and environment away from the code: without
 * a mount and pid namespace of its own, the code can read the runner's /proc/<pid>/cmdline (which names the task
 * file) and any file the runner's user may read.
 */
const LEVELS_REACHING_HIDDEN_TESTS = new Set(["rlimits", "none"]);

export const HIDDEN_TESTS_REACHABLE_WARNING = (level: string) =>
  `isolation "${level}" was named by the user: hidden tests were reachable by the code under test (it could read the task file and the runner's command line), so a pass proves less than at "namespaces"`;

/**
 * Grading at a weak level only when the user named it. `auto` that fell back (no bubblewrap) is refused, so a
 * verdict never silently comes from a sandbox the code could see out of. Returns whether the tests were reachable.
 */
function checkGradingLevel(sandbox: Sandbox): boolean {
  if (!LEVELS_REACHING_HIDDEN_TESTS.has(sandbox.isolation)) return false;
  if (sandbox.levelNamed) return true;
  const why = sandbox.warnings.find((w) => w.includes("not available")) ?? "the strongest level is not available here";
  throw new SkillrigError(
    "sandbox_unavailable",
    `refusing to grade at isolation level "${sandbox.isolation}": at that level the code under test can read the task file with its hidden tests (through the runner's /proc/<pid>/cmdline and the file system), so it could pass without being right. Level "namespaces" is needed (${why})`,
    {
      field: "sandbox.level",
      hint: `install bubblewrap (bash scripts/setup-system.sh) for level "namespaces", or accept the risk by naming the level: skillrig test --sandbox-level ${sandbox.isolation}, or sandbox.level: "${sandbox.isolation}" in skillrig.config; the report then says the hidden tests were reachable`,
    },
  );
}

function buildReport(
  run: TaskRun,
  graded: { verdicts: Array<CaseVerdict | undefined>; selected: number; notRun: NotRunCase[] },
  durationMs: number,
  inputWarnings: Set<string>,
  hiddenTestsReachable: boolean,
): TaskReport {
  const cases = graded.verdicts.filter((v): v is CaseVerdict => v !== undefined);
  const reachable = hiddenTestsReachable ? [HIDDEN_TESTS_REACHABLE_WARNING(run.sandbox.isolation)] : [];
  const all = [...reachable, ...run.sandbox.warnings, ...inputWarnings];
  const warnings = all.length > 0 ? all : undefined;
  const report: TaskReport = {
    task_id: run.loaded.task.task_id,
    deliverable_type: run.loaded.task.deliverable_type,
    summary: {
      ...summarize(cases, graded.selected),
      ...(graded.notRun.length > 0 ? { not_run: graded.notRun.length } : {}),
    },
    cases,
    isolation: run.sandbox.isolation,
    ...(hiddenTestsReachable ? { hidden_tests_reachable: true as const } : {}),
    ...(warnings ? { warnings } : {}),
    duration_ms: Math.round(durationMs),
    ...(graded.notRun.length > 0 ? { not_run: graded.notRun } : {}),
  };
  // Every selected case has a verdict or a not_run entry; a run that lost some says so rather than pass (issue 38).
  return withCompleteness(report, graded.selected, "the task run");
}

export function summarize(cases: CaseVerdict[], total = cases.length): TaskSummary {
  const count = (pred: (v: CaseVerdict) => boolean) => cases.filter(pred).length;
  return {
    total,
    passed: count((v) => v.status === "passed"),
    failed: count((v) => v.status === "failed"),
    errored: count((v) => v.status !== "passed" && v.status !== "failed" && v.status !== "invalid_test_format"),
    invalid: count((v) => v.status === "invalid_test_format"),
  };
}

/** The case's own time: since its execute began, less what it waited behind other cases in its host's queue. */
function elapsed(started: number, queuedMs = 0): number {
  return Math.max(0, Math.round(performance.now() - started - queuedMs));
}
