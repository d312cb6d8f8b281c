/**
 * `run`: the default job of `skillrig run` (read by the CLI's `run` command).
 * This package reads the section, so it contributes it: the schema fragment validated when the config is loaded
 * (and composed into the editor schema), and the type added to `SkillrigConfig` by declaration merging.
 * Kept free of heavy imports: the CLI loads it to validate a config before anything else is loaded.
 */
import { defineConfigSection } from "@skillrig/core";

/** The `run` section: the default job of `skillrig run` when no skill is named. */
export interface RunConfig {
  skill: string;
  engine: string;
  input?: Record<string, unknown>;
  parameter?: Record<string, unknown>;
  files?: Record<string, string>;
  timeout_ms?: number;
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    run?: RunConfig;
  }
}

export const runConfigSection = defineConfigSection({
  section: "run",
  owner: "@skillrig/cli",
  schema: {
    description: "The default job of `skillrig run` when no skill is named.",
    type: "object",
    additionalProperties: false,
    required: ["skill", "engine"],
    properties: {
      skill: {
        type: "string",
      },
      engine: {
        type: "string",
      },
      input: {
        type: "object",
      },
      parameter: {
        type: "object",
      },
      files: {
        type: "object",
        additionalProperties: {
          type: "string",
        },
      },
      timeout_ms: {
        type: "integer",
        minimum: 1,
      },
    },
  },
});
