/**
 * The trajectory kinds: `tool_used`, `tool_not_used`, `tool_sequence`, `step_count`, `file_changed` and
 * `skill_activated`. Each is graded on the job's normalised event log (trajectory-grader.ts, through the run's
 * `jobDir`), never on what the agent printed; their patterns are RE2 (linear time on the agent's text), checked
 * with the rest of each kind's fields before anything runs. They differ only in their verdict (../trajectory.ts),
 * so one definition makes all six.
 */
import { type AssertionKindPlugin, defineAssertionKind } from "@skillrig/assertion-kit";
import type { TrajectoryAssertion } from "../../format.js";
import { trajectoryProblems, trajectoryText } from "../trajectory.js";
import { gradeTrajectoryAssertion } from "../trajectory-grader.js";
import { builtinFieldsSchema } from "./builtin-schema.js";

function trajectoryKind<K extends TrajectoryAssertion["kind"]>(kind: K, description: string): AssertionKindPlugin {
  return defineAssertionKind<Extract<TrajectoryAssertion, { kind: K }>>({
    name: "@skillrig/evals",
    kind,
    runsIn: "runner",
    description,
    schema: builtinFieldsSchema(kind),
    check: (a) => trajectoryProblems(a),
    describe: (a) => trajectoryText(a),
    grade: (a, run) => gradeTrajectoryAssertion(a, run.jobDir),
  });
}

/** At least one tool call of the job matches. */
export const toolUsedKind = trajectoryKind(
  "tool_used",
  "the agent made a tool call matching a tool kind, tool name and/or an RE2 pattern on its arguments",
);
/** No tool call of the job matches. */
export const toolNotUsedKind = trajectoryKind(
  "tool_not_used",
  "the agent made no tool call matching a tool kind, tool name and/or an RE2 pattern on its arguments",
);
/** Tool calls of the job match `steps` in order, other calls between them allowed. */
export const toolSequenceKind = trajectoryKind(
  "tool_sequence",
  "the agent's tool calls match the steps in this order (other calls between them allowed)",
);
/** The job's steps (tool calls, one per call id) are within `min` and `max`. */
export const stepCountKind = trajectoryKind("step_count", "the agent took at least min and at most max steps (tool calls)");
/** A file_change event names a workspace path fully matching the RE2 pattern `path` (and `change`, if given). */
export const fileChangedKind = trajectoryKind(
  "file_changed",
  "a file whose workspace path fully matches an RE2 pattern was added, updated or deleted",
);
/** The job has a skill_activated event for `skill`. */
export const skillActivatedKind = trajectoryKind("skill_activated", "the agent activated the named skill");
