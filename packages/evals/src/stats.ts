/**
 * benchmark.json's numbers: mean and sample standard deviation (n-1) per configuration, across engines and per
 * engine, the delta (with_skill minus the configuration it is compared with), and each case's mean pass rate.
 */
import { pairedDelta, type Pair } from "@skillrig/stats";
import { CONFIGURATIONS, EVAL_FORMAT_VERSION } from "./format.js";
import type {
  Benchmark,
  BenchmarkRun,
  Configuration,
  ConfigurationSummary,
  CostSummary,
  PairDelta,
  RunDelta,
  RunSummary,
  Stat,
} from "./format.js";

/** Mean, sample standard deviation (n-1; 0 for fewer than two values), min and max. */
export function stat(values: number[]): Stat {
  if (values.length === 0) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.length < 2 ? 0 : values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
  return { mean: round(mean), stddev: round(Math.sqrt(variance)), min: round(Math.min(...values)), max: round(Math.max(...values)) };
}

/** Four decimals: enough for a rate, and no 0.30000000000000004 in a file people read. */
export function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** Per eval case with runs in both configurations: its mean pass rate in `first`, then in `second`. */
export function casePairs(runs: BenchmarkRun[], first: string, second: string): Pair[] {
  const ids = [...new Set(runs.map((r) => String(r.eval_id)))];
  return ids.flatMap((id) => {
    const mean = (configuration: string) => {
      const mine = runs.filter((r) => String(r.eval_id) === id && r.configuration === configuration);
      return mine.length === 0 ? null : mine.reduce((a, r) => a + r.result.pass_rate, 0) / mine.length;
    };
    const a = mean(first);
    const b = mean(second);
    return a === null || b === null ? [] : [[a, b] as const];
  });
}

/** Cost to the millionth of a dollar. */
function usd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** The cost of `runs`: priced runs summed and averaged, unpriced ones (cost_usd null) counted, never taken as 0. */
export function costSummary(runs: BenchmarkRun[]): CostSummary {
  const priced = runs.map((r) => r.result.cost_usd).filter((c): c is number => typeof c === "number");
  const total = priced.reduce((a, b) => a + b, 0);
  return { total: usd(total), mean: priced.length === 0 ? 0 : usd(total / priced.length), unpriced_runs: runs.length - priced.length };
}

/** A run every attempt of which was lost to its infrastructure: it says nothing of the skill, so no figure counts it. */
export function runLostToInfrastructure(run: BenchmarkRun): boolean {
  return run.result.infrastructure_failure !== undefined;
}

export function summarize(allRuns: BenchmarkRun[], configurations: Configuration[]): RunSummary {
  const summary: RunSummary = {};
  const runs = allRuns.filter((r) => !runLostToInfrastructure(r));
  for (const configuration of configurations) {
    const mine = runs.filter((r) => r.configuration === configuration);
    const lost = allRuns.filter((r) => r.configuration === configuration && runLostToInfrastructure(r)).length;
    const entry: ConfigurationSummary = {
      pass_rate: stat(mine.map((r) => r.result.pass_rate)),
      time_seconds: stat(mine.map((r) => r.result.time_seconds)),
      tokens: stat(mine.map((r) => r.result.tokens)),
      runs: mine.length,
      cost_usd: costSummary(mine),
      ...(lost > 0 ? { infrastructure_failures: lost } : {}),
    };
    summary[configuration] = entry;
  }
  // The specification's one delta: with_skill against no skill when that ran, else the old snapshot, else inline.
  const other = (["without_skill", "old_skill", "inline_skill"] as const).find((c) => configurations.includes(c));
  const delta = other === undefined ? undefined : pairDelta(runs, summary, "with_skill", other);
  if (delta) summary.delta = delta;
  return summary;
}

/**
 * `first` minus `second`: the means' differences, and the pass rate paired by eval case (each case's mean pass rate
 * in `second`, then in `first`) with @skillrig/stats' interval and p-value. Undefined when either has no summary.
 */
export function pairDelta(runs: BenchmarkRun[], summary: RunSummary, first: Configuration, second: Configuration): RunDelta | undefined {
  const a = summary[first] as ConfigurationSummary | undefined;
  const b = summary[second] as ConfigurationSummary | undefined;
  if (!a || !b) return undefined;
  return {
    of: [first, second],
    pass_rate: round(a.pass_rate.mean - b.pass_rate.mean),
    time_seconds: round(a.time_seconds.mean - b.time_seconds.mean),
    tokens: round(a.tokens.mean - b.tokens.mean),
    paired: { pass_rate: pairedDelta(casePairs(runs, second, first), { before: b.pass_rate.mean, after: a.pass_rate.mean }) },
    ...(a.cost_usd && b.cost_usd
      ? { cost_usd: { before: b.cost_usd.mean, after: a.cost_usd.mean, delta: usd(a.cost_usd.mean - b.cost_usd.mean) } }
      : {}),
  };
}

/** Every pair of `configurations`, each the earlier in CONFIGURATIONS first (with_skill - inline_skill - without_skill). */
export function configurationPairs(configurations: Configuration[]): Array<[Configuration, Configuration]> {
  const ordered = CONFIGURATIONS.filter((c) => configurations.includes(c));
  return ordered.flatMap((a, i) => ordered.slice(i + 1).map((b) => [a, b] as [Configuration, Configuration]));
}

/** Each pair's delta, across engines (engine null) and then per engine. */
export function pairDeltas(
  runs: BenchmarkRun[],
  configurations: Configuration[],
  summaries: { all: RunSummary; byEngine: Record<string, RunSummary> },
): PairDelta[] {
  const scopes: Array<[string | null, RunSummary]> = [[null, summaries.all], ...Object.entries(summaries.byEngine)];
  return configurationPairs(configurations).flatMap(([a, b]) =>
    scopes.flatMap(([engine, summary]) => {
      const d = pairDelta(engine === null ? runs : runs.filter((r) => r.engine === engine), summary, a, b);
      return d ? [{ ...d, engine }] : [];
    }),
  );
}

export interface BenchmarkInput {
  metadata: Benchmark["metadata"];
  runs: BenchmarkRun[];
}

export function buildBenchmark({ metadata, runs }: BenchmarkInput): Benchmark {
  const by_engine: Record<string, RunSummary> = {};
  for (const engine of metadata.engines)
    by_engine[engine] = summarize(
      runs.filter((r) => r.engine === engine),
      metadata.configurations,
    );
  const by_eval: Benchmark["by_eval"] = [];
  for (const evalId of metadata.evals_run) {
    for (const configuration of metadata.configurations) {
      const mine = runs.filter(
        (r) => String(r.eval_id) === String(evalId) && r.configuration === configuration && !runLostToInfrastructure(r),
      );
      by_eval.push({ eval_id: evalId, configuration, pass_rate: stat(mine.map((r) => r.result.pass_rate)).mean });
    }
  }
  const run_summary = summarize(runs, metadata.configurations);
  return {
    format: "skillrig-eval-benchmark",
    version: EVAL_FORMAT_VERSION,
    metadata,
    run_summary,
    by_engine,
    runs,
    by_eval,
    deltas: pairDeltas(runs, metadata.configurations, { all: run_summary, byEngine: by_engine }),
  };
}

/** Whether every case's with_skill mean pass rate meets `minPassRate` (one of the gates of the exit status). */
export function meetsMinPassRate(benchmark: Benchmark, minPassRate: number): boolean {
  return benchmark.by_eval.filter((e) => e.configuration === "with_skill").every((e) => e.pass_rate >= minPassRate);
}
