/**
 * A trajectory assertion graded on a run's job: its event log read (job-event-log.ts), then decided by the pure
 * functions of trajectory.ts. A run with no job folder or no readable log fails the assertion saying why.
 */
import type { TrajectoryAssertion } from "../format.js";
import type { Verdict } from "./deterministic.js";
import { EVENT_LOG, readJobTrajectory } from "./job-event-log.js";
import { gradeTrajectory } from "./trajectory.js";

export async function gradeTrajectoryAssertion(assertion: TrajectoryAssertion, jobDir: string | undefined): Promise<Verdict> {
  if (jobDir === undefined || jobDir === "") return { passed: false, evidence: "the run has no job folder: there are no events to grade" };
  const read = await readJobTrajectory(jobDir);
  if (!read.ok) return { passed: false, evidence: read.reason, error: read.reason };
  const verdict = gradeTrajectory(assertion, read.trajectory);
  if (read.unreadableLines === 0) return verdict;
  // Said, not hidden: a verdict on a log with lines that are not events may have missed a call.
  return {
    ...verdict,
    evidence: `${verdict.evidence} (${read.unreadableLines} line(s) of ${EVENT_LOG} were not events and were left out)`,
  };
}
