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
  /**
   * Bounds on a process case's `files` keys (input and expected), checked before any case runs; a key past one makes
   * its case `invalid_test_format`. Defaults: depth 32, a name 255 bytes, a path 1024 bytes, 1000 files.
   */
  case_files?: { max_depth?: number; max_name_bytes?: number; max_path_bytes?: number; max_files?: number };
  /**
   * Bounds on a failure diff, whatever the deliverable returned. Defaults: 40 lines, a full line diff only for sides
   * up to 2000 lines and 500 edits (else the window at the first difference), lines cut at 240 characters.
   */
  diff?: { max_lines?: number; full_diff_max_lines?: number; full_diff_max_edits?: number; max_line_chars?: number };
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
      case_files: {
        description:
          "Bounds on a process case's `files` keys, checked when the task is read (past one: the case is invalid_test_format). Defaults: max_depth 32, max_name_bytes 255, max_path_bytes 1024, max_files 1000.",
        type: "object",
        additionalProperties: false,
        properties: {
          max_depth: { type: "integer", minimum: 1, maximum: 4096 },
          max_name_bytes: { type: "integer", minimum: 1, maximum: 255 },
          max_path_bytes: { type: "integer", minimum: 1, maximum: 4096 },
          max_files: { type: "integer", minimum: 1 },
        },
      },
      diff: {
        description:
          "Bounds on a failure diff, whatever the deliverable returned. Defaults: max_lines 40, full_diff_max_lines 2000, full_diff_max_edits 500, max_line_chars 240; past the full-diff bounds the diff is a window at the first difference.",
        type: "object",
        additionalProperties: false,
        properties: {
          max_lines: { type: "integer", minimum: 10, maximum: 10000 },
          full_diff_max_lines: { type: "integer", minimum: 0, maximum: 100000 },
          full_diff_max_edits: { type: "integer", minimum: 0, maximum: 10000 },
          max_line_chars: { type: "integer", minimum: 40, maximum: 100000 },
        },
      },
    },
  },
});
