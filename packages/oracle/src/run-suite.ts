/**
 * A suite run: many tasks x many samples in one process. Every (task, sample) pair is one ordinary task run
 * (`runTask`, so every hook fires as for `skillrig test` of one task), and a scheduler runs up to `jobs` pairs at
 * once, so tasks and samples run in parallel, not only cases. Then per task: the samples that passed every case and
 * pass@k; over the suite: the mean pass@k over the tasks that have at least k samples.
 */
import pLimit from "p-limit";
import {
  isSkillrigError,
  type CaseVerdict,
  type Deliverable,
  type LoadedTask,
  type Runner,
  type SerializedError,
  type TaskReport,
  type TaskSummary,
} from "@skillrig/core";
import type { Bail, CaseSelection } from "./case-selection.js";
import { passAtK, reportedKs } from "./pass-at-k.js";
import { deliverableDigest } from "./deliverable-digest.js";
import { runTask } from "./run-task.js";
import type { SuiteEntry } from "./suite-deliverables.js";

/** passed: every case passed. failed: it ran and some case did not pass. invalid: the task has invalid cases. error: it could not be graded. */
export type SampleStatus = "passed" | "failed" | "invalid" | "error";

export interface GradedSample {
  status: SampleStatus;
  report?: TaskReport;
  /** Why the sample could not be graded (a refused task, an unusable deliverable): the error as `--json` shows errors. */
  error?: { code: string; message: string } & Partial<SerializedError>;
}

export interface SampleResult extends GradedSample {
  sample: number;
  source: string;
  /** `sha256:<hex>` of the deliverable's content (deliverable-digest.ts): who this sample is, for comparisons. */
  deliverable_sha256?: string;
  duration_ms: number;
}

export interface SuiteTaskResult {
  task_id: string;
  file: string;
  deliverable_type: string;
  /** Samples of this task, and how many of them passed every case. */
  samples_total: number;
  samples_passed: number;
  /** `pass@k` for every reported k up to this task's sample count. */
  pass_at_k: Record<string, number>;
  /** Why this task was not graded at all (no deliverable found). */
  problem?: string;
  samples: SampleResult[];
}

export interface SuiteSummary {
  tasks: number;
  /** Tasks that were not graded at all (see `problem`); they are left out of pass@k. */
  tasks_not_graded: number;
  samples: number;
  samples_passed: number;
  samples_failed: number;
  samples_invalid: number;
  samples_errored: number;
  cases: number;
  cases_passed: number;
  duration_ms: number;
}

declare module "@skillrig/core" {
  /** `runEnd`'s suite report (kind `suite`) is this one: a reporter importing the oracle's types sees every field. */
  interface SuiteRunReport extends SuiteReport {}
}

export interface SuiteReport {
  kind: "skillrig-suite-report";
  version: 1;
  summary: SuiteSummary;
  /** `pass@k` over the suite: the mean over the tasks with at least k samples (`tasks` of them). */
  pass_at_k: Record<string, { value: number; tasks: number }>;
  tasks: SuiteTaskResult[];
}

export interface SuiteProgress {
  /** Samples that ended: graded, or not graded (canceled, stopped by --bail, no deliverable). */
  done: number;
  total: number;
  samplesPassed: number;
  /** Of `done`, the samples that ended without a grade (status "error"); the summary's "not graded". */
  notGraded?: number;
  elapsedMs: number;
  last: { task_id: string; sample: number; status: SampleStatus; result: SampleResult };
}

export interface RunSuiteOptions {
  entries: SuiteEntry[];
  /** (task, sample) pairs graded at once (default 1). */
  jobs?: number;
  /** Cases run at once within a pair (default: what `jobs` leaves over when there are fewer pairs than jobs). */
  caseJobs?: number;
  /** Extra k values for pass@k (1 and the powers of ten up to the sample count are always reported). */
  ks?: number[];
  strict?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: SuiteProgress) => void;
  /** Grades one sample elsewhere (a jobs server, `skillrig test --server`); default: `gradeSample` on `runner`. */
  grade?: (options: SampleGrading) => Promise<GradedSample>;
  /** The cases of a task that run (`-k`, `--last-failed`, `--limit`); undefined: all of them. */
  select?: (loaded: LoadedTask) => CaseSelection | undefined;
  /** Stop after this many failing cases over the whole suite (`--bail`): pairs not started are `interrupted` errors saying so. */
  bail?: Bail;
}

