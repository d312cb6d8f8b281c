/**
 * What grading one task needs, without the suite's modules (suite.ts): `skillrig test task.json` and the CLI's
 * built-in compare modes import this entry (`@skillrig/oracle/one-task`), so a one-task command loads only the
 * modules it uses. The package's main entry exports all of it too.
 */
export { loadTask, validateTask, validateTaskText, taskViolations, taskSchema, exactTaskText } from "./load-task.js";
export { deliverableFileOf, resolveDeliverable } from "./resolve-deliverable.js";
export { runTask, summarize } from "./run-task.js";
export type { RunTaskOptions } from "./run-task.js";
export { Bail, narrowTask, parseCaseFilter } from "./case-selection.js";
export { withUserPaths } from "./snapshot-paths.js";
export type { CaseFilter, CaseSelection } from "./case-selection.js";
export { CompareModesPlugin, compareModesPlugin } from "./compare/compare-modes-plugin.js";
export { ConsoleReporter, formatSummary, useColor } from "./reporters/console-reporter.js";
export type { ConsoleReporterOptions } from "./reporters/console-reporter.js";
export { JsonReporter } from "./reporters/json-reporter.js";
export type { JsonReporterOptions } from "./reporters/json-reporter.js";
export { toJsonReport } from "./reporters/json-report.js";
export type { JsonReport, JsonCase } from "./reporters/json-report.js";
export { JunitReporter, toJunitXml } from "./reporters/junit-reporter.js";
export { BuiltinReporters, builtinReporters } from "./reporters/reporters-plugin.js";
export type { JunitReporterOptions } from "./reporters/junit-reporter.js";
