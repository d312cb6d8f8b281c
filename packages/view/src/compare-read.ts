/**
 * Reading the reports `compareRuns` compares into one shape (`Normalized`): tasks, samples (each with its identity:
 * the deliverable's content when the report carries it, else its position) and their cases. Browser-safe.
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

/** A case or job status that counts as passing. */
export function isPassing(status: string | undefined): boolean {
  return status === "passed" || status === "succeeded";
}

export interface NormalCase {
  case: string;
  side: CaseSide;
}

export interface NormalSample {
  task_id: string;
  /**
   * How the sample is shown: a suite's 1-based number in its task (the samples file's order: sample 1 is the task's
   * first line), a solve attempt's `<engine> #<attempt>`; null for a one-task report or a job (one sample).
   */
  label: string | null;
  /** `sha256:...` (suite) or the source itself (solve) when the report carries the deliverable; else null. */
  content: string | null;
  /** A solve attempt's engine (for pass@k per engine). */
  engine: string | null;
  status: string;
  message: string | null;
  cases: NormalCase[];
  duration_ms: number | null;
}

export interface Normalized {
  kind: ReportKind;
  tasks: string[];
  samples: NormalSample[];
  passed: number | null;
  total: number | null;
  passRateOf: "cases" | "samples" | "attempts" | "job";
  passAtK: Array<{ scope: string; k: number; value: number }>;
  duration: number | null;
  taskDurations: Map<string, number | null>;
  output?: { present: boolean; value: unknown };
  /** USD and tokens of the run's model calls, when it says them. */
  costUsd?: number | null;
  tokens?: number | null;
}

