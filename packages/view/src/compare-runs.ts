/**
 * Comparing two recorded runs of the same kind: which cases changed status, what passed before and does not now
 * (a regression), pass rate and pass@k deltas, time deltas. One pure function over the reports as skillrig writes
 * them (a one-task test report, a suite report, a solve report, a skill job's result.json), used by both
 * `skillrig runs diff A B` and the view's compare page, so the two cannot disagree.
 *
 * Browser-safe: no Node imports (the web app bundles this file; `@skillrig/view/compare` is the same module).
 *
 * Cases are keyed by (task id, sample, case name): a one-task report has no sample; a suite's sample is its number
 * (`"1"`, `"2"` ...); a solve attempt's is `<engine> #<attempt>`; a skill job is one case, `job`, of its skill.
 */

/** The kinds of report that can be compared. */
export type ReportKind = "task" | "suite" | "solve" | "job";

/** Why two reports cannot be compared; `pointer` is the JSON pointer of the field at fault, when one is. */
export class CompareError extends Error {
  constructor(
    readonly code: "not_a_report" | "different_kinds" | "different_tasks",
    message: string,
    readonly side?: "before" | "after",
    readonly pointer?: string,
  ) {
    super(message);
    this.name = "CompareError";
  }
}

/** One side of a case: its status (a case's, or the sample's when the sample ran no case), time and message. */
export interface CaseSide {
  status: string;
  duration_ms: number | null;
  message: string | null;
}

/**
 * - `regression`: passed before, present now and not passed;
 * - `fixed`: not passed before, passed now;
 * - `changed`: another status change (failed -> error);
 * - `added` / `removed`: on one side only;
 * - `same`: the same status on both sides.
 */
export type CaseChange = "regression" | "fixed" | "changed" | "added" | "removed" | "same";

export interface CaseComparison {
  /** The task id (a skill job: the skill id). */
  task_id: string;
  /** The sample: a suite's sample number, a solve attempt's `<engine> #<attempt>`; null for a one-task report or a job. */
  sample: string | null;
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

export interface Delta {
  before: number | null;
  after: number | null;
  /** after - before (rates rounded to 4 places), null when a side has none. */
  delta: number | null;
}

export interface PassAtKDelta extends Delta {
  /** `all` (a suite's mean over its tasks), a task id (suite), an engine (solve). */
  scope: string;
  k: number;
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
  /** Tasks on both sides, on the after side only, on the before side only (in report order). */
  tasks: { common: string[]; added: string[]; removed: string[] };
  counts: { cases: number; changed: number; regressions: number; fixed: number; added: number; removed: number; same: number };
  /** Every case: regressions first, then fixed, other changes, added, removed, and last the unchanged ones. */
  cases: CaseComparison[];
  /** What `runs list` shows as the pass rate: of cases (one task), samples (suite), attempts (solve), the job. */
  pass_rate: Delta & { of: "cases" | "samples" | "attempts" | "job" };
  /** pass@k per scope and k (suite: `all` and per task; solve: per engine), in the after report's order. */
  pass_at_k: PassAtKDelta[];
  /** The whole run's time. */
  duration_ms: Delta;
  /** Per task: a suite's samples summed, a solve's attempts summed. */
  task_durations: Array<Delta & { task_id: string }>;
  /** A skill job's output, field by field (empty for the other kinds). */
  outputs: OutputFieldComparison[];
  /** Something passed before and does not now (what makes `runs diff` exit 1). */
  regression: boolean;
}

const ORDER: Record<CaseChange, number> = { regression: 0, fixed: 1, changed: 2, added: 3, removed: 4, same: 5 };

/** A case or job status that counts as passing. */
export function isPassing(status: string | undefined): boolean {
  return status === "passed" || status === "succeeded";
}

interface NormalCase {
  task_id: string;
  sample: string | null;
  case: string;
  side: CaseSide;
}

interface Normalized {
  kind: ReportKind;
  tasks: string[];
  cases: NormalCase[];
  /** Samples (task, sample) with the status to give their cases when the sample ran none. */
  samples: Map<string, { status: string; message: string | null; cases: number }>;
  passed: number | null;
  total: number | null;
  passRateOf: RunComparison["pass_rate"]["of"];
  passAtK: Array<{ scope: string; k: number; value: number }>;
  duration: number | null;
  taskDurations: Map<string, number | null>;
  output?: { present: boolean; value: unknown };
}

type Side = "before" | "after";
type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const sampleKey = (task: string, sample: string | null) => `${task}\u0000${sample ?? ""}`;
const caseKey = (c: { task_id: string; sample: string | null; case: string }) => `${sampleKey(c.task_id, c.sample)}\u0000${c.case}`;

/** Reads fields of one report, naming the side and the JSON pointer of anything missing or of the wrong type. */
class Reader {
  constructor(readonly side: Side) {}

