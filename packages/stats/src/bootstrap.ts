/**
 * The paired bootstrap: resample the pairs with replacement, take the mean difference (after - before) of each
 * resample, and read the 2.5th and 97.5th percentiles of those means. Seeded (mulberry32), so the same pairs always
 * give the same interval: a CI log and a page show the same numbers.
 */

/** The default seed: any fixed number makes the interval reproducible; this one names the issue that asked for it. */
export const DEFAULT_SEED = 39;
/** Resamples per interval: enough that the 2.5% tail rests on 50 values, cheap for thousands of pairs. */
export const DEFAULT_RESAMPLES = 2000;

/** mulberry32: a small, well-known 32-bit generator; good enough for resampling, and identical in Node and browsers. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapOptions {
  seed?: number;
  resamples?: number;
  /** Two-sided level: 0.95 reads the 2.5th and 97.5th percentiles. */
  level?: number;
}

/** Percentile (linear between order statistics) of sorted values. */
function percentile(sorted: Float64Array, q: number): number {
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** The interval of the mean of `differences` (one per pair); null for no pairs. */
export function pairedBootstrapInterval(differences: readonly number[], options: BootstrapOptions = {}): [number, number] | null {
  const n = differences.length;
  if (n === 0) return null;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.level ?? 0.95;
  const random = seededRandom(options.seed ?? DEFAULT_SEED);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += differences[Math.floor(random() * n)]!;
    means[r] = sum / n;
  }
  means.sort();
  return [percentile(means, (1 - level) / 2), percentile(means, 1 - (1 - level) / 2)];
}
