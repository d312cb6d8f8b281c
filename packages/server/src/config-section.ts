/**
 * `server`: the jobs server's settings (`skillrig serve`).
 * This package reads the section, so it contributes it: the schema fragment validated when the config is loaded
 * (and composed into the editor schema), and the type added to `SkillrigConfig` by declaration merging.
 * Kept free of heavy imports: the CLI loads it to validate a config before anything else is loaded.
 */
import { defineConfigSection } from "@skillrig/core";

/** The `server` section, as written in the config (`resolveServerSettings` normalises it). */
export interface ServerConfig {
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
  /** Largest JSON request body in bytes (default 10 MiB); larger answers 413. */
  json_body_limit_bytes?: number;
  /** Deepest nesting of objects and arrays in a JSON request body (default 160, 16 to 256); deeper answers 422. A task inside a body also keeps to the task limit (128). */
  json_max_depth?: number;
  /** Most test cases of a task sent to the server (default 10000); more answers 422. */
  task_max_cases?: number;
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    server?: ServerConfig;
  }
}

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
        type: "array",
        items: {
          type: "string",
          minLength: 16,
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
        type: "integer",
        minimum: 1,
      },
      upload_max_extracted_bytes: {
        description: "Cap on the total bytes a zip upload may extract to (zip bombs).",
        type: "integer",
        minimum: 1,
      },
      upload_wait_ms: {
        description:
          "A job waiting for its upload longer than this is canceled (reason upload_timeout), so abandoned jobs do not fill the queue.",
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
      allow_unjailed_engines: {
        description:
          "Run engines outside the agent jail when it is unavailable or an engine sets jail: none. Default false: such a job fails with sandbox_unavailable.",
        type: "boolean",
      },
    },
  },
});
