/**
 * What flows through the hooks, one set of types per flow: grading a task (a case at a time) and running a skill
 * job. The two flows share no union: a deliverable plugin only ever sees case types, an engine only job types.
 */
import type { Violation } from "./errors.js";
import type { CaseStatus, Deliverable, LoadedTask, Task, TaskReport, TestCase } from "./oracle-types.js";
import type { CollectedArtifact, EngineEvent, JobRequest, JobResult, RunFolder, SkillInstall, SkillManifest } from "./job-types.js";
import type { Sandbox } from "./sandbox.js";

// ---------------------------------------------------------------------------------------------------------------
// Grading flow: one task against one deliverable.

/** One task being graded against one deliverable. A plugin keeps per-run state of its own (deliverable-kit keeps it in a WeakMap keyed by the run). */
export interface TaskRun {
  loaded: LoadedTask;
  deliverable: Deliverable;
  /** The sandbox every case of this run goes through. */
  sandbox: Sandbox;
  /** Cases run at once. */
  jobs: number;
  /**
   * Cases handed to the deliverable type at once (default: `jobs`). A type whose cases queue in a host that runs
   * `jobs` of them at a time itself (the sample host) sets it in `setUp`, so a sample's cases go in as one batch
   * instead of one round trip each. Ignored with `--bail`, which must be able to stop cases before they start.
   */
  casesInFlight?: number;
  signal: AbortSignal;
  /** Cases this run grades, when a selection (`skillrig test -k`) leaves some of the task's out; default: all of them. */
  selectedCases?: number;
}

/**
 * `task.resolveDeliverable[type]`: a path a user gave for a deliverable (`--deliverable`, a samples file's `path`,
 * an agent's artifact), checked to exist. A tap returns the `Deliverable` it names, throws a `usage` error a person
 * can act on, or returns undefined; with no answer the oracle's rule applies: the file itself, or a folder holding
 * the task's `entrypoint` file.
 */
export interface DeliverablePathRequest {
  /** The path as the user wrote it (for messages). */
  path: string;
  /** It, absolute. */
  target: string;
  /** What is there. */
  kind: "file" | "dir";
  task: Pick<Task, "deliverable_type" | "entrypoint">;
}

/**
 * `task.deliverableFile[type]`: where skillrig writes a deliverable it was given as text (a samples file's
 * `solution`, the solve skill's output). A tap returns the entry file's path relative to the deliverable's folder;
 * with no answer it is the task's `entrypoint`.
 */
export interface DeliverableFileRequest {
  task: Pick<Task, "deliverable_type" | "entrypoint">;
}

/** One test case of a task run. */
export interface CaseWork {
  run: TaskRun;
  testCase: TestCase;
  index: number;
}

/** The value a case's `resolveInput` refines. Taps add to `violations` rather than throwing, so every problem is listed. */
export interface CaseInputResolution {
  value: unknown;
  violations: Violation[];
  warnings?: string[];
}

export interface CaseExecuteRequest {
  work: CaseWork;
  /** The input after `resolveInput`. */
  input: unknown;
}

/** A field of a case's result to compare, as the deliverable plugin lays it out. */
export interface CaseComparison {
  /** "return value", "stdout", "files/out.csv", ... */
  field: string;
  expected: unknown;
  actual: unknown;
  /** The mode used unless the case or task names one. */
  defaultMode: string;
  /** The field is always compared with `defaultMode`, whatever the case or task names (exit codes are always exact). */
  fixedMode?: boolean;
  /**
   * `actual` is an already-decoded JSON value (a function's return value), not text: compare modes must not
   * parse a string in it as JSON text (a returned "11" is the string "11", not the number 11).
   */
  decoded?: boolean;
  /**
   * Both values as JSON text, exact (numbers as written, NaN and Infinity as Python's json writes them). Compare
   * modes that compare JSON values (`json`, `exact`, `number`) use these instead of the lossy `expected`/`actual`,
   * which stay for reports and for modes that look at text.
   */
  exactJson?: { expected: string; actual: string };
}

/** What a deliverable plugin returns for one case. */
export interface CaseOutcome {
  /** What the deliverable produced, for the report. */
  actual: unknown;
  /** Set when the run itself ended abnormally; comparison is skipped then. */
  status?: Exclude<CaseStatus, "passed" | "failed">;
  message?: string;
  /** Fields to compare with the compare hook when the run ended normally. */
  comparisons: CaseComparison[];
  details?: Record<string, unknown>;
  /**
   * Time the case waited behind other cases before it started (cases handed over at once, `TaskRun.casesInFlight`):
   * left out of the verdict's `duration_ms`, which is the case's own.
   */
  queuedMs?: number;
}

export interface CompareRequest {
  mode: string;
  /** Mode options (`abs_tol`, `rel_tol`, `flags` ...). */
  options: Record<string, unknown>;
  expected: unknown;
  actual: unknown;
  field: string;
  /** See `CaseComparison.decoded`. */
  decoded?: boolean;
  /** See `CaseComparison.exactJson`. */
  exactJson?: { expected: string; actual: string };
}

