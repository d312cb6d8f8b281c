/**
 * `server`: the jobs server's settings (`skillrig serve`).
 * This package reads the section, so it contributes it: the schema fragment validated when the config is loaded
 * (and composed into the editor schema), and the type added to `SkillrigConfig` by declaration merging.
 * Kept free of heavy imports: the CLI loads it to validate a config before anything else is loaded.
 */
import { defineConfigSection } from "@skillrig/core";

/** The `server` section, as written in the config (`resolveServerSettings` normalises it). */
/** A bearer token: written in the config, or `{ "env": "NAME" }`, read from the environment when the server starts. */
export type TokenSource = string | { env: string };

/** One team sharing the server: its tokens, its role and its limits (`resolveServerSettings` normalises them). */
export interface TenantConfig {
  tokens: TokenSource[];
  /** `admin`: this tenant's tokens see, list, stream and cancel every tenant's jobs. Default: only its own. */
  role?: "member" | "admin";
  /** Jobs of this tenant that may wait (waiting_upload + queued); beyond it POST answers 429 (limit `queue_limit`). */
  queue_limit?: number;
  /** Jobs of this tenant waiting for their upload; beyond it POST answers 429 (limit `waiting_upload_limit`). */
  waiting_upload_limit?: number;
  /** Jobs of this tenant running at once on the workers (its other queued jobs wait, others' run). */
  running_limit?: number;
  /** Bytes this tenant's uploads may extract to per UTC day (default 10 GiB); beyond it the upload answers 429 (limit `upload_bytes_per_day`). */
  upload_bytes_per_day?: number;
  /** USD this tenant's jobs may cost per UTC day; once spent, new jobs answer 429 `cost_limit`. */
  max_cost_usd_per_day?: number;
  /** Tokens this tenant's jobs may use per UTC day; once used, new jobs answer 429 `cost_limit`. */
  max_tokens_per_day?: number;
}

export interface ServerConfig {
  host?: string;
  port?: number;
  /** Tokens of the tenant `default` (the single-team setup). */
  tokens?: TokenSource[];
  /** Teams sharing the server, keyed by tenant name: a token sees only its tenant's jobs. */
  tenants?: Record<string, TenantConfig>;
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
  /** Cap on the total bytes a zip upload may extract to, counted as written (zip bombs; default 256 MiB). */
  upload_max_extracted_bytes?: number;
  /** A job waiting for its upload longer than this is canceled (reason `upload_timeout`), freeing its place. Default 10 minutes. */
  upload_wait_ms?: number;
  /** Engine options an API client may set per job (default model, timeout_ms, idle_timeout_ms). */
  client_engine_options?: string[];
  /** Run engines unconfined when the agent jail is unavailable (or an engine sets `jail: "none"`). Default false: refused. */
  allow_unjailed_engines?: boolean;
  /** Largest JSON request body in bytes (default 10 MiB); larger answers 413. */
  json_body_limit_bytes?: number;
  /** Deepest nesting of objects and arrays in a JSON request body (default 160, 16 to 256); deeper answers 422. A task inside a body also keeps to the task limit (128). */
  json_max_depth?: number;
  /** Most test cases of a task sent to the server (default 10000); more answers 422. */
  task_max_cases?: number;
  /** A job running longer than this is stopped: failed, error timeout, reason time_limit (default 7200000: 2 h). */
  job_max_running_ms?: number;
  /** A job in a worker thread still running this long after it was told to stop has its thread ended (default 30000). */
  job_stop_grace_ms?: number;
  /** Most case time a task may ask, the sum of its cases' time limits (default job_max_running_ms); more answers 422. */
  task_max_case_time_ms?: number;
  /** Slots of each worker kept for tenants with no job running (default 1 with two or more tenants, else 0). */
  reserved_slots?: number;
  /** Heap of each job worker thread in MiB (default 1024); a job past it fails with memory_limit. */
  worker_heap_mb?: number;
  /** Most folders an upload's entry path may go down (default 32). */
  upload_max_path_depth?: number;
  /** Longest upload entry path in UTF-8 bytes (default 1024). */
  upload_max_path_bytes?: number;
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    server?: ServerConfig;
  }
}

