/**
 * The one delta object every comparison shows (`runs diff --json`, the compare page, the eval pages, benchmark.json):
 * `{ before, after, delta, ci95, p_value, pairs }`. Generic on purpose: a pass rate, pass@k or a cost can use it.
 */
import { pairedBootstrapInterval, type BootstrapOptions } from "./bootstrap.js";
import { signTestP } from "./exact-test.js";

export interface PairedDelta {
  before: number | null;
  after: number | null;
  /** after - before, null when a side has no value. */
  delta: number | null;
  /** 95% interval of the mean paired difference (seeded paired bootstrap); null with no pairs. */
  ci95: [number, number] | null;
  /** Exact two-sided sign test (McNemar's on pass/fail pairs); null with no pairs. */
  p_value: number | null;
  /** How many pairs (tasks, cases, samples present on both sides) the interval and p-value rest on. */
  pairs: number;
}

/** One pair: the same task (or case, or sample) before and after. */
export type Pair = readonly [before: number, after: number];

/** Rates and their intervals to 4 places, p-values to 6: no 0.30000000000000004 in a file people read. */
export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const round6 = (x: number) => Math.round(x * 1_000_000) / 1_000_000;

/** The interval, p-value and pair count of `pairs`. */
export function pairedStats(pairs: readonly Pair[], options: BootstrapOptions = {}): Pick<PairedDelta, "ci95" | "p_value" | "pairs"> {
  const differences = pairs.map(([b, a]) => a - b);
  const ci = pairedBootstrapInterval(differences, options);
  const up = differences.filter((d) => d > 0).length;
  const down = differences.filter((d) => d < 0).length;
  return {
    ci95: ci ? [round4(ci[0]), round4(ci[1])] : null,
    p_value: pairs.length === 0 ? null : round6(signTestP(up, down)),
    pairs: pairs.length,
  };
}

/**
 * The delta object: `before` and `after` as shown (a run's overall rate, which may count items that have no pair),
 * and the interval and p-value over the pairs. Without explicit sides, they are the means of the pairs.
 */
export function pairedDelta(
  pairs: readonly Pair[],
  sides?: { before: number | null; after: number | null },
  options: BootstrapOptions = {},
): PairedDelta {
  const mean = (i: 0 | 1) => (pairs.length === 0 ? null : round4(pairs.reduce((s, p) => s + p[i], 0) / pairs.length));
  const before = sides ? sides.before : mean(0);
  const after = sides ? sides.after : mean(1);
  return {
    before,
    after,
    delta: before === null || after === null ? null : round4(after - before),
    ...pairedStats(pairs, options),
  };
}

/** A fall that is not noise: the whole interval is below 0 and the exact test agrees (p < `alpha`). */
export function isSignificantDrop(d: Pick<PairedDelta, "ci95" | "p_value">, alpha = 0.05): boolean {
  return d.ci95 !== null && d.ci95[1] < 0 && d.p_value !== null && d.p_value < alpha;
}

/** A rise that is not noise (the mirror of isSignificantDrop). */
export function isSignificantRise(d: Pick<PairedDelta, "ci95" | "p_value">, alpha = 0.05): boolean {
  return d.ci95 !== null && d.ci95[0] > 0 && d.p_value !== null && d.p_value < alpha;
}
