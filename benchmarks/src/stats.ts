import { performance } from "node:perf_hooks";
/** Summary statistics over repeated samples. Medians for headline figures, percentiles for latency spreads. */

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Linear-interpolated percentile (the same definition numpy uses by default). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] as number;
  const highValue = sorted[high] as number;
  return lowValue + (highValue - lowValue) * (rank - low);
}

/**
 * Runs `measure` `repeats` times, one after the other, and keeps every sample. With `budgetMs`, stops early
 * (after at least one round) when another round as long as the longest so far would pass the budget: a loaded
 * machine then gets fewer rounds instead of an endless run, and the caller reports how many it got.
 */
export async function repeat<T>(
  repeats: number,
  measure: (round: number) => Promise<T>,
  budgetMs = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const samples: T[] = [];
  const started = performance.now();
  let longest = 0;
  for (let round = 0; round < repeats; round++) {
    const roundStarted = performance.now();
    samples.push(await measure(round));
    longest = Math.max(longest, performance.now() - roundStarted);
    if (performance.now() - started + longest > budgetMs) break;
  }
  return samples;
}
