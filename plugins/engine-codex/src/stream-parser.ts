/**
 * Parses `codex exec --json` (one JSON event per stdout line: thread.started, turn.started,
 * item.started/updated/completed, turn.completed, turn.failed, error) into skillrig engine events.
 * Items: agent_message, reasoning, command_execution, file_change, mcp_tool_call, web_search, todo_list, error.
 */
import type { EngineEvent } from "@skillrig/core";
import { type SkillActivations, type StreamParser, skillActivations, skillsReadByCommand } from "@skillrig/engine-kit";

interface CodexItem {
  id?: string;
  type?: string;
  text?: string;
  message?: string;
  command?: string;
  aggregated_output?: string;
  exit_code?: number | null;
  status?: string;
  changes?: Array<{ path: string; kind: string }>;
  server?: string;
  tool?: string;
  arguments?: unknown;
  query?: string;
}

interface CodexEvent {
  type?: string;
  thread_id?: string;
  message?: string;
  item?: CodexItem;
  usage?: { input_tokens?: number; cached_input_tokens?: number; output_tokens?: number; reasoning_output_tokens?: number };
  error?: { message?: string };
}

export interface CodexStreamParser extends StreamParser {
  /** The message of `turn.failed`, when the turn failed. */
  turnFailure(): string | undefined;
  /** Lines of stderr (bounded). */
  stderrLines(): string[];
  threadId(): string | undefined;
}

/** codex without network retries forever; after this many "waiting for network" reports skillrig stops it. */
export const NETWORK_WAIT_LIMIT = 3;

const CHANGE_KIND: Record<string, "add" | "update" | "delete"> = { add: "add", update: "update", delete: "delete", modify: "update" };

/** What the parser learns from the stream as it goes; each kind of event updates it in its own step below. */
interface CodexStreamState {
  final: string | undefined;
  usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number } | undefined;
  completed: boolean;
  failure: string | undefined;
  threadId: string | undefined;
  networkWaits: number;
  readonly errors: string[];
  readonly stderr: string[];
  readonly activations: SkillActivations;
}

/** A shell command: its call (and the skills it reads), then its result. */
function commandEvents(state: CodexStreamState, phase: "started" | "completed", item: CodexItem): EngineEvent[] {
  return phase === "started"
    ? [
        { type: "tool_call", id: item.id, tool: "shell", args: { command: item.command }, status: "started" },
        // codex has no skill tool: its model reads the SKILL.md path codex listed. Only the command codex ran
        // counts, never what it printed (aggregated_output).
        ...state.activations.activated(skillsReadByCommand(item.command ?? ""), "read SKILL.md"),
      ]
    : [
        {
          type: "tool_result",
          id: item.id,
          tool: "shell",
          status: item.status ?? (item.exit_code === 0 ? "completed" : "failed"),
          output: item.aggregated_output,
        },
      ];
}

/** apply_patch: its call, then its result and the files it changed (none when it failed). */
function fileChangeEvents(phase: "started" | "completed", item: CodexItem): EngineEvent[] {
  if (phase === "started")
    return [{ type: "tool_call", id: item.id, tool: "apply_patch", args: { changes: item.changes }, status: "started" }];
  const out: EngineEvent[] = [{ type: "tool_result", id: item.id, tool: "apply_patch", status: item.status ?? "completed" }];
  if (item.status !== "failed") {
    for (const c of item.changes ?? []) out.push({ type: "file_change", path: c.path, kind: CHANGE_KIND[c.kind] ?? "update" });
  }
  return out;
}

function mcpToolEvents(phase: "started" | "completed", item: CodexItem): EngineEvent[] {
  const tool = `${item.server ?? "mcp"}.${item.tool ?? "tool"}`;
  return phase === "started"
    ? [{ type: "tool_call", id: item.id, tool, args: item.arguments, status: "started" }]
    : [{ type: "tool_result", id: item.id, tool, status: item.status ?? "completed" }];
}

function itemEvents(state: CodexStreamState, phase: "started" | "completed", item: CodexItem): EngineEvent[] {
  switch (item.type) {
    case "agent_message":
      if (phase === "completed" && typeof item.text === "string") {
        state.final = item.text;
        return [{ type: "message", role: "assistant", text: item.text }];
      }
      return [];
    case "command_execution":
      return commandEvents(state, phase, item);
    case "file_change":
      return fileChangeEvents(phase, item);
    case "mcp_tool_call":
      return mcpToolEvents(phase, item);
    case "web_search":
      return phase === "started" ? [{ type: "tool_call", id: item.id, tool: "web_search", args: { query: item.query } }] : [];
    case "error":
      // Non-fatal notices ("Model metadata ... not found", "Falling back from WebSockets").
      if (phase === "completed" && item.message) {
        state.errors.push(item.message);
        return [{ type: "status", status: "warning", message: item.message }];
      }
      return [];
    default:
      return [];
  }
}

/** One stdout line: a JSON event (anything else is ignored), by its type. */
function lineEvents(state: CodexStreamState, line: string): EngineEvent[] {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return [];
  let event: CodexEvent;
  try {
    event = JSON.parse(trimmed) as CodexEvent;
  } catch {
    return [];
  }
  switch (event.type) {
    case "thread.started":
      state.threadId = event.thread_id;
      return [{ type: "status", status: "started", message: event.thread_id ? `thread ${event.thread_id}` : undefined }];
    case "item.started":
      return event.item ? itemEvents(state, "started", event.item) : [];
    case "item.completed":
      return event.item ? itemEvents(state, "completed", event.item) : [];
    case "turn.completed": {
      state.completed = true;
      const u = event.usage ?? {};
      const total = (u.input_tokens ?? 0) + (u.output_tokens ?? 0);
      state.usage = { inputTokens: u.input_tokens, outputTokens: u.output_tokens, totalTokens: total };
      return [];
    }
    case "turn.failed": {
      const failure = event.error?.message ?? "the turn failed";
      state.failure = failure;
      state.errors.push(failure);
      return [{ type: "status", status: "error", message: failure }];
    }
    case "error":
      if (event.message) state.errors.push(event.message);
      if (event.message?.startsWith("Reconnecting... waiting for network")) state.networkWaits += 1;
      return [{ type: "status", status: "error", message: event.message }];
    default:
      return [];
  }
}

export function createCodexStreamParser(): CodexStreamParser {
  const state: CodexStreamState = {
    final: undefined,
    usage: undefined,
    completed: false,
    failure: undefined,
    threadId: undefined,
    networkWaits: 0,
    errors: [],
    stderr: [],
    activations: skillActivations(),
  };
  return {
    stdoutLine: (line) => lineEvents(state, line),
    stderrLine(line) {
      if (state.stderr.length < 400) state.stderr.push(line);
      return [];
    },
    finalMessage: () => state.final,
    usage: () => state.usage,
    errors: () => state.errors,
    completed: () => state.completed,
    giveUp: () =>
      state.networkWaits >= NETWORK_WAIT_LIMIT
        ? `it cannot reach the model API (it reported "${state.errors.at(-1)}" ${state.networkWaits} times and would retry forever); check the network, the base_url option or a proxy`
        : undefined,
    turnFailure: () => state.failure,
    stderrLines: () => state.stderr,
    threadId: () => state.threadId,
  };
}
