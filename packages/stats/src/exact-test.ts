/**
 * The exact two-sided sign test on paired outcomes: of the pairs that differ, `up` moved up and `down` moved down;
 * under "no change" each direction is a fair coin, so the count going one way is Binomial(up + down, 1/2). On
 * pass/fail pairs this is McNemar's exact test (the discordant pairs are the ones that flipped). Computed in log
 * space so thousands of pairs neither overflow nor underflow.
 */

/** ln(n!) by summing logs: exact enough for the counts of a run comparison (n in the thousands at most). */
function logFactorials(n: number): Float64Array {
  const table = new Float64Array(n + 1);
  for (let i = 2; i <= n; i += 1) table[i] = table[i - 1]! + Math.log(i);
  return table;
}

/**
 * Two-sided exact p-value: twice the probability of a split at least as lopsided as `up` vs `down`, capped at 1.
 * No differing pair (`up + down` = 0) is p = 1: nothing moved.
 */
export function signTestP(up: number, down: number): number {
  if (!Number.isInteger(up) || !Number.isInteger(down) || up < 0 || down < 0) {
    throw new RangeError(`signTestP: counts must be whole numbers >= 0 (got ${up}, ${down})`);
  }
  const n = up + down;
  if (n === 0) return 1;
  const tail = Math.min(up, down);
  const lf = logFactorials(n);
  const logHalfN = -n * Math.LN2;
  let sum = 0;
  for (let i = 0; i <= tail; i += 1) sum += Math.exp(lf[n]! - lf[i]! - lf[n - i]! + logHalfN);
  return Math.min(1, 2 * sum);
}

/** McNemar's exact test on pass/fail pairs: `fixed` failed before and pass now, `broke` passed before and fail now. */
export function mcnemarExactP(fixed: number, broke: number): number {
  return signTestP(fixed, broke);
}
