/**
 * Skill jobs: a skill package, a request with inputs and parameters, a run folder, an engine's run, a result.
 * The skills package fills these in; core only names their shape so hooks can be typed.
 */
import type { AgentConfinement } from "./sandbox.js";
import type { JsonSchema } from "./schema-validation.js";
import type { SerializedError } from "./errors.js";

/** An output field marked `x-type: artifact`, registered when the skill loads. */
export interface ArtifactSpec {
  /** The output property that holds the artifact's path. */
  field: string;
  /** `x-role`, default "output". */
  role: string;
  /** `x-filename`, default the property key. */
  filename: string;
  /** Whether the output schema requires the field. */
  required: boolean;
}

export interface SkillManifest {
  id: string;
  name: string;
  description: string;
  version?: string;
  engines: string[];
  /** Absolute path of the skill package folder. */
  dir: string;
  /** Absolute path of SKILL.md. */
  skillMdFile: string;
  /** Absolute path of assets/runner.json (where it would be, for a plain skill). */
  runnerFile: string;
  /**
   * A plain Agent Skill: SKILL.md only, no assets/runner.json. Its jobs take `JobRequest.prompt` as is, have no input,
   * parameter or output schema, run on every configured engine, and their output is the agent's final answer text.
   */
  plain?: boolean;
  /** The raw runner.json (`{}` for a plain skill). */
  runner: Record<string, unknown>;
  schemas: {
    input?: { file: string; schema: JsonSchema };
    parameter?: { file: string; schema: JsonSchema };
    output?: { file: string; schema: JsonSchema };
  };
  /** `entrypoint.prompts.<engine>`: engine name to template text. */
  prompts: Record<string, string>;
  runtime?: { language?: string; version?: string; dependencies?: string[] };
  artifacts: ArtifactSpec[];
}

/** What a caller asks for: `POST /v1/jobs` and `skillrig run` both produce one. */
export interface JobRequest {
  skill_id: string;
  engine: string;
  /** Inline inputs (`x-input-source: inline`). */
  input?: Record<string, unknown>;
  parameter?: Record<string, unknown>;
  /**
   * Host files to copy before resolving (the CLI's `--file field=path`): into `uploads/<field>` for a skill with
   * assets/runner.json; for a plain Agent Skill (no runner.json) the key is a relative path in the workspace.
   */
  files?: Record<string, string>;
  /**
   * The prompt, as is, of a plain Agent Skill (a SKILL.md with no assets/runner.json); refused for a skill whose
   * runner.json renders its own prompt.
   */
  prompt?: string;
  options?: JobOptions;
}

/**
 * How a job gives the agent its skill:
 * - `referenced` (default): installed where the engine discovers skills, and the engine's context file names it;
 * - `discoverable`: installed where the engine CLI discovers skills natively, and nothing names it, so using it is
 *   the agent's choice (`skillrig eval`'s runs and trigger evals);
 * - `none`: not installed at all (the baseline an eval compares against).
 * Whatever the mode, the skill's top-level `evals/` folder is never installed.
 */
export type SkillInstall = "referenced" | "discoverable" | "none";

export interface JobOptions {
  timeout_ms?: number;
  /** Stop after rendering the prompt (`--dry-run`). */
  dry_run?: boolean;
  /** Options for the engine plugin, merged over its configured options. */
  engine?: Record<string, unknown>;
  /** How the agent gets the skill (default `referenced`). */
  skill_install?: SkillInstall;
  /** Stop the engine once the job's model calls cost this much (USD, from the price table): error `cost_limit`. */
  max_cost_usd?: number;
  /** Stop the engine once the job's model calls used this many tokens (input + output): error `cost_limit`. */
  max_tokens?: number;
  /**
   * Which attempt of a retried run this job is, from 1 (`--retries`: a run whose job failed for its infrastructure
   * is run again as a new job). Recorded with the job; a mock scenario's `fail` turns read it. Default 1.
   */
  attempt?: number;
}

/** The documented run folder layout; every path absolute. */
export interface RunFolder {
  root: string;
  /** Uploaded files, one per file input, named exactly as the field. */
  uploads: string;
  /** The engine's working directory. */
  workspace: string;
  /** Snapshot of the skill package as it was when the job ran. */
  skillSnapshot: string;
  /** Rendered prompt. */
  promptFile: string;
  /** Engine stdout/stderr and skillrig's own log lines. */
  logs: string;
  /** Final output JSON. */
  outputFile: string;
  /** Collected artifacts. */
  artifacts: string;
}

