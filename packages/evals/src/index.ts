/**
 * @skillrig/evals: `skillrig eval` (see docs/evals.md). The files it reads and writes are typed in ./format.ts.
 */
export * from "./format.js";
export type { GradeRun, GradeRunInput } from "./grading-contract.js";
export { loadEvals, loadTriggers, workspacePathOf, evalsJsonSchema, triggersJsonSchema, ASSERTION_KINDS } from "./load-evals.js";
export type { EvalSkill, LoadedCase, LoadedEvals, LoadedTriggers } from "./load-evals.js";
export { nextIteration, runPath, iterationDir } from "./layout.js";
export { copyOutputs, DEFAULT_OUTPUTS_CAP_BYTES, SKILL_INSTALL_DIRS } from "./outputs.js";
export type { CopyOutputsOptions, CopyOutputsResult } from "./outputs.js";
export { stat, summarize, buildBenchmark, meetsMinPassRate } from "./stats.js";
export { runIteration, checkPlainSkill, planRuns, configurationsOf, allFailed } from "./run-iteration.js";
export type { RunIterationOptions, IterationResult } from "./run-iteration.js";
export {
  runTriggers,
  assignSplits,
  isThisSkill,
  MIN_TRIGGER_RUNS,
  DEFAULT_TRIGGER_RUNS,
  TRIGGER_THRESHOLD,
  TRAIN_SHARE,
} from "./run-triggers.js";
export type { RunTriggersOptions, TriggerRunInfo } from "./run-triggers.js";
export {
  gradeRun,
  summarizeResults,
  assertionText,
  NO_JUDGE_EVIDENCE,
  OUTPUT_READ_CAP_BYTES,
  SCRIPT_TIMEOUT_MS,
  JUDGE_SKILL_DIR,
  REGEX_SEARCH_LIMIT_MS,
} from "./grading/index.js";
