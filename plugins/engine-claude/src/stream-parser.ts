/**
 * Parses `claude -p --output-format stream-json --verbose` (one JSON message per stdout line) into skillrig engine
 * events, and keeps what classification needs. The messages Claude Code 2.1 prints:
 *   system/init         model, tools, permission mode, session
 *   system/api_retry    a failed model request it will retry: attempt, max_retries, error_status, error
 *   system/permission_denied   a tool call the permission mode refused: tool_name, message
 *   assistant           a model message: text, tool_use and thinking blocks; an API error it gave up on comes as a
 *                       synthetic assistant message with `is_api_error_message`, `api_error_status`, `error`
 *   user                tool results (`tool_result` blocks, `is_error`), and synthetic prompts it adds itself
 *   result              the end: subtype, is_error, result text, structured_output (--json-schema), usage,
 *                       api_error_status, permission_denials
 */
import { isAbsolute, resolve } from "node:path";
import type { EngineEvent } from "@skillrig/core";
import {
  type EngineFailure,
  type FileChangeTracker,
  fileChangeTracker,
  type SkillActivations,
  type StreamParser,
  skillActivations,
  skillFromToolCall,
} from "@skillrig/engine-kit";

interface ContentBlock {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

interface ClaudeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

interface ClaudeMessage {
  type?: string;
  subtype?: string;
  model?: string;
  session_id?: string;
  message?: { content?: string | ContentBlock[]; model?: string } | string;
  parent_tool_use_id?: string | null;
  isSynthetic?: boolean;
  // system/permission_denied (its `message` is the reason, a string)
  tool_name?: string;
  // system/api_retry
  attempt?: number;
  max_retries?: number;
  retry_delay_ms?: number;
  error_status?: number | null;
  // assistant (API error) and api_retry
  error?: string;
  is_api_error_message?: boolean;
  api_error_status?: number | null;
  // result
  is_error?: boolean;
  result?: string;
  structured_output?: unknown;
  usage?: ClaudeUsage;
  terminal_reason?: string;
  permission_denials?: Array<{ tool_name?: string; tool_input?: unknown }>;
}

/** Claude Code's tools that change files, and the input holding the path. */
const FILE_TOOLS: Record<string, string> = { Write: "file_path", Edit: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path" };

/**
 * Without network Claude Code retries each request 10 times with backoff (minutes); after this many failed
 * connections (api_retry with no HTTP status) skillrig stops it.
 */
export const CONNECTION_FAILURE_LIMIT = 4;

export interface ClaudeStreamParser extends StreamParser {
  /** The result message, when one came. */
  result(): { subtype?: string; isError: boolean; text?: string; structuredOutput?: unknown; apiErrorStatus?: number | null } | undefined;
  /** The HTTP status of the last API error Claude Code reported (a retry or the one it gave up on). */
  apiErrorStatus(): number | undefined;
  /** Tools the permission mode denied (`permission_denials` of the result). */
  permissionDenials(): string[];
  /** Lines of stderr (bounded), for messages. */
  stderrLines(): string[];
  model(): string | undefined;
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (typeof (b as ContentBlock)?.text === "string" ? (b as ContentBlock).text : ""))
      .filter((t) => t !== "")
      .join("\n");
  }
  return content === undefined ? "" : JSON.stringify(content);
}

function contentOf(event: ClaudeMessage): string | ContentBlock[] | undefined {
  return typeof event.message === "object" ? event.message.content : undefined;
}

const AUTH_STATUS = new Set([401, 403]);

/** What the parser learns from the stream as it goes; each kind of message updates it in its own step below. */
interface ClaudeStreamState {
  readonly workspace: string;
  final: string | undefined;
  usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number } | undefined;
  result: ReturnType<ClaudeStreamParser["result"]>;
  model: string | undefined;
  apiErrorStatus: number | undefined;
  connectionFailures: number;
  authRetry: string | undefined;
  readonly errors: string[];
  readonly stderr: string[];
  readonly denials: string[];
  /** The tool calls seen, by id: the tool and, for a file tool, its path and whether the file existed before. */
  readonly tools: Map<string, { tool: string; path?: string; existed?: boolean }>;
  readonly files: FileChangeTracker;
  readonly activations: SkillActivations;
}

function assistantBlocks(state: ClaudeStreamState, blocks: ContentBlock[], sub: boolean): EngineEvent[] {
  const out: EngineEvent[] = [];
  for (const block of blocks) {
    if (block.type === "text" && typeof block.text === "string") {
      // A subagent's text is not the job's answer.
      if (!sub) state.final = block.text;
      out.push({ type: "message", role: "assistant", text: block.text });
    } else if (block.type === "tool_use") {
      const tool = block.name ?? "unknown";
      const key = FILE_TOOLS[tool];
      const raw = key ? block.input?.[key] : undefined;
      const path = typeof raw === "string" ? (isAbsolute(raw) ? raw : resolve(state.workspace, raw)) : undefined;
      state.tools.set(block.id ?? tool, { tool, path, existed: path ? state.files.existedBefore(path) : undefined });
      out.push({ type: "tool_call", id: block.id, tool, args: block.input, status: "started" });
      // Only a tool_use block of a model message: what a command printed arrives as a tool_result, never here.
      out.push(...state.activations.activated([skillFromToolCall(tool, block.input)], tool));
    }
  }
  return out;
}

function toolResults(state: ClaudeStreamState, blocks: ContentBlock[]): EngineEvent[] {
  const out: EngineEvent[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      const call = state.tools.get(block.tool_use_id ?? "");
      const status = block.is_error ? "error" : "success";
      out.push({ type: "tool_result", id: block.tool_use_id, tool: call?.tool, status, output: text(block.content) });
      if (status === "success" && call?.path)
        out.push({ type: "file_change", path: call.path, kind: state.files.kind(call.path, call.existed) });
    } else if (block.type === "text" && typeof block.text === "string") {
      out.push({ type: "message", role: "user", text: block.text });
    }
  }
  return out;
}

