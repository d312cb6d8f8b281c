/**
 * `solve`: the defaults of `skillrig solve`.
 * This package reads the section, so it contributes it: the schema fragment validated when the config is loaded
 * (and composed into the editor schema), and the type added to `SkillrigConfig` by declaration merging.
 * Kept free of heavy imports: the CLI loads it to validate a config before anything else is loaded.
 */
import { defineConfigSection } from "@skillrig/core";

/** The `solve` section: the defaults of `skillrig solve`. */
export interface SolveConfig {
  /** Engines (names or variant labels) `skillrig solve` uses when no --engine is given. */
  engines?: string[];
  attempts?: number;
  jobs?: number;
  /** Named variants of an engine (another model, other settings), selectable as `--engine <label>`. */
  variants?: Array<{ label: string; engine: string; options?: Record<string, unknown> }>;
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    solve?: SolveConfig;
  }
}

export const solveConfigSection = defineConfigSection({
  section: "solve",
  owner: "@skillrig/solve",
  schema: {
    description: "The engines, attempts and engine variants of `skillrig solve`.",
    type: "object",
    additionalProperties: false,
    properties: {
      engines: {
        type: "array",
        items: {
          type: "string",
        },
      },
      attempts: {
        type: "integer",
        minimum: 1,
      },
      jobs: {
        type: "integer",
        minimum: 1,
      },
      variants: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["label", "engine"],
          properties: {
            label: {
              type: "string",
              pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$",
            },
            engine: {
              type: "string",
              minLength: 1,
            },
            options: {
              type: "object",
            },
          },
        },
      },
    },
  },
});