  fail(pointer: string, what: string): never {
    throw new CompareError("not_a_report", `the ${this.side} report: ${pointer || "/"} ${what}`, this.side, pointer);
  }

  object(value: unknown, pointer: string): Obj {
    return isObject(value) ? value : this.fail(pointer, "must be an object");
  }

  array(value: unknown, pointer: string): unknown[] {
    return Array.isArray(value) ? value : this.fail(pointer, "must be an array");
  }

  string(value: unknown, pointer: string): string {
    return typeof value === "string" ? value : this.fail(pointer, "must be a string");
  }
}

/** The kind of a report skillrig wrote, from its `kind` or, for reports written before kinds, its shape. */
export function reportKind(report: unknown, side: Side = "after"): ReportKind {
  const read = new Reader(side);
  const r = read.object(report, "");
  switch (r.kind) {
    case "skillrig-solve-report":
      return "solve";
    case "skillrig-suite-report":
      return "suite";
    case "skillrig-task-report":
      return "task";
    case "skillrig-job-result":
      return "job";
  }
  // Reports written before they named their kind (a job's result.json names none) are told by their shape.
  if (Array.isArray(r.tasks)) return "suite";
  if (typeof r.task_id === "string" && Array.isArray(r.cases)) return "task";
  if (typeof r.skill_id === "string" && typeof r.status === "string") return "job";
  if (r.kind !== undefined) return read.fail("/kind", `is "${String(r.kind)}", not a kind of report skillrig compares`);
  return read.fail("", "is not a test, suite or solve report nor a job's result (no kind, tasks, cases or skill_id)");
}

/** Cases of one list, named uniquely (a repeated name gets ` #2`, ` #3` ...). */
function readCases(read: Reader, list: unknown, pointer: string, task: string, sample: string | null): NormalCase[] {
  const seen = new Map<string, number>();
  return read.array(list, pointer).map((value, i) => {
    const c = read.object(value, `${pointer}/${i}`);
    const name = read.string(c.name, `${pointer}/${i}/name`);
    const status = read.string(c.status, `${pointer}/${i}/status`);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return {
      task_id: task,
      sample,
      case: n === 1 ? name : `${name} #${n}`,
      side: { status, duration_ms: num(c.duration_ms), message: str(c.message) },
    };
  });
}

/** pass@k keys as the reports write them: `pass@3` (suite) or `3` (solve); values a number or `{value}`. */
function readPassAtK(value: unknown, scope: string): Array<{ scope: string; k: number; value: number }> {
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const k = Number(key.replace(/^pass@/, ""));
    const n = num(v) ?? (isObject(v) ? num(v.value) : null);
    return Number.isInteger(k) && k > 0 && n !== null ? [{ scope, k, value: n }] : [];
  });
}

function normalizeTask(read: Reader, r: Obj): Normalized {
  const task = read.string(r.task_id, "/task_id");
  const cases = readCases(read, r.cases, "/cases", task, null);
  const summary = isObject(r.summary) ? r.summary : {};
  const duration = num(r.duration_ms);
  return {
    kind: "task",
    tasks: [task],
    cases,
    samples: new Map(),
    passed: num(summary.passed) ?? cases.filter((c) => isPassing(c.side.status)).length,
    total: num(summary.total) ?? cases.length,
    passRateOf: "cases",
    passAtK: [],
    duration,
    taskDurations: new Map([[task, duration]]),
  };
}