/** The keys of issue 38's bounds (server-bounds.ts), kept together. */
const BOUND_KEYS = {
  job_max_running_ms: {
    description:
      "A job running longer than this is stopped and ends failed, error timeout, reason time_limit; its run folder keeps what it did (default 7200000: 2 hours).",
    type: "integer",
    minimum: 1000,
  },
  job_stop_grace_ms: {
    description:
      "A job in a worker thread still running this long after it was told to stop (canceled, or past job_max_running_ms) has its worker thread ended and replaced (default 30000).",
    type: "integer",
    minimum: 100,
  },
  task_max_case_time_ms: {
    description:
      "Most case time a task sent to the server may ask: the sum over its cases of each case's time limit (default: job_max_running_ms); more answers 422.",
    type: "integer",
    minimum: 1,
  },
  reserved_slots: {
    description:
      "Slots of each worker process kept for tenants with no job running, so one tenant's long jobs cannot hold every slot (default 1 when two or more tenants have tokens, else 0; at most concurrency - 1 apply).",
    type: "integer",
    minimum: 0,
  },
  worker_heap_mb: {
    description:
      "Heap (V8 old generation) of each job worker thread, in MiB (default 1024); a job whose worker passes it fails with memory_limit.",
    type: "integer",
    minimum: 16,
  },
  upload_max_path_depth: {
    description: "Most folders an upload's zip entry path may go down (default 32); deeper answers 400 upload_unsafe.",
    type: "integer",
    minimum: 1,
  },
  upload_max_path_bytes: {
    description: "Longest zip entry path of an upload in UTF-8 bytes (default 1024); longer answers 400 upload_unsafe.",
    type: "integer",
    minimum: 16,
  },
} as const;

const TOKEN_SOURCE = {
  oneOf: [
    { type: "string", minLength: 16 },
    {
      type: "object",
      additionalProperties: false,
      required: ["env"],
      properties: {
        env: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$", description: "The environment variable holding the token" },
      },
    },
  ],
} as const;

