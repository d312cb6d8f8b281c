/**
 * Comparing two recorded runs of the same kind: which tasks fell and which samples made them fall, which cases
 * changed status, pass rate and pass@k deltas with their statistics (@skillrig/stats), time deltas. One pure
 * function over the reports as skillrig writes them (a one-task test report, a suite report, a solve report, a skill
 * job's result.json), used by both `skillrig runs diff A B` and the view's compare page, so the two cannot disagree.
 *
 * Browser-safe: no Node imports (the web app bundles this file; `@skillrig/view/compare` is the same module).
 *
 * Samples are matched by their deliverable's content (compare-match.ts); a case is keyed by (task id, matched
 * sample, case name). A suite's sample is shown by its 1-based number in its task (the samples file's order), a
 * solve attempt as `<engine> #<attempt>`; a one-task report or a skill job has one sample, shown as none.
 */
import { isSignificantDrop, pairedDelta, pairedStats, round4, type Pair, type PairedDelta } from "@skillrig/stats";
import { matchSamples, type SamplePair } from "./compare-match.js";
import { CompareError, isObject, isPassing, normalize, type CaseSide, type Normalized, type ReportKind } from "./compare-read.js";

export { CompareError, isPassing, reportKind, type CaseSide, type ReportKind } from "./compare-read.js";
export type { PairedDelta } from "@skillrig/stats";

/**
 * - `regression`: passed before, present now and not passed;
 * - `fixed`: not passed before, passed now;
 * - `changed`: another status change (failed -> error);
 * - `added` / `removed`: on one side only (a case of a new or gone sample, or one the task gained or lost);
 * - `same`: the same status on both sides.
 */
export type CaseChange = "regression" | "fixed" | "changed" | "added" | "removed" | "same";

/** A sample's change; `new` / `gone`: its deliverable is on one side only. */
export type SampleChange = "regression" | "fixed" | "changed" | "new" | "gone" | "same";

export interface CaseComparison {
  /** The task id (a skill job: the skill id). */
  task_id: string;
  /** The sample as the after run shows it (the before run's when it is gone); null for a one-task report or a job. */
  sample: string | null;
  /** The sample's number in the before run when it differs (the same deliverable moved), else absent. */
  sample_before?: string | null;
  /** The case's name (a name a task repeats gets ` #2`, ` #3` ... in the order of the report). */
  case: string;
  before: CaseSide | null;
  after: CaseSide | null;
  change: CaseChange;
  /** Anything but `same`. */
  changed: boolean;
  regression: boolean;
  fixed: boolean;
  /** after - before, when both sides were timed. */
  duration_delta_ms: number | null;
}

export interface SampleComparison {
  task_id: string;
  /** As the after run shows it (the before run's when gone). */
  sample: string | null;
  sample_before: string | null;
  matched_by: SamplePair["matched_by"];
  before: string | null;
  after: string | null;
  change: SampleChange;
}

/** A time or count: before, after and the difference. */
export interface Delta {
  before: number | null;
  after: number | null;
  /** after - before, null when a side has none. */
  delta: number | null;
}

export interface PassAtKDelta extends PairedDelta {
  /** `all` (a suite's mean over its tasks), a task id (suite), an engine (solve). */
  scope: string;
  k: number;
}

/** A task on both sides: its pass rate (samples passed, or cases for a one-task report) and whether it fell. */
export interface TaskComparison {
  task_id: string;
  /** Paired by the task's matched samples (pass/fail), or for a one-task report by its cases. */
  pass_rate: PairedDelta;
  /** The task's pass@k (suite), before and after. */
  pass_at_k: PassAtKDelta[];
  /** Its pass rate or a pass@k fell. */
  regression: boolean;
  /** The samples behind a fall: new ones that do not pass, matched ones that broke, gone ones that passed. */
  causes: SampleComparison[];
}

export interface OutputFieldComparison {
  /** A top-level field of the job's output (`""`: the whole output, when it is not an object). */
  field: string;
  before: unknown;
  after: unknown;
  changed: boolean;
}

