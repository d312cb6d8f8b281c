/**
 * benchmark.json's numbers: mean and sample standard deviation (n-1) per configuration, across engines and per
 * engine, the delta (with_skill minus the configuration it is compared with), and each case's mean pass rate.
 */
import { EVAL_FORMAT_VERSION } from "./format.js";
import type { Benchmark, BenchmarkRun, Configuration, ConfigurationSummary, RunSummary, Stat } from "./format.js";

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

export function summarize(runs: BenchmarkRun[], configurations: Configuration[]): RunSummary {
  const summary: RunSummary = {};
  for (const configuration of configurations) {
    const mine = runs.filter((r) => r.configuration === configuration);
    const entry: ConfigurationSummary = {
      pass_rate: stat(mine.map((r) => r.result.pass_rate)),
      time_seconds: stat(mine.map((r) => r.result.time_seconds)),
      tokens: stat(mine.map((r) => r.result.tokens)),
      runs: mine.length,
    };
    summary[configuration] = entry;
  }
  const other = configurations.find((c) => c !== "with_skill");
  const withSkill = summary.with_skill as ConfigurationSummary | undefined;
  const compared = other === undefined ? undefined : (summary[other] as ConfigurationSummary | undefined);
  if (withSkill && compared && other) {
    summary.delta = {
      of: ["with_skill", other],
      pass_rate: round(withSkill.pass_rate.mean - compared.pass_rate.mean),
      time_seconds: round(withSkill.time_seconds.mean - compared.time_seconds.mean),
      tokens: round(withSkill.tokens.mean - compared.tokens.mean),
    };
  }
  return summary;
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
      const mine = runs.filter((r) => String(r.eval_id) === String(evalId) && r.configuration === configuration);
      by_eval.push({ eval_id: evalId, configuration, pass_rate: stat(mine.map((r) => r.result.pass_rate)).mean });
    }
  }
  return {
    format: "skillrig-eval-benchmark",
    version: EVAL_FORMAT_VERSION,
    metadata,
    run_summary: summarize(runs, metadata.configurations),
    by_engine,
    runs,
    by_eval,
  };
}

/** Whether every case's with_skill mean pass rate meets `minPassRate` (what the exit status says). */
export function meetsMinPassRate(benchmark: Benchmark, minPassRate: number): boolean {
  return benchmark.by_eval.filter((e) => e.configuration === "with_skill").every((e) => e.pass_rate >= minPassRate);
}
