/**
 * The Runner owns every hook point. They are declared once, here, in one frozen object:
 * reading `createHooks` tells you the whole lifecycle of a task run and of a skill job.
 *
 * Data path of an oracle task (packages/oracle):
 *   runStart -> taskStart -> for each case: resolveInput -> caseStart -> execute -> compare (per checked field)
 *   -> caseResult -> taskEnd -> runEnd
 * Data path of a skill job (packages/skills):
 *   runStart -> resolveInput -> renderPrompt -> execute (engine; streams jobEvent) -> collectArtifacts
 *   -> jobResult -> runEnd
 */
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook, SyncHook } from "tapable";
import { PluginConflictError, SkillrigError, type Violation } from "./errors.js";
import type { SkillrigPlugin } from "./plugin.js";
import type { CaseStatus, CaseVerdict, Deliverable, LoadedTask, TaskReport, TestCase } from "./oracle-types.js";
import type { CollectedArtifact, EngineEvent, EngineOutcome, JobRequest, JobResult, RunFolder, SkillManifest } from "./job-types.js";
import type { Sandbox, SandboxRequest } from "./sandbox.js";
import type { SkillrigConfig } from "./config/define-config.js";

/** One task being graded against one deliverable. Plugins keep per-task state in `state` under their name. */
export interface TaskRun {
  loaded: LoadedTask;
  deliverable: Deliverable;
  /** The sandbox every case of this run goes through. */
  sandbox: Sandbox;
  /** Cases run at once. */
  jobs: number;
  signal: AbortSignal;
  /** Per-plugin state for the run, keyed by plugin name (a harness process, a signature cache ...). */
  state: Map<string, unknown>;
}

/** One test case of a task run. */
export interface CaseWork {
  kind: "case";
  run: TaskRun;
  testCase: TestCase;
  index: number;
}

/** One skill job. */
export interface JobWork {
  kind: "job";
  jobId: string;
  request: JobRequest;
  skill: SkillManifest;
  engine: string;
  run: RunFolder;
  /** Options for the engine (config merged with the request's). */
  engineOptions: Record<string, unknown>;
  /** Template context beyond input and parameter: run_dir, skill_dir, workspace_dir, ... */
  context: Record<string, unknown>;
  /** Environment variables the engine's CLI process gets on top of its own (a skill's Python env puts its bin first on PATH). */
  env?: Record<string, string>;
  /** Refuse to run the engine outside the agent jail (the jobs server sets it unless its config opts out). */
  requireEngineJail?: boolean;
  signal: AbortSignal;
  /** Report an engine event; core fans it out through `jobEvent`. */
  emit(event: EngineEvent): void;
}

export type Work = CaseWork | JobWork;

/** The value `resolveInput` refines. Taps add to `violations` rather than throwing, so every problem is listed. */
export interface InputResolution {
  value: unknown;
  violations: Violation[];
  /** For jobs: resolved parameters (defaults filled). */
  parameter?: Record<string, unknown>;
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
  kind: "case";
  /** What the deliverable produced, for the report. */
  actual: unknown;
  /** Set when the run itself ended abnormally; comparison is skipped then. */
  status?: Exclude<CaseStatus, "passed" | "failed">;
  message?: string;
  /** Fields to compare with the compare hook when the run ended normally. */
  comparisons: CaseComparison[];
  details?: Record<string, unknown>;
}

export interface CaseExecuteRequest {
  work: CaseWork;
  /** The input after `resolveInput`. */
  input: unknown;
}

export interface JobExecuteRequest {
  work: JobWork;
  input: Record<string, unknown>;
  parameter: Record<string, unknown>;
  prompt: PromptRendering;
}

export type ExecuteRequest = CaseExecuteRequest | JobExecuteRequest;
export type ExecuteOutcome = CaseOutcome | EngineOutcome;

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

/** The value `collectArtifacts` refines. */
export interface ArtifactCollection {
  output: unknown;
  artifacts: CollectedArtifact[];
  /** Missing required artifacts or result fields; a non-empty list fails the job. */
  problems: Array<{ code: "artifact_missing" | "result_missing" | "schema_violation"; message: string; pointer?: string }>;
}

