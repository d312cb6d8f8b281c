/**
 * Two iterations of a skill's evals compared (`skillrig eval`'s closing lines, comparison.json, the view's
 * comparison page): each configuration's pass rate paired by eval case, across engines and per engine, with the
 * interval and p-value of @skillrig/stats, and the cases whose pass rate fell. Browser-safe (`@skillrig/evals/compare`).
 */
import { isSignificantDrop, pairedDelta, round4, type Pair } from "@skillrig/stats";
import { EVAL_FORMAT_VERSION, type Benchmark, type BenchmarkRun, type IterationComparison } from "./format.js";

const EPSILON = 1e-9;

/** Per eval case: the mean pass rate of `configuration` (of `engine`, or every engine) in the runs. */
function caseMeans(runs: BenchmarkRun[], configuration: string, engine: string | null): Map<string, number> {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of runs) {
    if (r.configuration !== configuration || (engine !== null && r.engine !== engine)) continue;
    const at = sums.get(String(r.eval_id)) ?? { sum: 0, n: 0 };
    at.sum += r.result.pass_rate;
    at.n += 1;
    sums.set(String(r.eval_id), at);
  }
  return new Map([...sums].map(([id, { sum, n }]) => [id, sum / n]));
}

const mean = (values: number[]) => (values.length === 0 ? null : round4(values.reduce((a, b) => a + b, 0) / values.length));

export function compareIterations(before: Benchmark, after: Benchmark): IterationComparison {
  const configurations = after.metadata.configurations.filter((c) => before.metadata.configurations.includes(c));
  const engines = after.metadata.engines.filter((e) => before.metadata.engines.includes(e));
  const scopes: Array<string | null> = [null, ...(engines.length > 1 || after.metadata.engines.length > 1 ? engines : [])];
  const rows: IterationComparison["configurations"] = [];
  for (const configuration of configurations) {
    for (const engine of scopes) {
      const b = caseMeans(before.runs, configuration, engine);
      const a = caseMeans(after.runs, configuration, engine);
      const pairs: Pair[] = [...a].flatMap(([id, v]) => (b.has(id) ? [[b.get(id)!, v] as const] : []));
      // Shown: each side's mean over its own cases (what the iteration page shows); the statistics: the shared cases.
      rows.push({ configuration, engine, pass_rate: pairedDelta(pairs, { before: mean([...b.values()]), after: mean([...a.values()]) }) });
    }
  }
  const cases: IterationComparison["cases"] = [];
  for (const configuration of after.metadata.configurations) {
    const b = caseMeans(before.runs, configuration, null);
    const a = caseMeans(after.runs, configuration, null);
    for (const id of [...new Set([...a.keys(), ...b.keys()])]) {
      const x = b.get(id) ?? null;
      const y = a.get(id) ?? null;
      const evalId =
        after.metadata.evals_run.find((e) => String(e) === id) ?? before.metadata.evals_run.find((e) => String(e) === id) ?? id;
      cases.push({
        eval_id: evalId,
        configuration,
        before: x === null ? null : round4(x),
        after: y === null ? null : round4(y),
        fell: x !== null && y !== null && y < x - EPSILON,
      });
    }
  }
  const withSkill = rows.find((r) => r.configuration === "with_skill" && r.engine === null);
  return {
    format: "skillrig-eval-comparison",
    version: EVAL_FORMAT_VERSION,
    before: before.metadata.iteration,
    after: after.metadata.iteration,
    configurations: rows,
    cases,
    regression: cases.some((c) => c.configuration === "with_skill" && c.fell),
    significant_drop: withSkill ? isSignificantDrop(withSkill.pass_rate) : false,
  };
}
