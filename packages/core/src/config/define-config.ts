import type { SkillrigPlugin } from "../plugin.js";

/** A plugin in the config: an instance, a package name (or ./path), or [name, options]. */
export type PluginEntry = SkillrigPlugin | string | [string] | [string, Record<string, unknown>];

export interface SandboxLimitsConfig {
  cpu_ms?: number;
  memory_bytes?: number;
  processes?: number;
  output_bytes?: number;
  file_bytes?: number;
}

/** The config file's shape. `config.schema.json` is its JSON Schema; keep the two in step. */
export interface SkillrigConfig {
  $schema?: string;
  plugins?: PluginEntry[];
  /** Apply the built-in plugins (function/script/cli deliverables, default sandbox, compare modes). Default true. */
  builtins?: boolean;
  skills?: {
    roots?: string[];
    /** Isolated Python environments for `runtime.dependencies` (see @skillrig/skills). */
    python?: { interpreter?: string; find_links?: string[]; index_url?: string; env_dir?: string };
  };
  /** Where run folders go, relative to the config file. Default `.skillrig/runs`. */
  runs_dir?: string;
  oracle?: { jobs?: number; timeout_ms?: number; strict?: boolean };
  sandbox?: {
    level?: "auto" | "namespaces" | "rlimits" | "none";
    /** Fail instead of falling back when the strongest level is not available. */
    require_strongest?: boolean;
    limits?: SandboxLimitsConfig;
  };
  /** The default job of `skillrig run` when no skill is named. */
  run?: {
    skill: string;
    engine: string;
    input?: Record<string, unknown>;
    parameter?: Record<string, unknown>;
    files?: Record<string, string>;
    timeout_ms?: number;
  };
  server?: {
    host?: string;
    port?: number;
    tokens?: string[];
    concurrency?: number;
    queue_limit?: number;
    data_dir?: string;
    on_restart?: "fail" | "requeue";
    /** all (HTTP and workers, the default), api (HTTP only) or worker (jobs only); api and worker need queue.backend redis. */
    role?: "all" | "api" | "worker";
    /** sqlite: one process (default). redis: BullMQ queue, records and event streams in Redis, data_dir shared by every node. */
    queue?:
      | { backend: "sqlite" }
      | {
          backend: "redis";
          /** redis://[user:password@]host:port[/db] (rediss:// for TLS). */
          url: string;
          /** Key prefix (default "skillrig"), so several servers can share one Redis. */
          prefix?: string;
          /** How long a worker's hold on a job lasts without renewal (default 10000); bounds crash detection. */
          lock_ms?: number;
          /** How often workers look for jobs whose worker died (default 5000). */
          stalled_check_ms?: number;
          /** At most `max` jobs started per `duration_ms` across all workers. */
          rate_limit?: { max: number; duration_ms: number };
        };
    upload_limit_bytes?: number;
    upload_max_files?: number;
    /** Cap on the total bytes a zip upload may extract to (zip bombs). */
    upload_max_extracted_bytes?: number;
    /** A job waiting for its upload longer than this is canceled (reason `upload_timeout`). */
    upload_wait_ms?: number;
    /** Engine options an API client may set per job (default model, timeout_ms, idle_timeout_ms). */
    client_engine_options?: string[];
    /** Run engines unconfined when the agent jail is unavailable (or an engine sets `jail: "none"`). Default false: refused. */
    allow_unjailed_engines?: boolean;
  };
  solve?: {
    /** Engines (names or variant labels) `skillrig solve` uses when no --engine is given. */
    engines?: string[];
    attempts?: number;
    jobs?: number;
    /** Named variants of an engine (another model, other settings), selectable as `--engine <label>`. */
    variants?: Array<{ label: string; engine: string; options?: Record<string, unknown> }>;
  };
}

/** Identity function that exists only to give a config file types. */
export function defineConfig(config: SkillrigConfig): SkillrigConfig {
  return config;
}
