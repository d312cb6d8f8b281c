/**
 * Enough of Anthropic's Messages API for Claude Code (`claude -p`), written as a dialect like any outside one:
 *   POST /v1/messages (`?beta=true`), streamed as server-sent events (message_start, content_block_start /
 *     content_block_delta / content_block_stop, message_delta with usage, message_stop), or one JSON message
 *     when the request says `stream: false` (Claude Code's fallback after a failed stream);
 *   POST /v1/messages/count_tokens: a fixed count, no turn used;
 *   HEAD|GET /api/hello: the connectivity probe Claude Code sends on start, answered 200.
 * A text turn is a text block; a file write is a `tool_use` of Claude Code's `Write` tool, a shell command one of
 * its `Bash` tool, a skill activation one of its `Skill` tool; a json turn (and an echo_tool_output turn whose tool output is a JSON object) is a call of the
 * `StructuredOutput` tool when the request offers it (what Claude Code offers under `--json-schema`, and what a real
 * model then calls), else text. Errors come in Anthropic's shape: `{"type":"error","error":{"type":"authentication_error",...}}`.
 */
import { defineDialect, type DialectReply, type DialectRequest, type SseEvent } from "./dialect.js";
import { turnText } from "./scenario.js";

interface AnthropicBlock {
  type?: string;
  text?: string;
  content?: unknown;
}

interface AnthropicMessage {
  role?: string;
  content?: string | AnthropicBlock[];
}

function messagesOf(request: DialectRequest): AnthropicMessage[] {
  const messages = (request.body as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) ? (messages as AnthropicMessage[]) : [];
}

/** A tool_result's content (a string, or a list of blocks whose text parts are joined) as text. */
function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (typeof (b as AnthropicBlock)?.text === "string" ? (b as AnthropicBlock).text : ""))
      .filter((t) => t !== "")
      .join("\n");
  }
  return content === undefined ? "" : JSON.stringify(content);
}

/** The tool Claude Code offers under `--json-schema`; the final answer is its input. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

function jsonObject(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text ?? "");
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The names of the tools a request offers. */
export function offeredTools(request: DialectRequest): string[] {
  const tools = (request.body as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? tools.map((t) => (t as { name?: unknown })?.name).filter((n): n is string => typeof n === "string") : [];
}

/** The content block a turn becomes: text, or a tool_use of Claude Code's Write, Bash or StructuredOutput tool. */
export function anthropicContentBlock(
  turn: Parameters<typeof turnText>[0],
  serial: number,
  options: { toolOutput?: string; tools?: string[] } = {},
): Record<string, unknown> {
  const id = `toolu_mock_${String(serial).padStart(4, "0")}`;
  if (options.tools?.includes(STRUCTURED_OUTPUT_TOOL)) {
    if ("json" in turn) return { type: "tool_use", id, name: STRUCTURED_OUTPUT_TOOL, input: turn.json };
    // A script's JSON printout passed on as the answer goes through the tool too, as a real model would.
    const printed = "echo_tool_output" in turn ? jsonObject(options.toolOutput) : undefined;
    if (printed) return { type: "tool_use", id, name: STRUCTURED_OUTPUT_TOOL, input: printed };
  }
  const text = turnText(turn, options.toolOutput);
  if (text !== undefined) return { type: "text", text };
  if ("write_file" in turn)
    return { type: "tool_use", id, name: "Write", input: { file_path: turn.write_file.path, content: turn.write_file.content } };
  if ("shell" in turn) return { type: "tool_use", id, name: "Bash", input: { command: turn.shell.command, description: "Run a command" } };
  // Claude Code's Skill tool takes the skill's name from its listing (input schema: skill, optional args).
  if ("activate_skill" in turn) return { type: "tool_use", id, name: "Skill", input: { skill: turn.activate_skill.name } };
  throw new Error(`the Anthropic dialect has no answer for a turn with ${Object.keys(turn).join(", ")}`);
}

/** Anthropic counts cache reads and writes apart from `input_tokens` (the uncached rest). */
function anthropicInputUsage(usage: { input: number; cached?: number; cacheWrite?: number }): Record<string, number> {
  const cached = usage.cached ?? 0;
  const written = usage.cacheWrite ?? 0;
  return {
    input_tokens: Math.max(0, usage.input - cached - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
  };
}

/** The events of one streamed message holding `block`. */
export function anthropicStreamEvents(
  block: Record<string, unknown>,
  meta: { id: string; model: string; usage: { input: number; output: number; cached?: number; cacheWrite?: number } },
): SseEvent[] {
  const toolUse = block.type === "tool_use";
  const events: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id: meta.id,
        type: "message",
        role: "assistant",
        model: meta.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...anthropicInputUsage(meta.usage), output_tokens: 1 },
      },
    },
    {
      type: "content_block_start",
      index: 0,
      content_block: toolUse ? { type: "tool_use", id: block.id, name: block.name, input: {} } : { type: "text", text: "" },
    },
    {
      type: "content_block_delta",
      index: 0,
      delta: toolUse ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) } : { type: "text_delta", text: block.text },
    },
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: toolUse ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: meta.usage.output },
    },
    { type: "message_stop" },
  ];
  return events.map((data) => ({ event: data.type as string, data }));
}