export type Side = "before" | "after";
type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

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
function readCases(read: Reader, list: unknown, pointer: string): NormalCase[] {
  const seen = new Map<string, number>();
  return read.array(list, pointer).map((value, i) => {
    const c = read.object(value, `${pointer}/${i}`);
    const name = read.string(c.name, `${pointer}/${i}/name`);
    const status = read.string(c.status, `${pointer}/${i}/status`);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return { case: n === 1 ? name : `${name} #${n}`, side: { status, duration_ms: num(c.duration_ms), message: str(c.message) } };
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

const SHA256 = /^sha256:[0-9a-f]{64}$/;

function normalizeTask(read: Reader, r: Obj): Normalized {
  const task = read.string(r.task_id, "/task_id");
  const cases = readCases(read, r.cases, "/cases");
  const summary = isObject(r.summary) ? r.summary : {};
  const duration = num(r.duration_ms);
  const passing = cases.filter((c) => isPassing(c.side.status)).length;
  const status = cases.length > 0 && passing === cases.length ? "passed" : "failed";
  return {
    kind: "task",
    tasks: [task],
    samples: [{ task_id: task, label: null, content: null, engine: null, status, message: null, cases, duration_ms: duration }],
    passed: num(summary.passed) ?? passing,
    total: num(summary.total) ?? cases.length,
    passRateOf: "cases",
    passAtK: [],
    duration,
    taskDurations: new Map([[task, duration]]),
  };
}

function normalizeSuite(read: Reader, r: Obj): Normalized {
  const out: Normalized = {
    kind: "suite",
    tasks: [],
    samples: [],
    passed: 0,
    total: 0,
    passRateOf: "samples",
    passAtK: readPassAtK(r.pass_at_k, "all"),
    duration: isObject(r.summary) ? num(r.summary.duration_ms) : null,
    taskDurations: new Map(),
  };
  read.array(r.tasks, "/tasks").forEach((value, ti) => {
    const t = read.object(value, `/tasks/${ti}`);
    const task = read.string(t.task_id, `/tasks/${ti}/task_id`);
    out.tasks.push(task);
    out.passAtK.push(...readPassAtK(t.pass_at_k, task));
    let time: number | null = null;
    (t.samples === undefined ? [] : read.array(t.samples, `/tasks/${ti}/samples`)).forEach((sv, si) => {
      const at = `/tasks/${ti}/samples/${si}`;
      const s = read.object(sv, at);
      const cases = readCases(read, s.cases ?? [], `${at}/cases`);
      const status = str(s.status) ?? (cases.length > 0 && cases.every((c) => isPassing(c.side.status)) ? "passed" : "failed");
      // The report's `sample` is a 0-based position in the task's samples; every view shows it from 1.
      const index = num(s.sample) ?? si;
      const digest = str(s.deliverable_sha256);
      if (digest !== null && !SHA256.test(digest)) read.fail(`${at}/deliverable_sha256`, "must be sha256: and 64 hex digits");
      out.samples.push({
        task_id: task,
        label: String(index + 1),
        content: digest,
        engine: null,
        status,
        message: isObject(s.error) ? str(s.error.message) : null,
        cases,
        duration_ms: num(s.duration_ms),
      });
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
    samples: [],
    passed: 0,
    total: 0,
    passRateOf: "attempts",
    passAtK: [],
    duration: num(r.duration_ms),
    taskDurations: new Map(),
  };
  (r.engines === undefined ? [] : read.array(r.engines, "/engines")).forEach((value, i) => {
    const e = read.object(value, `/engines/${i}`);
    // Each engine's priced attempts summed; an engine with unpriced attempts leaves the whole cost unknown.
    const usage = isObject(e.usage) ? e.usage : {};
    const cost = num(usage.costUsd);
    out.costUsd = out.costUsd === null || cost === null || (num(usage.unpricedAttempts) ?? 0) > 0 ? null : (out.costUsd ?? 0) + cost;
    const tokens = num(usage.totalTokens);
    out.tokens = out.tokens === null || tokens === null ? null : (out.tokens ?? 0) + tokens;
    out.passAtK.push(...readPassAtK(e.pass_at_k, read.string(e.engine, `/engines/${i}/engine`)));
  });
  read.array(r.tasks, "/tasks").forEach((value, ti) => {
    const t = read.object(value, `/tasks/${ti}`);
    const task = read.string(t.task_id, `/tasks/${ti}/task_id`);
    out.tasks.push(task);
    let time: number | null = null;
    read.array(t.attempts ?? [], `/tasks/${ti}/attempts`).forEach((av, ai) => {
      const at = `/tasks/${ti}/attempts/${ai}`;
      const a = read.object(av, at);
      const engine = read.string(a.engine, `${at}/engine`);
      const status = read.string(a.status, `${at}/status`);
      const d = isObject(a.usage) ? num(a.usage.durationMs) : null;
      // The source is the identity when the report has all of it (a truncated copy could hide a difference).
      const deliverable = isObject(a.deliverable) ? a.deliverable : null;
      const content = deliverable && deliverable.truncated !== true ? str(deliverable.content) : null;
      out.samples.push({
        task_id: task,
        label: `${engine} #${num(a.attempt) ?? ai + 1}`,
        content: content === null ? null : `source:${content}`,
        engine,
        status,
        message: str(a.message),
        cases: readCases(read, a.cases ?? [], `${at}/cases`),
        duration_ms: d,
      });
      out.total! += 1;
      if (isPassing(status)) out.passed! += 1;
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
  const side = { status, duration_ms: duration, message: error };
  return {
    kind: "job",
    tasks: [skill],
    samples: [{ task_id: skill, label: null, content: null, engine: null, ...side, cases: [{ case: "job", side }] }],
    passed: isPassing(status) ? 1 : 0,
    total: 1,
    passRateOf: "job",
    passAtK: [],
    duration,
    taskDurations: new Map([[skill, duration]]),
    output: { present: r.output !== undefined, value: r.output },
    costUsd: num(r.cost_usd),
    tokens: isObject(r.usage) ? num(r.usage.totalTokens) : null,
  };
}

export function normalize(report: unknown, side: Side): Normalized {
  const kind = reportKind(report, side);
  const read = new Reader(side);
  const r = report as Obj;
  if (kind === "task") return normalizeTask(read, r);
  if (kind === "suite") return normalizeSuite(read, r);
  if (kind === "solve") return normalizeSolve(read, r);
  return normalizeJob(read, r);
}
