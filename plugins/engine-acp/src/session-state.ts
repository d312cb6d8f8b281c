/**
 * One ACP turn's state, as engine-kit reads a stream parser: the `session/update` notifications mapped to skillrig's
 * job events (agent message chunks -> message, tool_call / tool_call_update -> tool_call / tool_result, diff
 * content -> file_change, a skill tool -> skill_activated), the agent's last message (the final answer), the errors
 * and whether the prompt turn ended with `end_turn`. stdout itself is the protocol, read by the driver: its lines
 * mean no events here.
 */
import { isAbsolute, relative } from "node:path";
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { EngineEvent } from "@skillrig/core";
import { type StreamParser, skillActivations, skillFromToolCall, skillsReadByCommand } from "@skillrig/engine-kit";

export interface AcpTurnState extends StreamParser {
  /** The events one `session/update` means (and the state it updates). */
  update(update: SessionUpdate): EngineEvent[];
  /** A tool call seen first elsewhere (a permission request): its tool_call event, once. */
  announce(call: ToolCallAnnouncement): EngineEvent[];
  /** The prompt turn ended (`session/prompt`'s stop reason). */
  stopped(reason: string): void;
  stopReason(): string | undefined;
  /** A protocol error, a refused permission, a malformed update: kept, and the last one named in a failure. */
  error(message: string): void;
  /** Problems that did not fail the run (refused permissions, updates that were dropped), oldest first. */
  warnings(): string[];
  warn(message: string): void;
}

interface ToolRecord {
  tool: string;
  args?: unknown;
}

function textOf(content: { type: string; text?: string } | undefined): string | undefined {
  return content?.type === "text" && typeof content.text === "string" ? content.text : undefined;
}

/**
 * The tool a call names: its raw input's tool name when the agent gives one; else the tool a Gemini CLI call id
 * starts with (`run_shell_command__run_shell_command_179..._0`: gemini sends no tool name and no input); else the title.
 */
function toolName(id: string, title: string | null | undefined, kind: string | null | undefined, rawInput: unknown): string {
  const raw = rawInput && typeof rawInput === "object" ? (rawInput as Record<string, unknown>) : undefined;
  const named = raw?.tool ?? raw?.toolName;
  if (typeof named === "string" && named !== "") return named;
  const prefix = /^([A-Za-z][A-Za-z0-9_]*?)__/.exec(id)?.[1];
  return prefix ?? (title?.trim() || kind || "tool");
}

/**
 * Whether a diff adds or updates its file: the agent's own word when it gives one (Gemini CLI sends `_meta.kind`
 * "add" with an empty `oldText` for a new file), else a diff with no old text adds.
 */
function diffKind(diff: { oldText?: string | null; _meta?: { [key: string]: unknown } | null }): "add" | "update" {
  const said = diff._meta?.kind;
  if (said === "add" || said === "update") return said;
  return diff.oldText == null ? "add" : "update";
}

/** What a tool call announces (a `tool_call` update, or the tool call of a permission request). */
export interface ToolCallAnnouncement {
  toolCallId: string;
  title?: string | null;
  kind?: string | null;
  status?: string | null;
  rawInput?: unknown;
}

/** Why a stdout line is not a message the client can use, or undefined when it is one. */
export function protocolProblem(line: string): string | undefined {
  if (line.trim() === "") return undefined;
  const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return `the agent printed a line that is not a JSON-RPC message (dropped): ${shown}`;
  }
  const m = message as { method?: unknown; params?: { update?: { sessionUpdate?: unknown } } } | null;
  if (m === null || typeof m !== "object") return `the agent printed a line that is not a JSON-RPC message (dropped): ${shown}`;
  if (m.method === "session/update" && typeof m.params?.update?.sessionUpdate !== "string")
    return `the agent sent a malformed session/update (no update kind; dropped): ${shown}`;
  return undefined;
}