export interface SampleGrading {
  loaded: LoadedTask;
  deliverable: Deliverable;
  jobs?: number;
  strict?: boolean;
  signal?: AbortSignal;
  select?: CaseSelection;
  bail?: Bail;
}

/** Errors that are about one task or one deliverable: the sample records them and the suite goes on. */
const SAMPLE_ERRORS = new Set(["invalid_task", "invalid_test_format", "usage"]);

/**
 * Grades one deliverable of one task through the ordinary task flow. A problem that belongs to this task or this
 * deliverable becomes an `error` sample; anything else (no sandbox, a broken plugin) is thrown, as it would stop
 * every other sample too.
 */
export async function gradeSample(runner: Runner, options: SampleGrading): Promise<GradedSample> {
  try {
    const report = await runTask(runner, options);
    const s = report.summary;
    // Stopped (--bail) before any of its cases could fail: not graded, rather than failed.
    if (s.not_run && s.passed + s.not_run === s.total)
      return { status: "error", report, error: { code: "interrupted", message: report.not_run?.[0]?.reason ?? "not run" } };
    return { status: sampleStatus(s, report.incomplete), report };
  } catch (error) {
    if (isSkillrigError(error) && SAMPLE_ERRORS.has(error.code)) return { status: "error", error: error.toJSON() };
    throw error;
  }
}

export function sampleStatus(summary: TaskSummary, incomplete?: unknown): SampleStatus {
  if (summary.invalid > 0) return "invalid";
  // A report that ended early is not a grade: an error, never a pass (issue 38).
  if (incomplete) return "error";
  return summary.total > 0 && summary.passed === summary.total ? "passed" : "failed";
}

/**
 * Grades every (task, sample) pair, `jobs` at once, then fires `runEnd` (kind `suite`, with the report) for the
 * reporters. A run that broke off (a plugin threw) fires it without a report, as a task run does.
 */
export async function runSuite(runner: Runner, options: RunSuiteOptions): Promise<SuiteReport> {
  const startedAt = new Date();
  const started = performance.now();
  let suite: SuiteReport | undefined;
  try {
    suite = await gradeSuite(runner, options, started);
    return suite;
  } finally {
    await runner.hooks.runEnd.promise({
      kind: "suite",
      id: "suite",
      startedAt,
      ok: suite !== undefined,
      durationMs: Math.round(performance.now() - started),
      ...(suite ? { suite } : {}),
    });
  }
}

