/**
 * Grading a suite (many tasks, many samples, pass@k): `@skillrig/oracle/suite`, imported by a command only when it
 * grades a suite (one-task.ts is the one-task part). The package's main entry exports all of it too.
 */
export { passAtK, reportedKs, suiteKs } from "./pass-at-k.js";
export { findTaskFiles, loadSuite } from "./load-suite.js";
export { deliverablesFromFolder } from "./suite-deliverables.js";
export type { SuiteEntry, SuiteSample } from "./suite-deliverables.js";
export { deliverablesFromSamples } from "./samples-jsonl.js";
export { gradeSample, runSuite, sampleStatus } from "./run-suite.js";
export { sampleNumber } from "./sample-number.js";
export type {
  GradedSample,
  RunSuiteOptions,
  SampleGrading,
  SampleResult,
  SampleStatus,
  SuiteProgress,
  SuiteReport,
  SuiteSummary,
  SuiteTaskResult,
} from "./run-suite.js";
export { toSuiteJson } from "./reporters/suite-json.js";
export { toSuiteJunitXml } from "./reporters/suite-junit.js";
export { formatSuiteSummary } from "./reporters/suite-summary.js";
export { createSuiteProgress, formatFailure, formatProgress } from "./reporters/suite-progress.js";
export type { SuiteProgressDisplay, SuiteProgressOptions } from "./reporters/suite-progress.js";