export const serverConfigSection = defineConfigSection({
  section: "server",
  owner: "@skillrig/server",
  schema: {
    description: "The jobs server (`skillrig serve`): address, tokens, concurrency, queue backend and upload limits.",
    type: "object",
    additionalProperties: false,
    properties: {
      host: {
        type: "string",
      },
      port: {
        type: "integer",
        minimum: 0,
        maximum: 65535,
      },
      tokens: {
        description:
          "Bearer tokens of the tenant `default` (16+ characters each), or { env: NAME } to read one from the environment at start.",
        type: "array",
        items: TOKEN_SOURCE,
      },
      tenants: {
        description:
          "Teams sharing the server, keyed by tenant name: each with its tokens and limits. A token sees, lists, streams, uploads to, cancels and downloads only its tenant's jobs (another tenant's job is a 404); role admin sees every tenant's.",
        type: "object",
        propertyNames: { pattern: "^[a-z0-9][a-z0-9_-]{0,63}$" },
        additionalProperties: {
          type: "object",
          additionalProperties: false,
          required: ["tokens"],
          properties: {
            tokens: { type: "array", minItems: 1, items: TOKEN_SOURCE },
            role: { enum: ["member", "admin"], description: "admin sees every tenant's jobs (default member: its own only)" },
            queue_limit: {
              description: "Jobs of this tenant that may wait (waiting_upload + queued); beyond it POST answers 429.",
              type: "integer",
              minimum: 1,
            },
            waiting_upload_limit: {
              description: "Jobs of this tenant waiting for their upload; beyond it POST answers 429.",
              type: "integer",
              minimum: 1,
            },
            running_limit: {
              description: "Jobs of this tenant running at once; the rest of its queued jobs wait while other tenants' run.",
              type: "integer",
              minimum: 1,
            },
            upload_bytes_per_day: {
              description:
                "Bytes this tenant's uploads may extract to per UTC day, counted as they are written (default 10737418240: 10 GiB); beyond it the upload answers 429.",
              type: "integer",
              minimum: 1,
            },
            max_cost_usd_per_day: {
              description:
                "USD this tenant's skill jobs and solve attempts may cost per UTC day (priced from the price table); once spent, new jobs answer 429 cost_limit.",
              type: "number",
              exclusiveMinimum: 0,
            },
            max_tokens_per_day: {
              description: "Tokens this tenant's jobs may use per UTC day; once used, new jobs answer 429 cost_limit.",
              type: "integer",
              minimum: 1,
            },
          },
        },
      },
      concurrency: {
        type: "integer",
        minimum: 1,
      },
      queue_limit: {
        type: "integer",
        minimum: 1,
      },
      data_dir: {
        type: "string",
      },
      on_restart: {
        enum: ["fail", "requeue"],
      },
      role: {
        description:
          "What this process does: all (HTTP API and workers), api (HTTP only) or worker (runs jobs only). api and worker need the redis queue backend.",
        enum: ["all", "api", "worker"],
      },
      queue: {
        description:
          "Where jobs, their events and the queue live: sqlite (one process, the default) or redis (BullMQ; API nodes and workers on several machines sharing data_dir). The other keys are for redis.",
        type: "object",
        additionalProperties: false,
        required: ["backend"],
        properties: {
          backend: {
            enum: ["sqlite", "redis"],
          },
          url: {
            type: "string",
            pattern: "^rediss?://",
          },
          prefix: {
            type: "string",
            pattern: "^[A-Za-z0-9_.-]{1,64}$",
          },
          lock_ms: {
            type: "integer",
            minimum: 1000,
          },
          stalled_check_ms: {
            type: "integer",
            minimum: 500,
          },
          rate_limit: {
            type: "object",
            additionalProperties: false,
            required: ["max", "duration_ms"],
            properties: {
              max: {
                type: "integer",
                minimum: 1,
              },
              duration_ms: {
                type: "integer",
                minimum: 1,
              },
            },
          },
        },
        if: {
          properties: {
            backend: {
              const: "redis",
            },
          },
        },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
        then: {
          required: ["url"],
        },
      },
      upload_limit_bytes: {
        type: "integer",
        minimum: 1,
      },
      upload_max_files: {
        description: "Most entries (files and folders) one zip upload may hold (default 1000); more answers 413.",
        type: "integer",
        minimum: 1,
      },
      upload_max_extracted_bytes: {
        description:
          "Cap on the bytes one zip upload may extract to, counted as they are written (default 268435456: 256 MiB); more answers 413.",
        type: "integer",
        minimum: 1,
      },
      upload_wait_ms: {
        description:
          "A job waiting for its upload longer than this is canceled (reason upload_timeout), so abandoned jobs do not fill the queue or a tenant's limits (default 600000: 10 minutes).",
        type: "integer",
        minimum: 1,
      },
      client_engine_options: {
        description:
          "Engine options an API client may set per job in options.engine (default model, timeout_ms, idle_timeout_ms); others (binary, env, extra_args ...) stay server-side.",
        type: "array",
        items: {
          type: "string",
          minLength: 1,
        },
      },
      json_body_limit_bytes: {
        description: "Largest JSON request body in bytes (default 10485760); a larger one answers 413.",
        type: "integer",
        minimum: 1024,
      },
      json_max_depth: {
        description:
          "Deepest nesting of objects and arrays in a JSON request body (default 160); checked on the raw text before anything reads the value, a deeper body answers 422 naming the limit and the JSON pointer.",
        type: "integer",
        minimum: 16,
        maximum: 256,
      },
      task_max_cases: {
        description: "Most test cases of a task sent to the server (default 10000); more answers 422.",
        type: "integer",
        minimum: 1,
      },
      ...BOUND_KEYS,
      allow_unjailed_engines: {
        description:
          "Run engines outside the agent jail when it is unavailable or an engine sets jail: none. Default false: such a job fails with sandbox_unavailable.",
        type: "boolean",
      },
    },
  },
});
