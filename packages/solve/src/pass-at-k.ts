/** pass@k for solve reports: the estimator is the oracle's (one implementation for suites and solve batches). */
export { passAtK } from "@skillrig/oracle";

/** The k values a report lists for n attempts: 1..n when n is small, else 1, 2, 5, 10, 20, 50 ... and n. */
export function reportedKs(n: number): number[] {
  if (n <= 10) return Array.from({ length: n }, (_, i) => i + 1);
  const ks = new Set<number>();
  for (let scale = 1; scale <= n; scale *= 10) for (const m of [1, 2, 5]) if (m * scale <= n) ks.add(m * scale);
  ks.add(n);
  return [...ks].sort((a, b) => a - b);
}