function normalizeSuite(read: Reader, r: Obj): Normalized {
  const tasks = read.array(r.tasks, "/tasks");
  const out: Normalized = {
    kind: "suite",
    tasks: [],
    cases: [],
    samples: new Map(),
    passed: 0,
    total: 0,
    passRateOf: "samples",
    passAtK: readPassAtK(r.pass_at_k, "all"),
    duration: isObject(r.summary) ? num(r.summary.duration_ms) : null,
    taskDurations: new Map(),
  };
  tasks.forEach((value, ti) => {
    const t = read.object(value, `/tasks/${ti}`);
    const task = read.string(t.task_id, `/tasks/${ti}/task_id`);
    out.tasks.push(task);
    out.passAtK.push(...readPassAtK(t.pass_at_k, task));
    let time: number | null = null;
    const samples = t.samples === undefined ? [] : read.array(t.samples, `/tasks/${ti}/samples`);
    samples.forEach((sv, si) => {
      const s = read.object(sv, `/tasks/${ti}/samples/${si}`);
      const label = String(num(s.sample) ?? str(s.sample) ?? si + 1);
      const cases = readCases(read, s.cases ?? [], `/tasks/${ti}/samples/${si}/cases`, task, label);
      const status = str(s.status) ?? (cases.length > 0 && cases.every((c) => isPassing(c.side.status)) ? "passed" : "failed");
      const error = isObject(s.error) ? str(s.error.message) : null;
      out.samples.set(sampleKey(task, label), { status, message: error, cases: cases.length });
      out.cases.push(...cases);
      out.total! += 1;
      if (isPassing(status)) out.passed! += 1;
      const d = num(s.duration_ms);
      if (d !== null) time = (time ?? 0) + d;
    });
    out.taskDurations.set(task, time);
  });
  return out;
}

function normalizeSolve(read: Reader, r: Obj): Normalized {
  const out: Normalized = {
    kind: "solve",
    tasks: [],
    cases: [],
    samples: new Map(),
    passed: 0,
    total: 0,
    passRateOf: "attempts",
    passAtK: [],
    duration: num(r.duration_ms),
    taskDurations: new Map(),
  };
  (r.engines === undefined ? [] : read.array(r.engines, "/engines")).forEach((value, i) => {
    const e = read.object(value, `/engines/${i}`);
    out.passAtK.push(...readPassAtK(e.pass_at_k, read.string(e.engine, `/engines/${i}/engine`)));
  });
  read.array(r.tasks, "/tasks").forEach((value, ti) => {
    const t = read.object(value, `/tasks/${ti}`);
    const task = read.string(t.task_id, `/tasks/${ti}/task_id`);
    out.tasks.push(task);
    let time: number | null = null;
    read.array(t.attempts ?? [], `/tasks/${ti}/attempts`).forEach((av, ai) => {
      const a = read.object(av, `/tasks/${ti}/attempts/${ai}`);
      const engine = read.string(a.engine, `/tasks/${ti}/attempts/${ai}/engine`);
      const label = `${engine} #${num(a.attempt) ?? ai + 1}`;
      const status = read.string(a.status, `/tasks/${ti}/attempts/${ai}/status`);
      const cases = readCases(read, a.cases ?? [], `/tasks/${ti}/attempts/${ai}/cases`, task, label);
      out.samples.set(sampleKey(task, label), { status, message: str(a.message), cases: cases.length });
      out.cases.push(...cases);
      out.total! += 1;
      if (isPassing(status)) out.passed! += 1;
      const d = isObject(a.usage) ? num(a.usage.durationMs) : null;
      if (d !== null) time = (time ?? 0) + d;
    });
    out.taskDurations.set(task, time);
  });
  return out;
}

function normalizeJob(read: Reader, r: Obj): Normalized {
  const skill = read.string(r.skill_id, "/skill_id");
  const status = read.string(r.status, "/status");
  const timings = isObject(r.timings) ? r.timings : {};
  const duration = num(timings.duration_ms);
  const error = isObject(r.error) ? str(r.error.message) : null;
  return {
    kind: "job",
    tasks: [skill],
    cases: [{ task_id: skill, sample: null, case: "job", side: { status, duration_ms: duration, message: error } }],
    samples: new Map(),
    passed: isPassing(status) ? 1 : 0,
    total: 1,
    passRateOf: "job",
    passAtK: [],
    duration,
    taskDurations: new Map([[skill, duration]]),
    output: { present: r.output !== undefined, value: r.output },
  };
}

function normalize(report: unknown, side: Side): Normalized {
  const kind = reportKind(report, side);
  const read = new Reader(side);
  const r = report as Obj;
  if (kind === "task") return normalizeTask(read, r);
  if (kind === "suite") return normalizeSuite(read, r);
  if (kind === "solve") return normalizeSolve(read, r);
  return normalizeJob(read, r);
}

