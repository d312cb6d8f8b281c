/**
 * The unbiased pass@k estimator (Chen et al., 2021, "Evaluating Large Language Models Trained on Code"):
 * with n attempts of which c passed, pass@k = 1 - C(n-c, k) / C(n, k), the chance that at least one of k attempts
 * drawn without replacement from the n passes. Computed as a running product so large n does not overflow.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`pass@k needs integers 1 <= k <= n and 0 <= c <= n (got n=${n}, c=${c}, k=${k})`);
  }
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** The k values a report lists for n attempts: 1..n when n is small, else 1, 2, 5, 10, 20, 50 ... and n. */
export function reportedKs(n: number): number[] {
  if (n <= 10) return Array.from({ length: n }, (_, i) => i + 1);
  const ks = new Set<number>();
  for (let scale = 1; scale <= n; scale *= 10) for (const m of [1, 2, 5]) if (m * scale <= n) ks.add(m * scale);
  ks.add(n);
  return [...ks].sort((a, b) => a - b);
}
