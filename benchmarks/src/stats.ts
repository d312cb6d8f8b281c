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

/** Runs `measure` `repeats` times, one after the other, and keeps every sample. */
export async function repeat<T>(repeats: number, measure: (round: number) => Promise<T>): Promise<T[]> {
  const samples: T[] = [];
  for (let round = 0; round < repeats; round++) samples.push(await measure(round));
  return samples;
}