const ERROR_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** An Anthropic API error body; 401 reads as the real service's answer to a bad key. */
export function anthropicErrorBody(status: number, message?: string): Record<string, unknown> {
  return {
    type: "error",
    error: {
      type: ERROR_TYPE[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"),
      message: message ?? (status === 401 ? "invalid x-api-key" : `mock-model scripted error ${status}`),
    },
    request_id: `req_mock_${status}`,
  };
}

const DEFAULT_MODEL = "claude-mock";

export const anthropicDialect = defineDialect({
  name: "anthropic",
  matches: (request) =>
    (request.method === "POST" && /^(\/v1)?\/messages(\/count_tokens)?$/.test(request.path)) ||
    ((request.method === "HEAD" || request.method === "GET") && request.path === "/api/hello"),
  sideReply(request, context) {
    if (request.path === "/api/hello") return { json: { message: "hello" } };
    if (request.path.endsWith("/count_tokens")) return { json: { input_tokens: context.usage.input } };
    return undefined;
  },
  model: (request) => {
    const model = (request.body as { model?: unknown } | undefined)?.model;
    return typeof model === "string" ? model : undefined;
  },
  apiKey: (request) => {
    const key = request.headers["x-api-key"];
    if (typeof key === "string") return key;
    const auth = request.headers.authorization;
    return typeof auth === "string" && auth.startsWith("Bearer ") ? auth.slice(7) : undefined;
  },
  // Each assistant message in the history is one turn the model took (a turn is a message or a tool call).
  modelTurns: (request) => messagesOf(request).filter((m) => m?.role === "assistant").length,
  lastToolOutput(request) {
    let last: string | undefined;
    for (const message of messagesOf(request)) {
      if (!Array.isArray(message?.content)) continue;
      for (const block of message.content) if (block?.type === "tool_result") last = toolResultText(block.content);
    }
    return last;
  },
  reply(turn, context): DialectReply {
    const block = anthropicContentBlock(turn, context.serial, { toolOutput: context.toolOutput, tools: offeredTools(context.request) });
    const meta = { id: `msg_mock_${String(context.serial).padStart(4, "0")}`, model: context.model ?? DEFAULT_MODEL, usage: context.usage };
    if ((context.request.body as { stream?: unknown } | undefined)?.stream === true) return { sse: anthropicStreamEvents(block, meta) };
    return {
      json: {
        id: meta.id,
        type: "message",
        role: "assistant",
        model: meta.model,
        content: [block],
        stop_reason: block.type === "tool_use" ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { ...anthropicInputUsage(meta.usage), output_tokens: meta.usage.output },
      },
    };
  },
  errorReply: (status, message) => ({ status, json: anthropicErrorBody(status, message) }),
});
