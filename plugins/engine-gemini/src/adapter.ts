import { type EngineAdapter, resolvePackageBin } from "@skillrig/engine-kit";
import { classifyGeminiRun } from "./classify.js";
import { geminiInvocation } from "./command.js";
import { GEMINI_OPTION_PROPERTIES, type GeminiOptions } from "./options.js";
import { geminiOutputContract } from "./output-contract.js";
import { createGeminiStreamParser, type GeminiStreamParser } from "./stream-parser.js";

export const geminiAdapter: EngineAdapter<GeminiOptions> = {
  engine: "gemini",
  displayName: "Gemini CLI",
  contextFileName: "GEMINI.md",
  optionProperties: GEMINI_OPTION_PROPERTIES,
  defaultApiKeyEnv: "GEMINI_API_KEY",
  defaultBinary: () => resolvePackageBin("@google/gemini-cli", "gemini", import.meta.url) ?? "gemini",
  parseVersion: (stdout) => /\d+\.\d+\.\d+[\w.-]*/.exec(stdout)?.[0],
  // gemini-cli appends /v1beta/models/... itself.
  defaultBaseUrl: "https://generativelanguage.googleapis.com",
  mockBaseUrl: (url) => url,
  promptSuffix: geminiOutputContract,
  invocation: geminiInvocation,
  createParser: (ctx) => createGeminiStreamParser(ctx.dirs.workspace),
  classify: (run, parser) => classifyGeminiRun(run, parser as GeminiStreamParser),
};
