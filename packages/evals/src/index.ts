/**
 * @skillrig/evals: `skillrig eval` (see docs/evals.md). The files it reads and writes are typed in ./format.ts.
 */
export * from "./format.js";
export type { GradeRun, GradeRunInput } from "./grading-contract.js";
export {
  gradeRun,
  summarizeResults,
  OUTPUT_READ_CAP_BYTES,
  SCRIPT_TIMEOUT_MS,
  JUDGE_SKILL_DIR,
  REGEX_SEARCH_LIMIT_MS,
} from "./grading/index.js";
