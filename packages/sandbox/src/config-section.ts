/**
 * `sandbox`: the isolation level of the default sandbox and the default limits of a case.
 * This package reads the section, so it contributes it: the schema fragment validated when the config is loaded
 * (and composed into the editor schema), and the type added to `SkillrigConfig` by declaration merging.
 * Kept free of heavy imports: the CLI loads it to validate a config before anything else is loaded.
 */
import { defineConfigSection, type SandboxLimitsConfig } from "@skillrig/core";
import { AGENT_BOUNDS_SCHEMA, type AgentBoundsConfig } from "./agent-bounds.js";

/** The `sandbox` section: the default sandbox's isolation level and a case's default limits. */
export interface SandboxConfig {
  level?: "auto" | "namespaces" | "rlimits" | "none";
  /** Fail instead of falling back when the strongest level is not available. */
  require_strongest?: boolean;
  limits?: SandboxLimitsConfig;
  /** Bounds on an agent (an engine CLI and its tool commands): agent-bounds.ts. */
  agent?: AgentBoundsConfig;
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    sandbox?: SandboxConfig;
  }
}

export const sandboxConfigSection = defineConfigSection({
  section: "sandbox",
  owner: "@skillrig/sandbox",
  schema: {
    description:
      "How deliverables and agents are confined: the isolation level, the default resource limits of a case, and the bounds on an agent.",
    type: "object",
    additionalProperties: false,
    properties: {
      level: {
        enum: ["auto", "namespaces", "rlimits", "none"],
      },
      require_strongest: {
        type: "boolean",
      },
      agent: AGENT_BOUNDS_SCHEMA,
      limits: {
        type: "object",
        additionalProperties: false,
        properties: {
          cpu_ms: {
            type: "integer",
            minimum: 1,
          },
          memory_bytes: {
            type: "integer",
            minimum: 1,
          },
          processes: {
            type: "integer",
            minimum: 1,
          },
          output_bytes: {
            type: "integer",
            minimum: 1,
          },
          file_bytes: {
            type: "integer",
            minimum: 1,
          },
          disk_bytes: {
            description:
              "The most a case may have on disk in its folder (and its temp folder where that is on disk), all files together; past it the case ends output_limit. Default 256 MiB.",
            type: "integer",
            minimum: 1,
          },
        },
      },
    },
  },
});
