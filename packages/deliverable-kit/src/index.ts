/**
 * @skillrig/deliverable-kit: how a deliverable type is written. `defineDeliverable` for any type (a session per
 * task run over the snapshotted deliverable, a check and a run per case); `defineProcessDeliverable` for types
 * whose cases each start a process (script, cli, a team's Node CLI). The process-case parts are exported for types
 * that run processes their own way.
 */
export { defineDeliverable } from "./define-deliverable.js";
export type {
  CaseCheck,
  CaseCheckResult,
  DeliverablePlugin,
  DeliverableDefinition,
  DeliverableWorkspace,
  OpenContext,
} from "./define-deliverable.js";
export { defineProcessDeliverable } from "./define-process-deliverable.js";
export type { ProcessDeliverableDefinition } from "./define-process-deliverable.js";
export { runProcessCase, processCaseOutcome } from "./process/run-process-case.js";
export type { ProcessCaseEnd, ProcessCaseEnded, ProcessCaseOptions } from "./process/run-process-case.js";
export { validateProcessInput, validateProcessExpected, CLI_ARGV_MESSAGE } from "./process/validate-process-case.js";
export { CASE_FILE_BOUNDS, type CaseFileBounds, caseFileBounds, fileKeyBoundReason } from "./process/case-file-bounds.js";
export type { ProcessInput, ProcessExpected, ProcessCaseShape } from "./process/validate-process-case.js";
export { unsafePathReason } from "./process/safe-relative-path.js";
export { caseLimitDefaults } from "./process/case-limit-defaults.js";
/** How a process ended, in the words every part of skillrig uses (from @skillrig/process). */
export { describeProcessEnding, endingOfExit, type ProcessEnding } from "@skillrig/process";