export interface RunComparison {
  kind: ReportKind;
  /** The two sides are one recorded run (`compareRuns(x, x, { sameRun: true })`). */
  same_run: boolean;
  /** Tasks on both sides, on the after side only, on the before side only (in report order). */
  tasks: { common: string[]; added: string[]; removed: string[] };
  counts: {
    cases: number;
    changed: number;
    regressions: number;
    fixed: number;
    added: number;
    removed: number;
    same: number;
    /** Tasks whose pass rate or pass@k fell. */
    task_regressions: number;
    samples: { matched: number; new: number; gone: number };
  };
  /** Tasks on both sides; those that fell first. */
  task_changes: TaskComparison[];
  /** Every sample of either side, paired (changed first). */
  samples: SampleComparison[];
  /** Every case: regressions first, then fixed, other changes, added, removed, and last the unchanged ones. */
  cases: CaseComparison[];
  /**
   * What `runs list` shows as the pass rate: of cases (one task), samples (suite), attempts (solve), the job. Its
   * interval and p-value are paired by task (suite, solve), by case (one task) or the job itself.
   */
  pass_rate: PairedDelta & { of: "cases" | "samples" | "attempts" | "job" };
  /** pass@k per scope and k (suite: `all` and per task; solve: per engine), in the after report's order. */
  pass_at_k: PassAtKDelta[];
  /** The whole run's time. */
  duration_ms: Delta;
  /**
   * What the run's model calls cost (USD; a job's cost_usd, a solve's engines summed) and their tokens; null on a
   * side that has none (a test report, an unpriced job). A plain before/after/delta.
   */
  cost_usd: Delta;
  tokens: Delta;
  /** Per task: a suite's samples summed, a solve's attempts summed. */
  task_durations: Array<Delta & { task_id: string }>;
  /** A skill job's output, field by field (empty for the other kinds). */
  outputs: OutputFieldComparison[];
  /** A case of an unchanged deliverable broke, or a task's rate fell: what makes `runs diff` exit 1 by default. */
  regression: boolean;
  /** The pass rate fell and the fall is not noise (interval below 0 and p < 0.05): `--fail-on significant`. */
  significant_drop: boolean;
}

export interface CompareOptions {
  /** Both sides are the same recorded run: the comparison says so. */
  sameRun?: boolean;
}

const ORDER: Record<CaseChange, number> = { regression: 0, fixed: 1, changed: 2, added: 3, removed: 4, same: 5 };
const SAMPLE_ORDER: Record<SampleChange, number> = { regression: 0, new: 1, gone: 2, fixed: 3, changed: 4, same: 5 };

const KIND_NAMES: Record<ReportKind, string> = {
  task: "a one-task test report",
  suite: "a suite report",
  solve: "a solve report",
  job: "a skill job's result",
};

function delta(before: number | null, after: number | null): Delta {
  return { before, after, delta: before === null || after === null ? null : after - before };
}

/** A cost delta, to the millionth of a dollar (no float noise in a diff). */
function usdDelta(before: number | null, after: number | null): Delta {
  const d = delta(before, after);
  return d.delta === null ? d : { ...d, delta: Math.round(d.delta * 1e6) / 1e6 };
}

const rateOf = (passed: number | null, total: number | null) => (passed !== null && total ? round4(passed / total) : null);
const pass = (status: string) => (isPassing(status) ? 1 : 0);

/** JSON text with object keys sorted, to tell whether two outputs are equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "undefined";
}

function compareOutputs(before?: Normalized["output"], after?: Normalized["output"]): OutputFieldComparison[] {
  if (!before || !after) return [];
  const b = before.value;
  const a = after.value;
  if (isObject(b) && isObject(a)) {
    const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return fields.map((field) => ({ field, before: b[field], after: a[field], changed: canonical(b[field]) !== canonical(a[field]) }));
  }
  if (!before.present && !after.present) return [];
  return [{ field: "", before: b, after: a, changed: canonical(b) !== canonical(a) }];
}

function statusChange(before: string, after: string): "regression" | "fixed" | "changed" | "same" {
  if (before === after) return "same";
  if (isPassing(before) && !isPassing(after)) return "regression";
  if (!isPassing(before) && isPassing(after)) return "fixed";
  return "changed";
}

function compareSample(p: SamplePair): SampleComparison {
  const shown = p.after?.label ?? p.before?.label ?? null;
  return {
    task_id: p.task_id,
    sample: shown,
    sample_before: p.before?.label ?? null,
    matched_by: p.matched_by,
    before: p.before?.status ?? null,
    after: p.after?.status ?? null,
    change: !p.before ? "new" : !p.after ? "gone" : statusChange(p.before.status, p.after.status),
  };
}

/** The cases of a sample pair; a side whose sample ran no case gives the other side's cases its own status. */
function compareCases(p: SamplePair): CaseComparison[] {
  const { before: b, after: a } = p;
  const names = [...new Set([...(a?.cases ?? []).map((c) => c.case), ...(b?.cases ?? []).map((c) => c.case)])];
  const sideOf = (s: typeof a, name: string): CaseSide | null => {
    if (!s) return null;
    const own = s.cases.find((c) => c.case === name);
    if (own) return own.side;
    return s.cases.length === 0 ? { status: s.status, duration_ms: null, message: s.message } : null;
  };
  const sample = a?.label ?? b?.label ?? null;
  return names.map((name) => {
    const bs = sideOf(b, name);
    const as = sideOf(a, name);
    const change: CaseChange = !bs ? "added" : !as ? "removed" : statusChange(bs.status, as.status);
    return {
      task_id: p.task_id,
      sample,
      ...(a && b && a.label !== b.label ? { sample_before: b.label } : {}),
      case: name,
      before: bs,
      after: as,
      change,
      changed: change !== "same",
      regression: change === "regression",
      fixed: change === "fixed",
      duration_delta_ms: bs?.duration_ms != null && as?.duration_ms != null ? as.duration_ms - bs.duration_ms : null,
    };
  });
}

