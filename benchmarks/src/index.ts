/** The benchmark suites, for running one from a script; `pnpm bench` runs them all through main.ts. */
export { functionCases } from "./suites/function-cases.js";
export { processCases } from "./suites/process-cases.js";
export { jobOverhead } from "./suites/job-overhead.js";
export { median, percentile } from "./stats.js";
export type { BenchSettings } from "./settings.js";
export type { Goal, Section, SuiteOutcome } from "./report.js";
