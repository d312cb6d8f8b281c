import type { BaseEngineOptions } from "@skillrig/engine-kit";

export interface CodexOptions extends BaseEngineOptions {
  /** codex's --sandbox: `workspace-write` (default; the run workspace is writable), `read-only`, `danger-full-access`. */
  sandbox?: "read-only" | "workspace-write" | "danger-full-access";
  /** Pass the skill's output schema, converted to strict form, with --output-schema (default true). */
  output_schema?: boolean;
  /** How often codex retries a failed model request or stream (default: 0 with mock_scenario, else codex's own). */
  retries?: number;
  /** `-c key=value` config overrides (values are TOML), added after skillrig's own. */
  config?: Record<string, string | number | boolean>;
}

export const CODEX_OPTION_PROPERTIES = {
  sandbox: { enum: ["read-only", "workspace-write", "danger-full-access"] },
  output_schema: { type: "boolean" },
  retries: { type: "integer", minimum: 0, maximum: 100 },
  config: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } },
};
