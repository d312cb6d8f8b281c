/**
 * @skillrig/engine-gemini: runs skill jobs whose engine is "gemini" through the Gemini CLI.
 * In a config: ["@skillrig/engine-gemini", { model: "gemini-2.5-flash", approval_mode: "auto_edit" }].
 */
import { createEnginePlugin } from "@skillrig/engine-kit";
import { geminiAdapter } from "./adapter.js";
import type { GeminiOptions } from "./options.js";

export const GeminiEnginePlugin = createEnginePlugin<GeminiOptions>("@skillrig/engine-gemini", geminiAdapter);
export default GeminiEnginePlugin;
export { geminiAdapter };
export type { GeminiOptions };
export { createGeminiStreamParser } from "./stream-parser.js";
export type { GeminiStreamParser } from "./stream-parser.js";
export { classifyGeminiRun, httpStatusOfExit, apiErrorMessage } from "./classify.js";
export { geminiArgs, geminiSettings } from "./command.js";
export { geminiOutputContract } from "./output-contract.js";
