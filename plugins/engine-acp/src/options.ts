import type { BaseEngineOptions } from "@skillrig/engine-kit";
import type { ToolKind } from "@agentclientprotocol/sdk";

/** How the agent's permission requests are answered (never by a person: a headless run has none). */
export type AcpPermissionPolicy = "allow_all" | "deny_all" | { allow: ToolKind[] };

export interface AcpOptions extends BaseEngineOptions {
  /** The agent's command line in ACP mode: `["gemini", "--acp"]`. Its first word is the executable (as `binary`). */
  command: string[];
  /** The engine name this instance claims (`work.engine`); several instances with other names run side by side. */
  name: string;
  /** Shown in messages; default `ACP agent <name>`. */
  display_name?: string;
  /**
   * Permission requests: "allow_all", "deny_all" (default), or `{ allow: [tool kinds] }` (ACP's kinds: read, edit,
   * delete, move, search, execute, think, fetch, switch_mode, other). A request the policy does not allow is refused.
   */
  permissions?: AcpPermissionPolicy;
  /** A session mode to switch to after `session/new` (`session/set_mode`), when the agent offers it. */
  mode?: string;
  /** Variables the agent gets the API key in (read from skillrig's `api_key_env`); default GEMINI_API_KEY. */
  key_env?: string[];
  /** Variables the agent gets with the model base URL (the mock model's or `base_url`); default GOOGLE_GEMINI_BASE_URL. */
  base_url_env?: string[];
  /**
   * Files written into the agent's isolated HOME before it starts, by path relative to it: the agent's own settings
   * (`{ ".gemini/settings.json": "{...}" }`). A value that is an object is written as JSON.
   */
  home_files?: Record<string, string | Record<string, unknown>>;
  /** The context file the agent reads from its workspace; default AGENTS.md. */
  context_file?: string;
}

const TOOL_KINDS = ["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"];

export const ACP_OPTION_PROPERTIES = {
  command: { type: "array", minItems: 1, items: { type: "string", minLength: 1 } },
  name: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]*$" },
  display_name: { type: "string", minLength: 1 },
  permissions: {
    anyOf: [
      { enum: ["allow_all", "deny_all"] },
      {
        type: "object",
        additionalProperties: false,
        required: ["allow"],
        properties: { allow: { type: "array", items: { enum: TOOL_KINDS } } },
      },
    ],
  },
  mode: { type: "string", minLength: 1 },
  key_env: { type: "array", items: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" } },
  base_url_env: { type: "array", items: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" } },
  home_files: {
    type: "object",
    propertyNames: { pattern: "^(?!/)(?!.*(^|/)\\.\\.(/|$)).+$" },
    additionalProperties: { anyOf: [{ type: "string" }, { type: "object" }] },
  },
  context_file: { type: "string", pattern: "^[^/]+$" },
};

/** The options every instance must have. */
export const ACP_REQUIRED_OPTIONS = ["command", "name"];
