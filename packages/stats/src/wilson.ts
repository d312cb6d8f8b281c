/**
 * The Wilson score interval of a rate (`successes` of `n`): unlike "rate ± 1.96 standard errors" it stays inside
 * [0, 1] and is honest at 0 of 5 or 5 of 5, the small counts trigger evals have.
 */

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

export function wilsonInterval(successes: number, n: number, z = Z95): [number, number] | null {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new RangeError(`wilsonInterval: expected whole numbers with 0 <= successes <= n (got ${successes} of ${n})`);
  }
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0 or n the bound is exactly 0 or 1; floating point would give 1e-17.
  return [successes === 0 ? 0 : Math.max(0, centre - half), successes === n ? 1 : Math.min(1, centre + half)];
}