export interface CompareResult {
  equal: boolean;
  /** A compact diff or explanation when not equal. */
  diff?: string;
  message?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Job flow: one skill run by one engine.

/** One skill job. */
/** USD per million tokens of one model (the price table's row). */
export interface ModelPrice {
  input: number;
  /** Cached input read; default `input`. */
  cached_input?: number;
  /** Input written to the prompt cache; default `input`. */
  cache_write?: number;
  output: number;
  /** Reasoning tokens; default `output`. */
  reasoning?: number;
}

export interface JobCostControls {
  maxCostUsd?: number;
  maxTokens?: number;
  /** Rows over the shipped price table (model id -> price). */
  prices?: Record<string, ModelPrice>;
  /** Whether the engine's model calls go through the metering proxy (default true). */
  meter?: boolean;
  /** Bounds on what the proxy reads of one response (`cost.meter_max_json_bytes`, `cost.meter_max_line_bytes`). */
  meterMaxJsonBytes?: number;
  meterMaxLineBytes?: number;
}

export interface JobWork {
  jobId: string;
  request: JobRequest;
  skill: SkillManifest;
  engine: string;
  run: RunFolder;
  /** How the agent gets the skill (the request's `options.skill_install`, default `referenced`). */
  skillInstall: SkillInstall;
  /** Options for the engine (config merged with the request's). */
  engineOptions: Record<string, unknown>;
  /** Template context beyond input and parameter: run_dir, skill_dir, workspace_dir, ... */
  context: Record<string, unknown>;
  /** Refuse to run the engine outside the agent jail (the jobs server sets it unless its config opts out). */
  requireEngineJail?: boolean;
  signal: AbortSignal;
  /**
   * What the job may spend and how its model calls are priced (the config's `cost` section with the job's
   * `max_cost_usd` / `max_tokens`); engines on engine-kit meter and enforce it. Absent: no budget, shipped prices.
   */
  cost?: JobCostControls;
  /** Report an engine event: it goes to the run folder's logs/events.jsonl, `job.event`'s taps and the caller. */
  emit(event: EngineEvent): void;
  /** Add a warning to the job's result (`JobResult.warnings`); the same text twice is kept once. */
  warn(message: string): void;
}

/**
 * What the job's runtime gives the engine, made by `job.prepareRuntime` after the prompt is rendered (a dry run
 * never builds it): a skill's Python environment is a PATH entry, a VIRTUAL_ENV and a folder the jail lets it read.
 */
export interface JobRuntime {
  /** Environment variables the engine's process gets on top of its own. */
  env: Record<string, string>;
  /** Folders the engine's process may read (never write) inside the agent jail. */
  readOnly: string[];
  /** Facts for the template context of later steps (`python_env`: the environment's folder). */
  context: Record<string, unknown>;
}

/** The value a job's `resolveInput` refines. */
export interface JobInputResolution {
  value: Record<string, unknown>;
  violations: Violation[];
  /** Resolved parameters (defaults filled). */
  parameter: Record<string, unknown>;
  warnings?: string[];
}

/** The value `renderPrompt` refines. */
export interface PromptRendering {
  text: string;
  /** Which template produced it: the default, the skill's engine-specific one, or a plugin's. */
  source: string;
  /** The file the template came from, for error messages. */
  file?: string;
  /** SKILL.md as patched for the run workspace. */
  skillMd?: string;
}

export interface JobExecuteRequest {
  work: JobWork;
  /** The runtime `job.prepareRuntime` made (environment, folders the engine may read). */
  runtime: JobRuntime;
  input: Record<string, unknown>;
  parameter: Record<string, unknown>;
  prompt: PromptRendering;
}

/** The value `collectArtifacts` refines. */
export interface ArtifactCollection {
  output: unknown;
  artifacts: CollectedArtifact[];
  /** Missing required artifacts or result fields; a non-empty list fails the job. */
  problems: Array<{ code: "artifact_missing" | "result_missing" | "schema_violation"; message: string; pointer?: string }>;
}

// ---------------------------------------------------------------------------------------------------------------
// Every flow.

export interface RunInfo {
  kind: "task" | "job" | "solve" | (string & {});
  id: string;
  startedAt: Date;
}

export interface RunEndInfo extends RunInfo {
  ok: boolean;
  durationMs: number;
  /** kind `task`: the task's report (when `ok`). */
  report?: TaskReport;
  /** kind `suite`: the suite's report (every task and sample; `ok` is true once it is built, a canceled run's too). */
  suite?: SuiteRunReport;
  result?: JobResult;
}

/**
 * A suite's report, as `runEnd` (kind `suite`) carries it. Core names only its kind; the oracle, which builds it,
 * adds its fields by declaration merging (`@skillrig/oracle`'s `SuiteReport`), so a reporter that imports the
 * oracle's types sees them all.
 */
export interface SuiteRunReport {
  kind: "skillrig-suite-report";
}
