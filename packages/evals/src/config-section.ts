/**
 * `evals`: the bounds of `skillrig eval`'s grading, on what an eval's checker asks of the runner.
 * This package reads the section, so it contributes it (the schema fragment validated when the config is loaded, and
 * the type added to `SkillrigConfig`). Kept free of heavy imports: the CLI loads it before anything else.
 */
import { defineConfigSection } from "@skillrig/core";

/** The `evals` section. Every key has a default a shared machine can live with (docs/sandbox.md, the bounds table). */
export interface EvalsConfig {
  /** A regex assertion's search is stopped after this long (ms). */
  regex_time_limit_ms?: number;
  /** Sealed runs of the agent's program a checker may ask for (`skillrig_sealed`). */
  sealed_runs?: {
    /** Sealed runs per script assertion. */
    max_runs?: number;
    /** Bytes of one request (argv, stdin and the named files, as sent). */
    max_request_bytes?: number;
    /** Time limit of one sealed run when the request names none, and the most it may name (ms). */
    timeout_ms?: number;
    /** Connections to the channel open at once (one is served, the others wait); past it a connection is closed. */
    max_connections?: number;
  };
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    evals?: EvalsConfig;
  }
}

export const DEFAULT_EVALS_BOUNDS = {
  regex_time_limit_ms: 5000,
  sealed_runs: { max_runs: 500, max_request_bytes: 16 * 1024 * 1024, timeout_ms: 10_000, max_connections: 16 },
} as const;

export const evalsConfigSection = defineConfigSection({
  section: "evals",
  owner: "@skillrig/evals",
  schema: {
    description:
      "Bounds of `skillrig eval`'s grading: the regex search time limit and a script checker's sealed runs of the agent's program.",
    type: "object",
    additionalProperties: false,
    properties: {
      regex_time_limit_ms: {
        type: "integer",
        minimum: 1,
        description: "A regex assertion's search is stopped after this long (default 5000).",
      },
      sealed_runs: {
        type: "object",
        additionalProperties: false,
        properties: {
          max_runs: { type: "integer", minimum: 1, description: "Sealed runs per script assertion (default 500)." },
          max_request_bytes: { type: "integer", minimum: 1024, description: "Bytes of one sealed-run request (default 16 MiB)." },
          max_connections: { type: "integer", minimum: 1, description: "Connections to the sealed-run channel open at once (default 16)." },
          timeout_ms: {
            type: "integer",
            minimum: 1,
            description: "A sealed run's time limit when the request names none, and the most it may name (default 10000).",
          },
        },
      },
    },
  },
});
