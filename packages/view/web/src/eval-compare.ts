/**
 * Comparing two iterations of a skill's evals: pass rates per case and configuration, assertions that flipped, the
 * delta's change, trigger rates per query. Pure functions over the files' types, so they are tested on their own
 * (test/eval-compare.test.ts) and the page only lays them out.
 */
import type { Benchmark, RunDelta, RunSummary, TriggerReport } from "@skillrig/evals/format";
import type { RunAssertions } from "../../src/eval-api.js";

export type { RunAssertions };

/**
 * How a value moved from before to after; `new` / `gone` when only one side has it; `not_run` when one side did
 * not run that part at all (an iteration run with `--no-triggers` has no trigger report: its queries are not gone).
 */
export type Change = "better" | "worse" | "same" | "new" | "gone" | "not_run";

const EPSILON = 1e-9;

export function changeOf(before: number | undefined, after: number | undefined, higherIsBetter = true): Change {
  if (before === undefined) return after === undefined ? "same" : "new";
  if (after === undefined) return "gone";
  if (Math.abs(after - before) < EPSILON) return "same";
  return after > before === higherIsBetter ? "better" : "worse";
}

export interface CaseChange {
  eval_id: number | string;
  configuration: string;
  before?: number;
  after?: number;
  change: Change;
}

/** Per case and configuration (benchmark.json's by_eval: the mean over engines and runs), in the after iteration's order. */
export function compareCases(before: Benchmark, after: Benchmark): CaseChange[] {
  const key = (e: { eval_id: number | string; configuration: string }) => `${e.eval_id}\u0000${e.configuration}`;
  const rows = new Map<string, CaseChange>();
  for (const e of after.by_eval)
    rows.set(key(e), { eval_id: e.eval_id, configuration: e.configuration, after: e.pass_rate, change: "new" });
  for (const e of before.by_eval) {
    const row = rows.get(key(e)) ?? { eval_id: e.eval_id, configuration: e.configuration, change: "gone" };
    row.before = e.pass_rate;
    rows.set(key(e), row);
  }
  return [...rows.values()].map((r) => ({ ...r, change: changeOf(r.before, r.after) }));
}

export interface Flip {
  eval_id: number | string;
  configuration: string;
  engine: string;
  run_number: number;
  text: string;
  /** better: failed before, passed now; worse: passed before, failed now. */
  change: "better" | "worse";
}

/**
 * Assertions whose result changed, matched by run (case, configuration, engine, run number) and by text (the n-th
 * assertion of a text with the n-th of the same text, should a case repeat one).
 */
export function flippedAssertions(before: RunAssertions[], after: RunAssertions[]): Flip[] {
  const runKey = (r: RunAssertions) => `${r.eval_id}\u0000${r.configuration}\u0000${r.engine}\u0000${r.run_number}`;
  const earlier = new Map(before.map((r) => [runKey(r), r]));
  const flips: Flip[] = [];
  for (const run of after) {
    const old = earlier.get(runKey(run));
    if (!run.assertions || !old?.assertions) continue;
    const seen = new Map<string, number>();
    for (const a of run.assertions) {
      const nth = seen.get(a.text) ?? 0;
      seen.set(a.text, nth + 1);
      const match = old.assertions.filter((b) => b.text === a.text)[nth];
      if (!match || match.passed === a.passed) continue;
      flips.push({
        eval_id: run.eval_id,
        configuration: run.configuration,
        engine: run.engine,
        run_number: run.run_number,
        text: a.text,
        change: a.passed ? "better" : "worse",
      });
    }
  }
  return flips;
}

export interface DeltaChange {
  /** `all engines` or an engine's name. */
  scope: string;
  before?: RunDelta;
  after?: RunDelta;
  /** Of the delta's pass rate: a larger gain from the skill is better. */
  change: Change;
}

/** The delta (first configuration minus second) before and after, across engines and per engine. */
export function compareDeltas(before: Benchmark, after: Benchmark): DeltaChange[] {
  const row = (scope: string, b?: RunSummary, a?: RunSummary): DeltaChange => ({
    scope,
    before: b?.delta,
    after: a?.delta,
    change: changeOf(b?.delta?.pass_rate, a?.delta?.pass_rate),
  });
  const engines = [...new Set([...Object.keys(after.by_engine), ...Object.keys(before.by_engine)])];
  return [
    row("all engines", before.run_summary, after.run_summary),
    ...engines.map((e) => row(e, before.by_engine[e], after.by_engine[e])),
  ];
}

export interface TriggerChange {
  query: string;
  engine: string;
  should_trigger: boolean;
  split: string;
  before?: number;
  after?: number;
  passedBefore?: boolean;
  passedAfter?: boolean;
  /** Better when the rate moved the way the label asks: up for should_trigger, down for a near miss. */
  change: Change;
}

/** Trigger rates per query and engine, before and after; a side with no trigger report did not run them (`not_run`). */
export function compareTriggers(before: TriggerReport | null, after: TriggerReport | null): TriggerChange[] {
  const key = (q: { query: string; engine: string }) => `${q.query}\u0000${q.engine}`;
  const rows = new Map<string, TriggerChange>();
  for (const q of after?.queries ?? [])
    rows.set(key(q), {
      query: q.query,
      engine: q.engine,
      should_trigger: q.should_trigger,
      split: q.split,
      after: q.trigger_rate,
      passedAfter: q.passed,
      change: "new",
    });
  for (const q of before?.queries ?? []) {
    const row = rows.get(key(q)) ?? { query: q.query, engine: q.engine, should_trigger: q.should_trigger, split: q.split, change: "gone" };
    row.before = q.trigger_rate;
    row.passedBefore = q.passed;
    rows.set(key(q), row);
  }
  const oneSideOnly = before === null || after === null;
  return [...rows.values()].map((r) => ({ ...r, change: oneSideOnly ? "not_run" : changeOf(r.before, r.after, r.should_trigger) }));
}
