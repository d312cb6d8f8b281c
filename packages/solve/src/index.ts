export { notRun, solve } from "./solve.js";
export type { SolveOptions, SolveEngine, SolveProgress } from "./solve.js";
export { loadSolveTasks } from "./load-tasks.js";
export { checkReference, scoredTask } from "./reference-check.js";
export { runAttempt } from "./run-attempt.js";
export { localExecution } from "./solve-execution.js";
export type { SolveExecution } from "./solve-execution.js";
export type { AttemptSpec } from "./run-attempt.js";
export { SOLVE_SKILL_DIR, SOLVE_SKILL_ID, deliverableFileOf, solveInputs, prepareSolveSkill } from "./solve-skill.js";
export type { SolveExample } from "./solve-skill.js";
export { passAtK, reportedKs } from "./pass-at-k.js";
export { summarizeEngines } from "./report.js";
export type {
  AttemptStatus,
  AttemptUsage,
  AttemptResult,
  ReferenceCheck,
  TaskResult,
  EngineSummary,
  SolveReport,
  EngineLabel,
  TranscriptEvent,
} from "./report.js";
export { toSolveJson } from "./reporters/json-reporter.js";
export { toSolveJunit } from "./reporters/junit-reporter.js";
export { toSolveHtml } from "./reporters/html-reporter.js";
export { writeSolveReports } from "./reporters/write-reports.js";
export type { SolveReporterName } from "./reporters/write-reports.js";
export { solveConfigSection } from "./config-section.js";
export type { SolveConfig } from "./config-section.js";