/** system/init, system/api_retry and system/permission_denied. */
function systemEvents(state: ClaudeStreamState, event: ClaudeMessage): EngineEvent[] {
  if (event.subtype === "init") {
    state.model = event.model;
    return [{ type: "status", status: "started", message: event.model ? `model ${event.model}` : undefined }];
  }
  if (event.subtype === "api_retry") {
    const status = event.error_status ?? undefined;
    if (status !== undefined) state.apiErrorStatus = status;
    const what = status === undefined ? `no connection (${event.error ?? "unknown error"})` : `HTTP ${status} ${event.error ?? ""}`.trim();
    const message = `model request failed: ${what}; retry ${event.attempt ?? "?"} of ${event.max_retries ?? "?"}`;
    state.errors.push(message);
    if (status === undefined) state.connectionFailures += 1;
    // A rejected key stays rejected: Claude Code would retry it 10 times over about two minutes.
    if (status !== undefined && AUTH_STATUS.has(status))
      state.authRetry ??= `the model API rejected the key (HTTP ${status} ${event.error ?? ""})`.trim();
    return [{ type: "status", status: "warning", message }];
  }
  if (event.subtype === "permission_denied") {
    const why = typeof event.message === "string" ? event.message : "denied";
    return [{ type: "status", status: "warning", message: `permission denied for ${event.tool_name ?? "a tool"}: ${why}` }];
  }
  return [];
}

/** A model message: an API error Claude Code gave up on, plain text, or text and tool_use blocks. */
function assistantEvents(state: ClaudeStreamState, event: ClaudeMessage, sub: boolean): EngineEvent[] {
  const content = contentOf(event);
  if (event.is_api_error_message) {
    if (typeof event.api_error_status === "number") state.apiErrorStatus = event.api_error_status;
    const message = text(content) || event.error || "API error";
    state.errors.push(message);
    return [{ type: "status", status: "error", message }];
  }
  if (typeof content === "string") {
    if (!sub) state.final = content;
    return [{ type: "message", role: "assistant", text: content }];
  }
  return Array.isArray(content) ? assistantBlocks(state, content, sub) : [];
}

/** The result message: how it ended, its answer, the denials and the usage. */
function recordResult(state: ClaudeStreamState, event: ClaudeMessage): void {
  const result = {
    subtype: event.subtype,
    isError: event.is_error === true || (event.subtype !== undefined && event.subtype !== "success"),
    text: event.result,
    structuredOutput: event.structured_output,
    apiErrorStatus: event.api_error_status,
  };
  state.result = result;
  if (typeof event.api_error_status === "number") state.apiErrorStatus = event.api_error_status;
  if (typeof event.result === "string" && event.result !== "" && !result.isError) state.final = event.result;
  if (result.isError) state.errors.push(event.result || `Claude Code ended with ${event.subtype ?? "an error"}`);
  for (const d of event.permission_denials ?? []) state.denials.push(d.tool_name ?? "unknown");
  const u = event.usage;
  if (u) {
    // Anthropic's input_tokens leaves out cached input; the prompt's size is the sum of all three.
    const input = (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    state.usage = { inputTokens: input, outputTokens: u.output_tokens, totalTokens: input + (u.output_tokens ?? 0) };
  }
}

/** One stdout line: a JSON message (anything else is ignored), by its type. */
function lineEvents(state: ClaudeStreamState, line: string): EngineEvent[] {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return [];
  let event: ClaudeMessage;
  try {
    event = JSON.parse(trimmed) as ClaudeMessage;
  } catch {
    return [];
  }
  const sub = typeof event.parent_tool_use_id === "string";
  switch (event.type) {
    case "system":
      return systemEvents(state, event);
    case "assistant":
      return assistantEvents(state, event, sub);
    case "user": {
      const content = contentOf(event);
      if (typeof content === "string") return [{ type: "message", role: "user", text: content }];
      return Array.isArray(content) ? toolResults(state, content) : [];
    }
    case "result":
      recordResult(state, event);
      return [];
    default:
      return [];
  }
}

export function createClaudeStreamParser(workspace: string): ClaudeStreamParser {
  const state: ClaudeStreamState = {
    workspace,
    final: undefined,
    usage: undefined,
    result: undefined,
    model: undefined,
    apiErrorStatus: undefined,
    connectionFailures: 0,
    authRetry: undefined,
    errors: [],
    stderr: [],
    denials: [],
    tools: new Map(),
    files: fileChangeTracker(),
    activations: skillActivations(),
  };
  return {
    stdoutLine: (line) => lineEvents(state, line),
    stderrLine(line) {
      if (state.stderr.length < 400 && line.trim() !== "") state.stderr.push(line);
      return [];
    },
    finalMessage: () => state.final,
    usage: () => state.usage,
    errors: () => state.errors,
    completed: () => state.result !== undefined && !state.result.isError,
    giveUp(): string | EngineFailure | undefined {
      if (state.authRetry) return { kind: "auth", message: state.authRetry };
      if (state.connectionFailures >= CONNECTION_FAILURE_LIMIT) {
        return `it cannot reach the model API (${state.connectionFailures} requests failed without a connection and it would retry for minutes); check the network, the base_url option or a proxy`;
      }
      return undefined;
    },
    result: () => state.result,
    apiErrorStatus: () => state.apiErrorStatus,
    permissionDenials: () => state.denials,
    stderrLines: () => state.stderr,
    model: () => state.model,
  };
}
