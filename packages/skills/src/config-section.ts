/**
 * `skills`: where skill packages are found and how their Python environments are built; `run`: the default job
 * of `skillrig run`, a job request in the shape `runJob` takes (the CLI reads it; the shape is this package's).
 * This package owns the sections, so it contributes them: the schema fragment validated when the config is loaded
 * (and composed into the editor schema), and the type added to `SkillrigConfig` by declaration merging.
 * Kept free of heavy imports: the CLI loads it to validate a config before anything else is loaded.
 */
import { defineConfigSection } from "@skillrig/core";

/** The `skills` section: where skills are found and how their Python environments are built. */
export interface SkillsConfig {
  roots?: string[];
  /** Isolated Python environments for `runtime.dependencies` (see docs/skills.md). */
  python?: { interpreter?: string; find_links?: string[]; index_url?: string; env_dir?: string };
}

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
    skills?: SkillsConfig;
    run?: RunConfig;
  }
}

export const skillsConfigSection = defineConfigSection({
  section: "skills",
  owner: "@skillrig/skills",
  schema: {
    description: "Where skill packages are found and how their Python dependencies are installed.",
    type: "object",
    additionalProperties: false,
    properties: {
      roots: {
        description: "Folders holding skill packages (skills/<id>/...), relative to the config file.",
        type: "array",
        items: {
          type: "string",
        },
      },
      python: {
        description: "How runtime.dependencies of a skill become an isolated Python environment (see docs/skills.md).",
        type: "object",
        additionalProperties: false,
        properties: {
          interpreter: {
            description: "Python used to create environments. Default: python<runtime.version> if on PATH, else python3.",
            type: "string",
          },
          find_links: {
            description: "Folders of wheels/sdists to install from, relative to the config file (pip --find-links).",
            type: "array",
            items: {
              type: "string",
            },
          },
          index_url: {
            description: "A package index URL; without it, installs use only find_links (pip --no-index).",
            type: "string",
          },
          env_dir: {
            description: "Where cached environments live, relative to the config file. Default .skillrig/python-envs.",
            type: "string",
          },
        },
      },
    },
  },
});

export const runConfigSection = defineConfigSection({
  section: "run",
  owner: "@skillrig/skills",
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
export { costConfigSection, type CostConfig } from "./cost-config-section.js";
