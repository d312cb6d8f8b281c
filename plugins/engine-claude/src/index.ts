/**
 * @skillrig/engine-claude: runs skill jobs whose engine is "claude" through Claude Code in headless mode (claude -p).
 * In a config: ["@skillrig/engine-claude", { model: "sonnet", permission_mode: "acceptEdits", allowed_tools: ["Bash"] }].
 */
import { createEnginePlugin } from "@skillrig/engine-kit";
import { claudeAdapter } from "./adapter.js";
import type { ClaudeOptions } from "./options.js";

export const ClaudeEnginePlugin = createEnginePlugin<ClaudeOptions>("@skillrig/engine-claude", claudeAdapter);
export default ClaudeEnginePlugin;
export { claudeAdapter };
export type { ClaudeOptions, ClaudePermissionMode } from "./options.js";
export { createClaudeStreamParser, CONNECTION_FAILURE_LIMIT } from "./stream-parser.js";
export type { ClaudeStreamParser } from "./stream-parser.js";
export { classifyClaudeRun } from "./classify.js";
export { claudeArgs, copySkill, linkSkill, QUIET_ENV } from "./command.js";
export { toClaudeSchema } from "./json-schema.js";
export type { ClaudeSchemaResult } from "./json-schema.js";