export type EngineEvent =
  | { type: "status"; status: string; message?: string }
  | { type: "message"; role: "assistant" | "user" | "system"; text: string; delta?: boolean }
  | { type: "tool_call"; id?: string; tool: string; args?: unknown; status?: string }
  | { type: "tool_result"; id?: string; tool?: string; status: string; output?: string }
  | { type: "file_change"; path: string; kind: "add" | "update" | "delete" }
  /**
   * The agent activated a skill, whatever the engine's way: Claude Code's `Skill` tool, Gemini CLI's
   * `activate_skill`, Codex reading the skill's SKILL.md. `via` says which (the tool name, or `read SKILL.md`).
   */
  | { type: "skill_activated"; skill: string; via: string }
  | {
      type: "usage";
      inputTokens?: number;
      outputTokens?: number;
      totalTokens?: number;
      model?: string;
      /** Cached input, reasoning tokens, calls, cost and where the figures came from (the usage record's fields). */
      cachedInputTokens?: number;
      reasoningTokens?: number;
      modelCalls?: number;
      costUsd?: number | null;
      source?: UsageSource;
    }
  | { type: "log"; stream: "stdout" | "stderr" | "skillrig"; line: string };

/**
 * Why an engine run failed; the job's error code follows from it alone (runJob's `engineErrorCode`):
 * auth -> engine_auth_failed, timeout and idle_timeout -> timeout, not_found -> engine_not_found, canceled ->
 * canceled, jail_unavailable -> sandbox_unavailable, crash and malformed_output -> engine_failed, output_limit ->
 * output_limit (its output, or what it wrote to its workspace, passed a bound of `sandbox.agent`).
 */
export type EngineFailureKind =
  | "auth"
  | "timeout"
  | "idle_timeout"
  | "crash"
  | "malformed_output"
  | "not_found"
  | "canceled"
  | "jail_unavailable"
  | "output_limit"
  /** The job's budget (`max_cost_usd` or `max_tokens`) was reached and the engine was stopped. */
  | "cost_limit";

export interface EngineFailure {
  kind: EngineFailureKind;
  message: string;
  /** What the user can do about it, when the engine knows. */
  hint?: string;
  /**
   * Set when the run was lost to its infrastructure, not to what the agent did: the model endpoint, the engine's
   * start, the jail. A caller may run it again (`--retries`); such a run says nothing of the skill's quality.
   */
  infrastructure?: InfrastructureFailure;
}

/**
 * Why a run failed for its infrastructure (engine-kit's `classifyInfrastructure`):
 * - `model_rate_limited`: the model endpoint's last answer was HTTP 429;
 * - `model_server_error`: its last answer was a 5xx;
 * - `model_unreachable`: its last call got no answer (connection refused, reset, DNS);
 * - `engine_died_early`: the engine's process ended before its first event;
 * - `jail_failed`: the agent jail could not start.
 */
export type InfrastructureFailureType =
  | "model_rate_limited"
  | "model_server_error"
  | "model_unreachable"
  | "engine_died_early"
  | "jail_failed";

export interface InfrastructureFailure {
  type: InfrastructureFailureType;
  /** What was seen, in a sentence ("the model endpoint answered HTTP 429 to the last of 3 calls"). */
  message: string;
  /** The HTTP status of the model's last answer, for the model_* types that had one. */
  status?: number;
}

/**
 * Where a usage record's figures came from: `proxy` (skillrig's metering proxy read every model response: the
 * trustworthy figures), `engine` (the CLI's own report, which may miss calls, cached or reasoning tokens), `none`
 * (neither said anything).
 */
export type UsageSource = "proxy" | "engine" | "none";

/** Token counts in the one shape every engine reports (docs/plugin-api.md, "Usage records"). */
export interface UsageCounts {
  /** Every input token, cached ones included. */
  inputTokens?: number;
  /** Of `inputTokens`, those read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to the prompt cache (Anthropic's cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  /** Every output token, reasoning ("thinking") tokens included. */
  outputTokens?: number;
  /** Of `outputTokens`, the reasoning tokens. */
  reasoningTokens?: number;
  /** inputTokens + outputTokens. */
  totalTokens?: number;
  /** Model responses these figures add up. */
  modelCalls?: number;
}