export interface RunInfo {
  kind: "task" | "job" | "solve" | (string & {});
  id: string;
  startedAt: Date;
}

export interface RunEndInfo extends RunInfo {
  ok: boolean;
  durationMs: number;
  report?: TaskReport;
  result?: JobResult;
}

function createHooks() {
  return Object.freeze({
    /** A run (a task, a job, a solve batch) starts. Observers only. */
    runStart: new AsyncParallelHook<[RunInfo]>(["run"]),
    /** A task run is about to start its cases: plugins set up per-task state (start a harness, probe a signature). */
    taskStart: new AsyncSeriesHook<[TaskRun]>(["taskRun"]),

    /**
     * Waterfall: each tap refines the input of a test case or a job and returns it.
     * Deliverable plugins validate case inputs against the Input Contract; the skills protocol plugin
     * resolves file and inline inputs, fills parameter defaults and validates them against the schemas.
     */
    resolveInput: new AsyncSeriesWaterfallHook<[InputResolution, Work]>(["resolution", "work"]),

    /** Waterfall: each tap refines the prompt text for a job (default template, engine template, patches). */
    renderPrompt: new AsyncSeriesWaterfallHook<[PromptRendering, JobWork]>(["prompt", "work"]),

    /** A case is about to execute (after its input was found valid). Observers only. */
    caseStart: new SyncHook<[CaseWork]>(["work"]),

    /**
     * Bail: the first tap that handles the request returns its outcome; taps return undefined for
     * requests that are not theirs. Deliverable plugins handle `work.kind === "case"` of their type;
     * engine plugins handle `work.kind === "job"` for their engine name.
     */
    execute: new AsyncSeriesBailHook<[ExecuteRequest], ExecuteOutcome | undefined>(["request"]),

    /** Engine events as they stream from a running job (messages, tool calls, file changes, usage). */
    jobEvent: new SyncHook<[EngineEvent, JobWork]>(["event", "work"]),

    /** Waterfall: taps locate artifacts after the engine run and validate the output; returns the collection. */
    collectArtifacts: new AsyncSeriesWaterfallHook<[ArtifactCollection, JobWork]>(["collection", "work"]),

    /** Bail: the tap that knows `request.mode` returns the comparison; undefined means "not my mode". */
    compare: new SyncBailHook<[CompareRequest], CompareResult | undefined>(["request"]),

    /** One case has its verdict. Reporters tap this for live progress. */
    caseResult: new AsyncSeriesHook<[CaseVerdict, CaseWork]>(["verdict", "work"]),
    /** A task run finished: plugins tear down per-task state (stop harnesses). Runs even when cases failed. */
    taskEnd: new AsyncSeriesHook<[TaskRun, TaskReport]>(["taskRun", "report"]),
    /** A job finished (succeeded, failed or canceled). */
    jobResult: new AsyncSeriesHook<[JobResult, JobWork]>(["result", "work"]),
    /** A run ended. Reporters write their files here. */
    runEnd: new AsyncSeriesHook<[RunEndInfo]>(["run"]),

    /** Bail: the first tap returns the Sandbox that runs deliverable code. The default sandbox taps last. */
    sandbox: new SyncBailHook<[SandboxRequest], Sandbox | undefined>(["request"]),

    /** The runner is done (`runner.close()`): plugins stop what lives as long as the runner (warm runtimes). Once. */
    close: new AsyncSeriesHook<[]>([]),
  });
}

export type RunnerHooks = ReturnType<typeof createHooks>;

/** What a plugin can claim. A name may be claimed by one plugin only. */
export type ClaimKind = "deliverable" | "engine" | "compare" | "reporter";

export interface Claim {
  kind: ClaimKind;
  name: string;
  plugin: string;
  /** Free-form facts for listings (`GET /v1/engines`): description, version ... */
  info?: Record<string, unknown>;
}

export interface RunnerOptions {
  /** Working directory that relative paths resolve against. */
  cwd?: string;
  /** The validated config (plugins read their sections from it). */
  config?: SkillrigConfig;
  /** Folder of the config file; config paths resolve against it. Defaults to cwd. */
  configDir?: string;
  /** The config file, for error messages. */
  configFile?: string;
}

