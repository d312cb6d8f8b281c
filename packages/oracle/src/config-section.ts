/**
 * `oracle`: how deliverables are graded (`skillrig test`, the server's oracle runs, the deliverable plugins' default case timeout).
 * This package reads the section, so it contributes it: the schema fragment validated when the config is loaded
 * (and composed into the editor schema), and the type added to `SkillrigConfig` by declaration merging.
 * Kept free of heavy imports: the CLI loads it to validate a config before anything else is loaded.
 */
import { defineConfigSection } from "@skillrig/core";

/** The `oracle` section: how deliverables are graded. */
export interface OracleConfig {
  /** Cases run at once. */
  jobs?: number;
  /** A case's wall-clock limit when neither the case nor the task sets one. */
  timeout_ms?: number;
  /** Refuse to run a task any of whose cases break the Input Contract (nothing runs), as `--strict` does. */
  strict?: boolean;
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    oracle?: OracleConfig;
  }
}

export const oracleConfigSection = defineConfigSection({
  section: "oracle",
  owner: "@skillrig/oracle",
  schema: {
    description: "How `skillrig test` and the server grade deliverables: parallel cases, the default case timeout, strict mode.",
    type: "object",
    additionalProperties: false,
    properties: {
      jobs: {
        type: "integer",
        minimum: 1,
      },
      timeout_ms: {
        type: "integer",
        minimum: 1,
      },
      strict: {
        type: "boolean",
      },
    },
  },
});
