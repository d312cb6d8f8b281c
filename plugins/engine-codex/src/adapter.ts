import { defaultFinalAnswer, type EngineAdapter, readAgentFile, resolvePackageBin } from "@skillrig/engine-kit";
import { classifyCodexRun } from "./classify.js";
import { codexInvocation, lastMessageFile } from "./command.js";
import { CODEX_OPTION_PROPERTIES, type CodexOptions } from "./options.js";
import { dropAddedNulls } from "./strict-schema.js";
import { createCodexStreamParser, type CodexStreamParser } from "./stream-parser.js";

export const codexAdapter: EngineAdapter<CodexOptions> = {
  engine: "codex",
  displayName: "Codex CLI",
  contextFileName: "AGENTS.md",
  optionProperties: CODEX_OPTION_PROPERTIES,
  defaultApiKeyEnv: "CODEX_API_KEY",
  defaultBinary: () => resolvePackageBin("@openai/codex", "codex", import.meta.url) ?? "codex",
  parseVersion: (stdout) => /\d+\.\d+\.\d+[\w.-]*/.exec(stdout)?.[0],
  defaultBaseUrl: "https://api.openai.com/v1",
  mockBaseUrl: (url) => `${url}/v1`,
  invocation: codexInvocation,
  createParser: () => createCodexStreamParser(),
  classify: (run, parser) => classifyCodexRun(run, parser as CodexStreamParser),
  finalAnswer(parser, ctx) {
    // The engine folder is the agent's: a symlink it left there is not followed.
    const text = readAgentFile(ctx.dirs.engineDir, lastMessageFile(ctx));
    if (text !== undefined && text.trim() !== "") return text;
    return defaultFinalAnswer(parser, ctx);
  },
  finalizeOutput(value, ctx) {
    if (ctx.outputSchema === undefined || ctx.options.output_schema === false) return [];
    const removed = dropAddedNulls(value, ctx.outputSchema);
    return removed.length > 0 ? [`dropped nulls strict mode put in optional fields: ${removed.join(", ")}`] : [];
  },
};
