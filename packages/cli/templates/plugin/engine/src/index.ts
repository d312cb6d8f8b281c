/**
 * __NAME__: a skillrig engine plugin for the __ENGINE__ CLI, written on @skillrig/engine-kit.
 * The adapter is what is this CLI's own (its command line, its output stream, how it fails); engine-kit does the rest:
 * the workspace, the agent jail, the process and its timeouts, the final answer and its repair.
 */
import { fileURLToPath } from "node:url";
import { type BaseEngineOptions, createEnginePlugin, type EngineAdapter, type StreamParser } from "@skillrig/engine-kit";

export interface __OPTIONS__ extends BaseEngineOptions {
  /** Add your CLI's own options here, and their JSON Schema in `optionProperties` below. */
  greeting?: string;
}

/** One JSON object per stdout line: `{"type":"message","text":...}`, `{"type":"error","message":...}`, `{"type":"done"}`. */
export function createParser(): StreamParser {
  let final: string | undefined;
  let done = false;
  const errors: string[] = [];
  return {
    stdoutLine(line) {
      let event: { type?: unknown; text?: unknown; message?: unknown };
      try {
        event = JSON.parse(line);
      } catch {
        return []; // not a record of the stream (a blank line, a log line)
      }
      if (event.type === "message" && typeof event.text === "string") {
        final = event.text;
        return [{ type: "message", role: "assistant", text: event.text }];
      }
      if (event.type === "error") errors.push(String(event.message));
      if (event.type === "done") done = true;
      return [];
    },
    finalMessage: () => final,
    usage: () => undefined,
    errors: () => errors,
    completed: () => done,
  };
}

export const adapter: EngineAdapter<__OPTIONS__> = {
  engine: "__ENGINE__",
  displayName: "__DISPLAY__",
  contextFileName: "AGENTS.md",
  optionProperties: { greeting: { type: "string" } },
  // The stand-in CLI needs no model and no key. For a CLI that calls a model API, say auth: "api_key" and name the
  // variable its key is read from (defaultApiKeyEnv), and point mockBaseUrl at what the CLI needs for a mock model.
  auth: "none",
  // The stand-in CLI shipped in bin/; replace it with your CLI's command (found on PATH, or the bin of its package).
  defaultBinary: () => fileURLToPath(new URL("../bin/agent.mjs", import.meta.url)),
  mockBaseUrl: (url) => url,
  invocation: (ctx) => {
    const env: Record<string, string> = {};
    if (ctx.options.greeting) env.AGENT_GREETING = ctx.options.greeting;
    return { args: [ctx.prompt], env };
  },
  createParser: () => createParser(),
  classify: (run, parser) =>
    run.exitCode === 0 && parser.completed()
      ? undefined
      : { kind: "crash", message: parser.errors().at(-1) ?? `__DISPLAY__ exited with code ${run.exitCode}` },
};

export default createEnginePlugin<__OPTIONS__>("__NAME__", adapter);