export function createAcpTurnState(workspace: string): AcpTurnState {
  let message = "";
  let lastMessage: string | undefined;
  let stop: string | undefined;
  const errors: string[] = [];
  const warnings: string[] = [];
  const tools = new Map<string, ToolRecord>();
  const activations = skillActivations();

  const pathOf = (path: string) => (isAbsolute(path) ? relative(workspace, path) || path : path);

  const skillEvents = (tool: string, title: string | null | undefined, args: unknown): EngineEvent[] => {
    // Gemini CLI titles its activate_skill call `"<skill>": <description>` (and sends no input): the name it was given.
    const titled = tool === "activate_skill" && args == null && title ? /^"([A-Za-z0-9][A-Za-z0-9._-]*)":/.exec(title)?.[1] : undefined;
    const named = [skillFromToolCall(tool, args), titled];
    // Gemini's ACP tool calls carry no tool name: its activate_skill call is titled by the skill, its kind "other";
    // the input (rawInput) is not sent. A title naming a skill's SKILL.md path counts as Codex's way does.
    const read = title ? skillsReadByCommand(title) : [];
    return [...activations.activated(named, tool), ...activations.activated(read, "read SKILL.md")];
  };

  const fileChanges = (content: ToolCallContent[] | null | undefined): EngineEvent[] =>
    (content ?? [])
      .filter((c): c is Extract<ToolCallContent, { type: "diff" }> => c.type === "diff")
      .map((c) => ({ type: "file_change", path: pathOf(c.path), kind: diffKind(c) }));

  const toolOutput = (content: ToolCallContent[] | null | undefined, rawOutput: unknown): string | undefined => {
    const texts = (content ?? []).flatMap((c) => (c.type === "content" ? [textOf(c.content)] : [])).filter((t) => t !== undefined);
    if (texts.length > 0) return texts.join("\n");
    return rawOutput === undefined || rawOutput === null
      ? undefined
      : typeof rawOutput === "string"
        ? rawOutput
        : JSON.stringify(rawOutput);
  };

  /** The tool_call event (and any skill it activates) of a call not seen before; nothing for a known one. */
  const announce = (call: ToolCallAnnouncement): EngineEvent[] => {
    if (tools.has(call.toolCallId)) return [];
    endMessage();
    const tool = toolName(call.toolCallId, call.title, call.kind, call.rawInput);
    // An agent that sends no input (gemini) still titles the call (its shell command, the file it edits).
    const args = call.rawInput ?? (call.title && call.title !== tool ? { title: call.title } : undefined);
    tools.set(call.toolCallId, { tool, args });
    return [
      { type: "tool_call", id: call.toolCallId, tool, ...(args !== undefined ? { args } : {}), status: call.status ?? "pending" },
      ...skillEvents(tool, call.title, call.rawInput),
    ];
  };

  const endMessage = () => {
    if (message !== "") lastMessage = message;
    message = "";
  };

  return {
    announce,
    update(update) {
      switch (update.sessionUpdate) {
        case "agent_message_chunk": {
          const text = textOf(update.content);
          if (!text) return [];
          message += text;
          return [{ type: "message", role: "assistant", text, delta: true }];
        }
        case "tool_call":
        case "tool_call_update": {
          const events = announce(update);
          if (update.status !== "completed" && update.status !== "failed") return events;
          const tool = tools.get(update.toolCallId)!.tool;
          const output = toolOutput(update.content, update.rawOutput);
          events.push({
            type: "tool_result",
            id: update.toolCallId,
            tool,
            status: update.status,
            ...(output !== undefined ? { output } : {}),
          });
          events.push(...fileChanges(update.content));
          return events;
        }
        default:
          return [];
      }
    },
    stopped(reason) {
      stop = reason;
      endMessage();
    },
    stopReason: () => stop,
    error(text) {
      errors.push(text);
    },
    warn(text) {
      warnings.push(text);
    },
    warnings: () => [...warnings],
    // The SDK reads the protocol; a line it must drop (not JSON, or an update with no known shape) is said here too.
    stdoutLine(line) {
      const problem = protocolProblem(line);
      if (problem === undefined) return [];
      warnings.push(problem);
      return [{ type: "status", status: "warning", message: problem }];
    },
    finalMessage: () => (message !== "" ? message : lastMessage),
    usage: () => undefined,
    errors: () => [...errors],
    completed: () => stop === "end_turn",
  };
}
