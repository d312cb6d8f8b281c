/** pass@k for solve reports: the estimator and the k values listed are the oracle's (one answer for suites and solve batches). */
export { passAtK, reportedKs } from "@skillrig/oracle";
