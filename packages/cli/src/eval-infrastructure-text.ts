/**
 * What `skillrig eval` says on screen about runs lost to their infrastructure (`--retries`): a line before each
 * retry, and at the end how many runs the pass rates leave out, with the n they are over.
 */
import type { Benchmark, BenchmarkRun, ConfigurationSummary, RunAttempt } from "@skillrig/evals";

/** `--retries N`: a whole number from 0 (checked at the edge, exit 2 naming the option). */
export function parseRetries(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(n) || n < 0 || n > 100) return Number.NaN;
  return n;
}

/** The line before a lost run is run again. */
export function retryLine(where: string, failed: RunAttempt, retries: number): string {
  const lost = failed.infrastructure_failure;
  return `[eval] ${where}: attempt ${failed.attempt} lost to its infrastructure (${lost?.type ?? "unknown"}: ${lost?.message ?? ""}); running it again (attempt ${failed.attempt + 1} of at most ${retries + 1}; the lost attempt's job: ${failed.job_dir})`;
}

/** The progress line's words for a run lost to its infrastructure, or for one that took several attempts. */
export function attemptsNote(run: BenchmarkRun): string {
  const attempts = run.result.attempts ?? 1;
  if (run.result.infrastructure_failure !== undefined)
    return ` [lost to its infrastructure (${run.result.infrastructure_failure}) after ${attempts} attempt${attempts === 1 ? "" : "s"}: left out of the pass rate]`;
  return attempts > 1 ? ` [attempts: ${attempts}]` : "";
}

/** The closing lines: per configuration, runs left out of the pass rate and the n it is over. Nothing when none was lost. */
export function infrastructureLines(benchmark: Benchmark): string[] {
  const lines: string[] = [];
  for (const configuration of benchmark.metadata.configurations) {
    const summary = benchmark.run_summary[configuration] as ConfigurationSummary | undefined;
    const lost = summary?.infrastructure_failures ?? 0;
    if (!summary || lost === 0) continue;
    lines.push(
      `${configuration}: ${lost} run${lost === 1 ? "" : "s"} lost to infrastructure failures (every attempt), left out of the pass rate: n = ${summary.runs} of ${summary.runs + lost} runs`,
    );
  }
  return lines;
}