async function gradeSuite(runner: Runner, options: RunSuiteOptions, started: number): Promise<SuiteReport> {
  const jobs = Math.max(1, options.jobs ?? 1);
  const signal = options.signal ?? new AbortController().signal;
  const pairs = options.entries.flatMap((entry) => entry.samples.map((sample) => ({ entry, sample })));
  // Pairs are the unit of parallelism; cases within a pair share only the jobs left over (a one-task suite gets them all).
  const caseJobs = Math.max(1, options.caseJobs ?? Math.ceil(jobs / Math.max(1, pairs.length)));
  const results = new Map<SuiteEntry, SampleResult[]>(options.entries.map((entry) => [entry, []]));
  const grade = options.grade ?? ((sample: SampleGrading) => gradeSample(runner, sample));
  const limit = pLimit(jobs);
  let done = 0;
  let samplesPassed = 0;
  let notGraded = 0;
  let fatal: { error: unknown } | undefined;

  await Promise.all(
    pairs.map(({ entry, sample }) =>
      limit(async () => {
        if (fatal) return;
        const pairStarted = performance.now();
        let graded: GradedSample;
        if (sample.problem || !sample.deliverable)
          graded = { status: "error", error: { code: "usage", message: sample.problem ?? "no deliverable" } };
        else if (signal.aborted) graded = { status: "error", error: { code: "interrupted", message: "canceled before it ran" } };
        else if (options.bail?.stopped) graded = { status: "error", error: { code: "interrupted", message: options.bail.reason } };
        else {
          try {
            graded = await grade({
              loaded: entry.loaded,
              deliverable: sample.deliverable,
              jobs: caseJobs,
              strict: options.strict,
              signal,
              select: options.select?.(entry.loaded),
              bail: options.bail,
            });
            // A sample that could not be graded at all counts as one failure (its cases never ran to be counted).
            if (graded.status === "error" && graded.error?.code !== "interrupted") options.bail?.failed();
          } catch (error) {
            fatal ??= { error };
            return;
          }
        }
        const digest = sample.deliverable ? await deliverableDigest(sample.deliverable) : null;
        const result: SampleResult = {
          sample: sample.index,
          source: sample.source,
          ...(digest ? { deliverable_sha256: digest } : {}),
          ...graded,
          duration_ms: Math.round(performance.now() - pairStarted),
        };
        results.get(entry)!.push(result);
        done += 1;
        if (result.status === "passed") samplesPassed += 1;
        if (result.status === "error") notGraded += 1;
        options.onProgress?.({
          done,
          total: pairs.length,
          samplesPassed,
          notGraded,
          elapsedMs: performance.now() - started,
          last: { task_id: entry.loaded.task.task_id, sample: sample.index, status: result.status, result },
        });
      }),
    ),
  );
  if (fatal) throw fatal.error;
  return buildSuiteReport(options.entries, results, options.ks ?? [], performance.now() - started);
}

function buildSuiteReport(
  entries: SuiteEntry[],
  results: Map<SuiteEntry, SampleResult[]>,
  requestedKs: number[],
  durationMs: number,
): SuiteReport {
  const maxSamples = Math.max(0, ...entries.map((e) => e.samples.length));
  const ks = reportedKs(maxSamples, requestedKs);
  const tasks: SuiteTaskResult[] = entries.map((entry) => {
    const samples = results.get(entry)!.sort((a, b) => a.sample - b.sample);
    // Samples that were never graded (Ctrl-C, --bail) are not failures: pass@k counts the samples that ran.
    const n = samples.filter((s) => s.error?.code !== "interrupted").length;
    const c = samples.filter((s) => s.status === "passed").length;
    const passAt: Record<string, number> = {};
    for (const k of ks) if (k <= n) passAt[`pass@${k}`] = passAtK(n, c, k);
    return {
      task_id: entry.loaded.task.task_id,
      file: entry.loaded.displayPath,
      deliverable_type: entry.loaded.task.deliverable_type,
      samples_total: samples.length,
      samples_passed: c,
      pass_at_k: passAt,
      ...(entry.problem ? { problem: entry.problem } : {}),
      samples,
    };
  });
  const passAt: SuiteReport["pass_at_k"] = {};
  for (const k of ks) {
    const counted = tasks.filter((t) => t.pass_at_k[`pass@${k}`] !== undefined);
    if (counted.length === 0) continue;
    passAt[`pass@${k}`] = { value: counted.reduce((sum, t) => sum + t.pass_at_k[`pass@${k}`]!, 0) / counted.length, tasks: counted.length };
  }
  const samples = tasks.flatMap((t) => t.samples);
  const cases: CaseVerdict[] = samples.flatMap((s) => s.report?.cases ?? []);
  const count = (status: SampleStatus) => samples.filter((s) => s.status === status).length;
  return {
    kind: "skillrig-suite-report",
    version: 1,
    summary: {
      tasks: tasks.length,
      tasks_not_graded: tasks.filter((t) => t.problem).length,
      samples: samples.length,
      samples_passed: count("passed"),
      samples_failed: count("failed"),
      samples_invalid: count("invalid"),
      samples_errored: count("error"),
      cases: cases.length,
      cases_passed: cases.filter((v) => v.status === "passed").length,
      duration_ms: Math.round(durationMs),
    },
    pass_at_k: passAt,
    tasks,
  };
}