/** pass@k's unbiased estimator (n samples, c passed), as the oracle computes it. */
function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i += 1) miss *= 1 - k / i;
  return 1 - miss;
}

const findAt = (n: Normalized, scope: string, k: number) => n.passAtK.find((q) => q.scope === scope && q.k === k)?.value ?? null;

/** The pairs behind a pass@k scope: `all` by task (each task's pass@k), an engine by task (its attempts), a task none. */
function passAtKPairs(b: Normalized, a: Normalized, common: string[], scope: string, k: number): Pair[] {
  if (a.kind === "suite" && scope === "all") {
    return common.flatMap((t) => {
      const x = findAt(b, t, k);
      const y = findAt(a, t, k);
      return x === null || y === null ? [] : [[x, y] as const];
    });
  }
  if (a.kind === "solve") {
    const at = (n: Normalized, t: string) => {
      const mine = n.samples.filter((s) => s.task_id === t && s.engine === scope);
      return mine.length < k ? null : passAtK(mine.length, mine.filter((s) => isPassing(s.status)).length, k);
    };
    return common.flatMap((t) => {
      const x = at(b, t);
      const y = at(a, t);
      return x === null || y === null ? [] : [[x, y] as const];
    });
  }
  return [];
}

function comparePassAtK(b: Normalized, a: Normalized, common: string[]): PassAtKDelta[] {
  const out: PassAtKDelta[] = [];
  const seen = new Set<string>();
  for (const p of [...a.passAtK, ...b.passAtK]) {
    const key = `${p.scope}\u0000${p.k}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const sides = { before: findAt(b, p.scope, p.k), after: findAt(a, p.scope, p.k) };
    out.push({ scope: p.scope, k: p.k, ...pairedDelta(passAtKPairs(b, a, common, p.scope, p.k), sides) });
  }
  return out;
}

function compareTask(task: string, pairs: SamplePair[], cases: CaseComparison[], passAt: PassAtKDelta[], kind: ReportKind): TaskComparison {
  const mine = pairs.filter((p) => p.task_id === task);
  const rate = (side: "before" | "after") => {
    const s = mine.flatMap((p) => (p[side] ? [p[side]] : []));
    return rateOf(s.filter((x) => isPassing(x.status)).length, s.length);
  };
  let pass_rate: PairedDelta;
  if (kind === "task") {
    // One sample: the task's rate is of its cases, paired by case.
    const both = cases.filter((c) => c.before && c.after);
    const total = (side: "before" | "after") => cases.filter((c) => c[side]);
    const r = (side: "before" | "after") => rateOf(total(side).filter((c) => isPassing(c[side]!.status)).length, total(side).length);
    pass_rate = pairedDelta(
      both.map((c) => [pass(c.before!.status), pass(c.after!.status)] as const),
      { before: r("before"), after: r("after") },
    );
  } else {
    const matched = mine.filter((p) => p.before && p.after);
    pass_rate = pairedDelta(
      matched.map((p) => [pass(p.before!.status), pass(p.after!.status)] as const),
      { before: rate("before"), after: rate("after") },
    );
  }
  const pass_at_k = passAt.filter((p) => p.scope === task);
  const fell = (pass_rate.delta ?? 0) < 0 || pass_at_k.some((p) => (p.delta ?? 0) < 0);
  const causes = mine
    .map(compareSample)
    .filter(
      (s) =>
        s.change === "regression" ||
        (s.change === "new" && !isPassing(s.after ?? "")) ||
        (s.change === "gone" && isPassing(s.before ?? "")),
    );
  return { task_id: task, pass_rate, pass_at_k, regression: fell, causes: fell ? causes : [] };
}

/** The overall pass rate's pairs: by task (suite, solve: each task's rate), by case (one task), the job. */
function overallPairs(kind: ReportKind, tasks: TaskComparison[], cases: CaseComparison[]): Pair[] {
  if (kind === "task" || kind === "job") {
    return cases.filter((c) => c.before && c.after).map((c) => [pass(c.before!.status), pass(c.after!.status)] as const);
  }
  return tasks.flatMap((t) =>
    t.pass_rate.before === null || t.pass_rate.after === null ? [] : [[t.pass_rate.before, t.pass_rate.after] as const],
  );
}

/**
 * Compares two reports of the same kind (`before` the older run, `after` the newer). Throws CompareError when
 * either is not a report skillrig writes (naming the side and the field), when their kinds differ, or when they
 * share no task (a one-task report or a job: the same task or skill).
 */
export function compareRuns(before: unknown, after: unknown, options: CompareOptions = {}): RunComparison {
  const b = normalize(before, "before");
  const a = normalize(after, "after");
  if (b.kind !== a.kind) {
    throw new CompareError("different_kinds", `cannot compare ${KIND_NAMES[b.kind]} (before) with ${KIND_NAMES[a.kind]} (after)`);
  }
  const common = a.tasks.filter((t) => b.tasks.includes(t));
  const single = a.kind === "task" || a.kind === "job";
  if (common.length === 0 || (single && a.tasks[0] !== b.tasks[0])) {
    const what = a.kind === "job" ? "skill" : "task";
    throw new CompareError(
      "different_tasks",
      `the runs share no ${what}: ${b.tasks.map((t) => `"${t}"`).join(", ") || "none"} before, ${a.tasks.map((t) => `"${t}"`).join(", ") || "none"} after`,
    );
  }
  const pairs = matchSamples(b, a);
  const cases = pairs.flatMap(compareCases).sort((x, y) => ORDER[x.change] - ORDER[y.change]);
  const samples = pairs.map(compareSample).sort((x, y) => SAMPLE_ORDER[x.change] - SAMPLE_ORDER[y.change]);
  const passAt = comparePassAtK(b, a, common);
  const taskChanges = common
    .map((t) => compareTask(t, pairs, cases, passAt, a.kind))
    .sort((x, y) => Number(y.regression) - Number(x.regression));
  const count = (change: CaseChange) => cases.filter((c) => c.change === change).length;
  const pass_rate = {
    of: a.passRateOf,
    ...pairedDelta(overallPairs(a.kind, taskChanges, cases), { before: rateOf(b.passed, b.total), after: rateOf(a.passed, a.total) }),
  };
  const allTasks = [...a.tasks, ...b.tasks.filter((t) => !a.tasks.includes(t))];
  return {
    kind: a.kind,
    same_run: options.sameRun === true,
    tasks: { common, added: a.tasks.filter((t) => !b.tasks.includes(t)), removed: b.tasks.filter((t) => !a.tasks.includes(t)) },
    counts: {
      cases: cases.length,
      changed: cases.filter((c) => c.changed).length,
      regressions: count("regression"),
      fixed: count("fixed"),
      added: count("added"),
      removed: count("removed"),
      same: count("same"),
      task_regressions: taskChanges.filter((t) => t.regression).length,
      samples: {
        matched: pairs.filter((p) => p.before && p.after).length,
        new: pairs.filter((p) => !p.before).length,
        gone: pairs.filter((p) => !p.after).length,
      },
    },
    task_changes: taskChanges,
    samples,
    cases,
    pass_rate,
    pass_at_k: passAt,
    duration_ms: delta(b.duration, a.duration),
    cost_usd: usdDelta(b.costUsd ?? null, a.costUsd ?? null),
    tokens: delta(b.tokens ?? null, a.tokens ?? null),
    task_durations: allTasks.map((task_id) => ({
      task_id,
      ...delta(b.taskDurations.get(task_id) ?? null, a.taskDurations.get(task_id) ?? null),
    })),
    outputs: compareOutputs(b.output, a.output),
    regression: cases.some((c) => c.regression) || taskChanges.some((t) => t.regression),
    significant_drop: isSignificantDrop(pass_rate),
  };
}

/** Re-exported for readers that pair their own values (the eval pages). */
export { pairedStats };