const CLAIM_LABEL: Record<ClaimKind, string> = {
  deliverable: "deliverable type",
  engine: "engine",
  compare: "compare mode",
  reporter: "reporter",
};

export class Runner {
  readonly hooks: RunnerHooks = createHooks();
  readonly cwd: string;
  readonly config: SkillrigConfig;
  readonly configDir: string;
  readonly configFile?: string;
  readonly #plugins: SkillrigPlugin[] = [];
  readonly #claims = new Map<string, Claim>();
  #sandboxes = new Map<string, Sandbox>();
  #closing: Promise<void> | undefined;

  constructor(options: RunnerOptions = {}) {
    this.cwd = options.cwd ?? process.cwd();
    this.config = options.config ?? {};
    this.configDir = options.configDir ?? this.cwd;
    this.configFile = options.configFile;
  }

  /** Applies a plugin. Plugins are applied in config order. */
  use(plugin: SkillrigPlugin): this {
    plugin.apply(this);
    this.#plugins.push(plugin);
    return this;
  }

  get plugins(): readonly SkillrigPlugin[] {
    return this.#plugins;
  }

  /**
   * Claims a deliverable type, engine name, compare mode or reporter for `plugin`.
   * A second claim of the same name by another plugin throws a `plugin_conflict` error naming both.
   */
  claim(kind: ClaimKind, name: string, plugin: string, info?: Record<string, unknown>): void {
    const key = `${kind}:${name}`;
    const existing = this.#claims.get(key);
    if (existing && existing.plugin !== plugin) {
      throw new PluginConflictError(
        `${CLAIM_LABEL[kind]} "${name}" is claimed by both plugin "${existing.plugin}" and plugin "${plugin}"; remove one of them from the config`,
        { field: "plugins", details: { kind, name, plugins: [existing.plugin, plugin] } },
      );
    }
    this.#claims.set(key, { kind, name, plugin, info });
  }

  /** The claims of one kind, in the order they were made. */
  claims(kind: ClaimKind): Claim[] {
    return [...this.#claims.values()].filter((c) => c.kind === kind);
  }

  /** The plugin that claimed `name`, if any. */
  claimant(kind: ClaimKind, name: string): Claim | undefined {
    return this.#claims.get(`${kind}:${name}`);
  }

  /** Throws a clear error when nothing claims `name`, listing what is available. */
  requireClaim(kind: ClaimKind, name: string, where?: { file?: string; pointer?: string; field?: string }): Claim {
    const claim = this.claimant(kind, name);
    if (claim) return claim;
    const available = this.claims(kind).map((c) => `"${c.name}"`);
    const code = kind === "engine" ? "engine_not_found" : kind === "deliverable" ? "invalid_task" : "invalid_config";
    throw new SkillrigError(
      code,
      `no plugin handles ${CLAIM_LABEL[kind]} "${name}"` +
        (available.length > 0 ? `; available: ${available.join(", ")}` : `; no ${CLAIM_LABEL[kind]} plugins are configured`),
      { ...where, hint: `add a plugin for ${CLAIM_LABEL[kind]} "${name}" to the "plugins" list of skillrig.config` },
    );
  }

  /**
   * Ends the runner's life: fires `hooks.close` once, so plugins stop what they kept across runs (the function
   * plugin's warm runtime). Every owner of a runner calls it when done; a second call waits for the first.
   */
  close(): Promise<void> {
    this.#closing ??= this.hooks.close.promise();
    return this.#closing;
  }

  /** The sandbox for a purpose, from the `sandbox` hook; the same instance is reused for the runner's life. */
  sandbox(request: SandboxRequest): Sandbox {
    const key = `${request.purpose}:${request.profile ?? "deliverable"}:${request.allowWeaker ? 1 : 0}`;
    let sandbox = this.#sandboxes.get(key);
    if (!sandbox) {
      sandbox = this.hooks.sandbox.call(request);
      if (!sandbox) {
        throw new SkillrigError("sandbox_unavailable", `no sandbox plugin is configured to run ${request.purpose} code`, {
          hint: "add @skillrig/sandbox (included by default) or your own sandbox plugin to the config",
        });
      }
      this.#sandboxes.set(key, sandbox);
    }
    return sandbox;
  }
}
