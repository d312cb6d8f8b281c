/**
 * @skillrig/evals: `skillrig eval` (see docs/evals.md). The files it reads and writes are typed in ./format.ts.
 */
export * from "./format.js";
export type { GradeRun, GradeRunInput } from "./grading-contract.js";
