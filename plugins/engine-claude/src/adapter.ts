import { type EngineAdapter, resolvePackageBin } from "@skillrig/engine-kit";
import { classifyClaudeRun } from "./classify.js";
import { claudeInvocation } from "./command.js";
import { CLAUDE_OPTION_PROPERTIES, type ClaudeOptions } from "./options.js";
import { type ClaudeStreamParser, createClaudeStreamParser } from "./stream-parser.js";

export const claudeAdapter: EngineAdapter<ClaudeOptions> = {
  engine: "claude",
  displayName: "Claude Code",
  contextFileName: "CLAUDE.md",
  optionProperties: CLAUDE_OPTION_PROPERTIES,
  defaultApiKeyEnv: "ANTHROPIC_API_KEY",
  defaultBinary: () => resolvePackageBin("@anthropic-ai/claude-code", "claude", import.meta.url) ?? "claude",
  parseVersion: (stdout) => /\d+\.\d+\.\d+[\w.-]*/.exec(stdout)?.[0],
  // Claude Code appends /v1/messages itself.
  defaultBaseUrl: "https://api.anthropic.com",
  mockBaseUrl: (url) => url,
  invocation: claudeInvocation,
  createParser: (ctx) => createClaudeStreamParser(ctx.dirs.workspace),
  classify: (run, parser) => classifyClaudeRun(run, parser as ClaudeStreamParser),
  // Under --json-schema the answer is the validated StructuredOutput call; else the final text.
  finalAnswer(parser) {
    const result = (parser as ClaudeStreamParser).result();
    if (result?.structuredOutput !== undefined && result.structuredOutput !== null) return JSON.stringify(result.structuredOutput);
    return parser.finalMessage();
  },
};
