/**
 * @skillrig/engine-codex: runs skill jobs whose engine is "codex" through the Codex CLI (codex exec).
 * In a config: ["@skillrig/engine-codex", { model: "gpt-5.1-codex", sandbox: "workspace-write" }].
 */
import { createEnginePlugin } from "@skillrig/engine-kit";
import { codexAdapter } from "./adapter.js";
import type { CodexOptions } from "./options.js";

export const CodexEnginePlugin = createEnginePlugin<CodexOptions>("@skillrig/engine-codex", codexAdapter);
export default CodexEnginePlugin;
export { codexAdapter };
export type { CodexOptions };
export { createCodexStreamParser } from "./stream-parser.js";
export type { CodexStreamParser } from "./stream-parser.js";
export { classifyCodexRun } from "./classify.js";
export { codexArgs } from "./command.js";
export { toStrictSchema, dropAddedNulls } from "./strict-schema.js";
export type { StrictSchemaResult } from "./strict-schema.js";
