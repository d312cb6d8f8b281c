/**
 * What grading one run needs and gives: the seam between running an eval (run-iteration) and grading it
 * (grading/). The runner hands over a finished run's outputs; grading never sees the agent, only what it left.
 */
import type { Runner } from "@skillrig/core";
import type { Assertion, Grading } from "./format.js";

export interface GradeRunInput {
  runner: Runner;
  /** The skill folder the evals were read from: an oracle assertion's `task` and a script's files resolve here. */
  skillDir: string;
  /** The case, for the judge: its prompt and expected output. */
  prompt: string;
  expectedOutput?: string;
  /** The case's assertions, validated (a case's `expectations` already read as `assertions`). */
  assertions: Assertion[];
  /**
   * The run's outputs/ folder (a copy of what the agent left; links and special files already left out), with the
   * agent's result-named files under their stored names (`grading.json.from-agent`, result-names.ts): graders map
   * the agent's paths with `storedPath` and restore the names in their copies with `agentName`.
   */
  outputsDir: string;
  /** The agent's final answer: text for a plain skill, the output JSON for a skill with an output schema. */
  answer?: unknown;
  /**
   * The run's job folder: trajectory assertions read its normalised events (`logs/events.jsonl`) and take paths
   * relative to its `workspace/`. Absent when the run never got a job; a trajectory assertion then fails saying so.
   */
  jobDir?: string;
  /** The engine that grades plain-string assertions, and the user's own judge prompt template (a file), if any. */
  judge?: { engine: string; template?: string };
  /** Where grading's own jobs (the judge's) keep their run folders. */
  runsDir: string;
  signal?: AbortSignal;
}

/** Grades every assertion of one run; never throws for a bad output (a failed assertion says why in its evidence). */
export type GradeRun = (input: GradeRunInput) => Promise<Grading>;
