import type { BaseEngineOptions } from "@skillrig/engine-kit";

export type ClaudePermissionMode = "acceptEdits" | "bypassPermissions" | "dontAsk" | "default";

export interface ClaudeOptions extends BaseEngineOptions {
  /**
   * `--permission-mode`. `acceptEdits` (default): file edits and simple file-system commands run, anything else that
   * needs approval is denied (nobody answers a prompt in `-p`); `bypassPermissions`: every tool call runs (the CLI
   * refuses it as root unless `IS_SANDBOX=1` is in `env`); `dontAsk` / `default`: only what is allowed runs.
   */
  permission_mode?: ClaudePermissionMode;
  /** `--allowedTools`: tool rules that run without approval in any mode, e.g. `["Bash"]` or `["Bash(python3 *)"]`. */
  allowed_tools?: string[];
  /** Pass the skill's output schema with `--json-schema` (default true): the model answers through a validated tool. */
  output_schema?: boolean;
  /** How often the CLI retries a failed request (`CLAUDE_CODE_MAX_RETRIES`; default 0 with mock_scenario, else the CLI's 10). */
  retries?: number;
  /** Written as `.claude/settings.json` in the CLI's isolated home (hooks, permissions, env, ...). */
  settings?: Record<string, unknown>;
}

export const CLAUDE_OPTION_PROPERTIES = {
  permission_mode: { enum: ["acceptEdits", "bypassPermissions", "dontAsk", "default"] },
  allowed_tools: { type: "array", items: { type: "string", minLength: 1 } },
  output_schema: { type: "boolean" },
  retries: { type: "integer", minimum: 0, maximum: 100 },
  settings: { type: "object" },
};
