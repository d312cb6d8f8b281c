/**
 * The unbiased pass@k estimator (Chen et al., 2021, "Evaluating Large Language Models Trained on Code"):
 * with n samples of which c passed, pass@k = 1 - C(n-c, k) / C(n, k), the chance that at least one of k samples
 * drawn without replacement from the n passes. Computed as the paper's running product
 * 1 - prod_{i=n-c+1..n} (1 - k/i), so large n neither overflows nor loses precision to huge binomials.
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

/**
 * The k values a report lists, the one answer for a suite (`skillrig test --samples`) and a solve batch: 1, every
 * power of ten up to `n` (the most samples, or attempts, a task has), and the ones asked for up to `n` (a suite's
 * `--k`; a solve batch asks for its attempts per task, "did any attempt pass"); sorted, without repeats.
 */
export function reportedKs(n: number, requested: readonly number[] = []): number[] {
  const ks = new Set<number>();
  if (n >= 1) ks.add(1);
  for (let k = 10; k <= n; k *= 10) ks.add(k);
  for (const k of requested) if (Number.isInteger(k) && k >= 1 && k <= n) ks.add(k);
  return [...ks].sort((a, b) => a - b);
}

/** @deprecated the same function as `reportedKs`, under its first name. */
export const suiteKs = reportedKs;
