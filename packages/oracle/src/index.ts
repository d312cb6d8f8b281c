export { loadTask, validateTask, validateTaskText, taskViolations, taskSchema, exactTaskText } from "./load-task.js";
export { findExcessiveNesting, topLevelMemberText, TASK_MAX_DEPTH } from "./json-text.js";
export type { TooDeep } from "./json-text.js";
export { JsonNumber, parsePythonJson, pythonEquals } from "./compare/python-json.js";
export type { PythonJsonValue } from "./compare/python-json.js";
export { REGEX_TIME_LIMIT_MS } from "./compare/regex-search.js";
export { resolveDeliverable } from "./resolve-deliverable.js";
export { runTask, summarize } from "./run-task.js";
export type { RunTaskOptions } from "./run-task.js";
export { CompareModesPlugin, compareModesPlugin } from "./compare/compare-modes-plugin.js";
export { BUILTIN_MODES } from "./compare/modes.js";
export type { CompareMode } from "./compare/modes.js";
export { compactDiff } from "./compare/compact-diff.js";
export { ConsoleReporter, formatSummary, useColor } from "./reporters/console-reporter.js";
export { tracebackOf } from "./reporters/traceback.js";
export type { ConsoleReporterOptions } from "./reporters/console-reporter.js";
export { JsonReporter } from "./reporters/json-reporter.js";
export type { JsonReporterOptions } from "./reporters/json-reporter.js";
export { toJsonReport } from "./reporters/json-report.js";
export type { JsonReport, JsonCase } from "./reporters/json-report.js";
export { JunitReporter, toJunitXml } from "./reporters/junit-reporter.js";
export type { JunitReporterOptions } from "./reporters/junit-reporter.js";
export { passAtK, suiteKs } from "./pass-at-k.js";
export { findTaskFiles, loadSuite } from "./load-suite.js";
export { deliverablesFromFolder } from "./suite-deliverables.js";
export type { SuiteEntry, SuiteSample } from "./suite-deliverables.js";
export { deliverablesFromSamples } from "./samples-jsonl.js";
export { gradeSample, runSuite, sampleStatus } from "./run-suite.js";
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
export { createSuiteProgress, formatProgress } from "./reporters/suite-progress.js";
export type { SuiteProgressDisplay, SuiteProgressOptions } from "./reporters/suite-progress.js";
export { oracleConfigSection } from "./config-section.js";
export type { OracleConfig } from "./config-section.js";