const KIND_NAMES: Record<ReportKind, string> = {
  task: "a one-task test report",
  suite: "a suite report",
  solve: "a solve report",
  job: "a skill job's result",
};

function delta(before: number | null, after: number | null, rate = false): Delta {
  if (before === null || after === null) return { before, after, delta: null };
  const d = after - before;
  return { before, after, delta: rate ? Math.round(d * 10_000) / 10_000 : d };
}

const rateOf = (n: Normalized) => (n.passed !== null && n.total ? Math.round((n.passed / n.total) * 10_000) / 10_000 : null);

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

function changeOf(before: CaseSide | null, after: CaseSide | null): CaseChange {
  if (!before) return "added";
  if (!after) return "removed";
  if (before.status === after.status) return "same";
  if (isPassing(before.status) && !isPassing(after.status)) return "regression";
  if (!isPassing(before.status) && isPassing(after.status)) return "fixed";
  return "changed";
}

/** The side of a case missing from a report whose sample ran no case (an error, an engine that wrote nothing). */
function sideOf(n: Normalized, cases: Map<string, NormalCase>, c: NormalCase): CaseSide | null {
  const own = cases.get(caseKey(c));
  if (own) return own.side;
  const sample = n.samples.get(sampleKey(c.task_id, c.sample));
  if (sample && sample.cases === 0) return { status: sample.status, duration_ms: null, message: sample.message };
  return null;
}

/**
 * Compares two reports of the same kind (`before` the older run, `after` the newer). Throws CompareError when
 * either is not a report skillrig writes (naming the side and the field), when their kinds differ, or when they
 * share no task (a one-task report or a job: the same task or skill).
 */
export function compareRuns(before: unknown, after: unknown): RunComparison {
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
  const beforeCases = new Map(b.cases.map((c) => [caseKey(c), c]));
  const afterCases = new Map(a.cases.map((c) => [caseKey(c), c]));
  const keys = new Map<string, NormalCase>();
  for (const c of [...a.cases, ...b.cases]) if (!keys.has(caseKey(c))) keys.set(caseKey(c), c);
  const cases: CaseComparison[] = [...keys.values()].map((c) => {
    const bs = sideOf(b, beforeCases, c);
    const as = sideOf(a, afterCases, c);
    const change = changeOf(bs, as);
    return {
      task_id: c.task_id,
      sample: c.sample,
      case: c.case,
      before: bs,
      after: as,
      change,
      changed: change !== "same",
      regression: change === "regression",
      fixed: change === "fixed",
      duration_delta_ms:
        bs?.duration_ms !== null && bs?.duration_ms !== undefined && as?.duration_ms !== null && as?.duration_ms !== undefined
          ? as.duration_ms - bs.duration_ms
          : null,
    };
  });
  cases.sort((x, y) => ORDER[x.change] - ORDER[y.change]);
  const count = (change: CaseChange) => cases.filter((c) => c.change === change).length;

  const passAtK: PassAtKDelta[] = [];
  const seen = new Set<string>();
  for (const p of [...a.passAtK, ...b.passAtK]) {
    const key = `${p.scope}\u0000${p.k}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const find = (n: Normalized) => n.passAtK.find((q) => q.scope === p.scope && q.k === p.k)?.value ?? null;
    passAtK.push({ scope: p.scope, k: p.k, ...delta(find(b), find(a), true) });
  }
  const allTasks = [...a.tasks, ...b.tasks.filter((t) => !a.tasks.includes(t))];
  const comparison: RunComparison = {
    kind: a.kind,
    tasks: { common, added: a.tasks.filter((t) => !b.tasks.includes(t)), removed: b.tasks.filter((t) => !a.tasks.includes(t)) },
    counts: {
      cases: cases.length,
      changed: cases.filter((c) => c.changed).length,
      regressions: count("regression"),
      fixed: count("fixed"),
      added: count("added"),
      removed: count("removed"),
      same: count("same"),
    },
    cases,
    pass_rate: { of: a.passRateOf, ...delta(rateOf(b), rateOf(a), true) },
    pass_at_k: passAtK,
    duration_ms: delta(b.duration, a.duration),
    task_durations: allTasks.map((task_id) => ({
      task_id,
      ...delta(b.taskDurations.get(task_id) ?? null, a.taskDurations.get(task_id) ?? null),
    })),
    outputs: compareOutputs(b.output, a.output),
    regression: cases.some((c) => c.regression),
  };
  return comparison;
}
