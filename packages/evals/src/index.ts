/**
 * @skillrig/evals: `skillrig eval` (see docs/evals.md). The files it reads and writes are typed in ./format.ts.
 */
export * from "./format.js";
export type { GradeRun, GradeRunInput } from "./grading-contract.js";
export { loadEvals, loadTriggers, workspacePathOf, evalsJsonSchema, triggersJsonSchema, ASSERTION_KINDS } from "./load-evals.js";
export type { EvalSkill, LoadedCase, LoadedEvals, LoadedTriggers } from "./load-evals.js";
export { nextIteration, runPath, iterationDir } from "./layout.js";
export { copyOutputs, DEFAULT_OUTPUTS_CAP_BYTES } from "./outputs.js";
/** The skills package's lists (workspace-folders.ts), re-exported for existing callers. */
export { SKILL_DISCOVERY_DIRS, SKILL_INSTALL_DIRS } from "@skillrig/skills/protocol";
export { RESULT_FILE_NAMES, AGENT_FILE_SUFFIX, storedName, agentName, storedPath } from "./result-names.js";
export type { CopyOutputsOptions, CopyOutputsResult } from "./outputs.js";
export { stat, summarize, buildBenchmark, meetsMinPassRate, casePairs, pairDelta, pairDeltas, configurationPairs } from "./stats.js";
export { defaultConfigurations, parseConfigurations, skillInstallOf } from "./configurations.js";
export { inlineSkill, inlinePrompt, INLINE_SKILL_MAX_BYTES, type InlineSkill } from "./inline-skill.js";
export {
  loadDistractors,
  installDistractors,
  firedSkill,
  type Distractor,
  type LoadedDistractors,
} from "./distractors.js";
export { confusionTables, countOfN } from "./confusion.js";
export { compareIterations } from "./compare-iterations.js";
export { junitReport, xmlText } from "./junit-report.js";
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
  BUILTIN_ASSERTION_KINDS,
  builtinAssertionKinds,
  registeredKind,
  registeredKindNames,
} from "./grading/index.js";
export { runWithRetries, lostToInfrastructure } from "./infrastructure-retries.js";
export type { RunAttempt, RetriedJob, RetryOptions } from "./infrastructure-retries.js";
export { runLostToInfrastructure } from "./stats.js";
export type { RegisteredKind } from "./grading/index.js";