/** Tokens, time and cost one engine run used: the usage record (every field but `durationMs` may be absent). */
export interface EngineUsage extends UsageCounts {
  durationMs?: number;
  /** The model that answered (the one with most calls when several did); `models` has each. */
  model?: string;
  /** Per model id, when the figures are the metering proxy's. */
  models?: Record<string, UsageCounts>;
  /** Where the figures came from. Absent in records written before usage records had a source (read as `engine`). */
  source?: UsageSource;
  /** The CLI's own report, kept beside the proxy's figures when `source` is `proxy`. */
  engineReported?: UsageCounts;
  /** Priced from the price table; `null` when a model that answered has no price ("unpriced"), never a guessed 0. */
  costUsd?: number | null;
  /** Models that answered and have no price. */
  unpricedModels?: string[];
}

/** How the engine's process ended: its exit code, or the signal that ended it. */
export interface EngineExit {
  code: number | null;
  signal: string | null;
}

/**
 * What happened on the way, for the job's error and logs: the command line a user would type, how the process
 * ended, the tail of its stderr, and what the engine adapter noted. Plain data; nothing reads a decision from it.
 */
export interface EngineTrace {
  command?: string;
  /** How the process ended, in the engine kit's words ("exited", "timeout", "idle_timeout", "canceled", ...). */
  end?: string;
  durationMs?: number;
  stderrTail?: string;
  /** What the adapter changed or noticed (a schema conversion, ...). */
  notes?: string[];
  /** Processes left behind by the engine and stopped after it ended. */
  sweptPids?: number[];
  /** The loopback mock model the run talked to, and how many requests it got. */
  mockModel?: { url: string; requests: number };
  /** Repair turns taken before the final answer. */
  repairTurns?: number;
}

/** What every engine run reports, whatever its end. */
interface EngineRunFacts {
  engineVersion?: string;
  exit?: EngineExit;
  usage?: EngineUsage;
  /** How the engine was confined (the agent jail), reported as the job's `engine_confinement`. */
  confinement?: AgentConfinement;
  /** Warnings for the job's result (the engine ran weaker than asked, ...). */
  warnings?: string[];
  /** The raw text the output was parsed from. */
  rawOutput?: string;
  /** Deterministic repairs applied to the raw output ("stripped code fence", ...). */
  repairs?: string[];
  trace?: EngineTrace;
}

/** An engine run that gave a final answer. */
export interface EngineSucceeded extends EngineRunFacts {
  ok: true;
  /** The parsed final output JSON (before schema validation). */
  output?: unknown;
}

/** An engine run that did not. */
export interface EngineFailed extends EngineRunFacts {
  ok: false;
  failure: EngineFailure;
}

/** What `job.execute` returns: a typed value, `ok` deciding which. */
export type EngineOutcome = EngineSucceeded | EngineFailed;

export interface CollectedArtifact {
  field: string;
  role: string;
  filename: string;
  /** Absolute path in the run folder's artifacts/. */
  path: string;
  /** Path relative to the run folder. */
  relativePath: string;
  bytes: number;
}

export type JobStatus = "waiting_upload" | "queued" | "running" | "succeeded" | "failed" | "canceled";

export interface JobResult {
  job_id: string;
  skill_id: string;
  engine: string;
  status: JobStatus;
  output?: unknown;
  artifacts: CollectedArtifact[];
  error?: SerializedError;
  run_dir: string;
  prompt?: string;
  timings: { started_at: string; finished_at?: string; duration_ms?: number; engine_ms?: number; overhead_ms?: number };
  usage?: EngineUsage;
  /** What the job's model calls cost, from the price table; "unpriced" when a model that answered has no price. Set once the engine ran. */
  cost_usd?: number | "unpriced";
  engine_version?: string;
  /** How the engine ran confined (the agent jail's level and network policy). */
  engine_confinement?: AgentConfinement;
  /** Skills the agent activated (`skill_activated` events), distinct, in the order first seen; set once the engine ran. */
  skills_activated?: string[];
  warnings?: string[];
  /** The job failed for its infrastructure, not for what the agent did (EngineFailure's `infrastructure`). */
  infrastructure_failure?: InfrastructureFailure;
}
