/**
 * Assertion kinds: what an eval's assertion object (`{ "kind": "csv_loads", ... }` in evals/evals.json) means. A
 * plugin taps `runner.hooks.assertion.for(kind)` and returns its `AssertionKind`: the JSON Schema of the kind's
 * fields (evals.json is checked against it before anything runs, every problem with its pointer), where it runs,
 * and how it grades. @skillrig/evals' built-in kinds (file_contains, regex, json_schema, script, oracle, judge and the
 * trajectory kinds tool_used, tool_not_used, tool_sequence, step_count, file_changed, skill_activated) are
 * declared the same way; `defineAssertionKind` (@skillrig/assertion-kit) writes the plugin for you.
 */
import type { Violation } from "./errors.js";
import type { Runner } from "./runner.js";
import type { Sandbox } from "./sandbox.js";
import type { JsonSchema } from "./schema-validation.js";

/**
 * Where a kind does its work. `runner`: in the runner's process, on data (a file of outputs/ read through
 * `readOutput`, the final answer); it must never run what the agent left. `sandbox`: it runs code (a checker, the
 * agent's deliverable), so grading hands it the deliverable sandbox, refused at a weak isolation level the user
 * did not name (the oracle's rule), and the kind runs everything through it.
 */
export type AssertionRunsIn = "runner" | "sandbox";

/** What every assertion object has: its `kind` and an optional `text` (a kind's own type adds its fields). */
export interface AssertionShape {
  kind: string;
  text?: string;
}

/** One assertion object as evals.json wrote it: its `kind`, its optional `text`, and the kind's own fields. */
export type AssertionObject = AssertionShape & Record<string, unknown>;

/** A file of the run's outputs/, read safely (no link followed, regular files only, capped), or why it was not. */
export type OutputFileRead = { ok: true; text: string; bytes: number } | { ok: false; reason: string };

/** One finished eval run, as an assertion sees it: never the agent, only what it left. */
export interface AssertionRun {
  runner: Runner;
  /** The skill folder the evals were read from (evals/ holds the author's fixtures; jobs never install it). */
  skillDir: string;
  /** The case's prompt and expected output. */
  prompt: string;
  expectedOutput?: string;
  /**
   * The run's outputs/ folder (a copy of what the agent left). The agent wrote it: read files with `readOutput`,
   * which refuses links, special files and files over the cap, rather than opening paths yourself.
   */
  outputsDir: string;
  /** Reads `path` (relative to outputs/, as the agent named it) safely; a problem is a reason, never a throw. */
  readOutput(path: string): Promise<OutputFileRead>;
  /** The agent's final answer: text for a plain skill, the output JSON for a skill with an output schema. */
  answer?: unknown;
  /**
   * The run's job folder, when the run got a job: `logs/events.jsonl` is the job's normalised engine events
   * (skillrig wrote them as the engine reported them, one `EngineEvent` per line; a log cut short where the job was
   * stopped may end in a partial line), and `workspace/` is the folder the agent worked in (the agent's files:
   * hostile, read them as `readOutput` reads outputs/). The trajectory kinds (tool_used, step_count ...) grade on
   * the event log. Absent when the run never got a job.
   */
  jobDir?: string;
  /** The engine that grades judge assertions (`--judge`), and the user's judge prompt template, if any. */
  judge?: { engine: string; template?: string };
  /** Where grading's own jobs (the judge's) keep their run folders. */
  runsDir: string;
  /** For a kind that `runsIn: "sandbox"`: the deliverable sandbox, its level already checked. Absent otherwise. */
  sandbox?: Sandbox;
  signal?: AbortSignal;
}

/** A kind's answer for one assertion. A pass needs evidence a person can check. */
export interface AssertionVerdict {
  passed: boolean;
  /** What decided, quoted from the run (the line that failed to load, the exit code and output ...). */
  evidence: string;
  /** Why the assertion could not be graded at all (listed in grading.json's `errors` too). */
  error?: string;
}

/** What checking an assertion needs beyond its schema: the skill folder its paths resolve in. */
export interface AssertionCheckContext {
  skillDir: string;
}

export interface AssertionKind<A extends AssertionShape = AssertionObject> {
  /**
   * The JSON Schema (draft-07 or 2020-12) of the kind's own fields: the assertion object without `kind` and `text`,
   * which every assertion has. `additionalProperties: false` makes a misspelt field an error with its pointer.
   */
  schema: JsonSchema;
  runsIn: AssertionRunsIn;
  /** One line for listings (`skillrig plugins`). */
  description?: string;
  /**
   * Checks the schema cannot make (a pattern that compiles, a file that exists in the skill), after the schema
   * passed, before anything runs. Pointers are relative to the assertion (`/pattern`).
   */
  check?(assertion: A, context: AssertionCheckContext): Violation[];
  /** The assertion's readable text when it has no `text` of its own. */
  describe(assertion: A): string;
  /**
   * Grades one assertion of a finished run. Never throws for what the run left (a missing or bad file is a failed
   * verdict whose evidence says why); a throw is a bug, reported as the assertion's error naming the plugin.
   */
  grade(assertion: A, run: AssertionRun): Promise<AssertionVerdict>;
  /**
   * Instead of `grade`, for a kind that grades all of a run's assertions of the kind at once (the judge: one engine
   * job for them all). One verdict per assertion, in order; `error` is about the batch.
   */
  gradeTogether?(assertions: A[], run: AssertionRun): Promise<{ verdicts: AssertionVerdict[]; error?: string }>;
}
