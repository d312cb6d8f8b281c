/**
 * Enough of the OpenAI Responses API (`POST /v1/responses`, streamed as server-sent events) for codex exec.
 * A turn becomes one output item: an assistant message, or a function call to codex's `exec_command`
 * tool (file writes go through `apply_patch`, which codex runs itself and reports as a file change; a skill
 * activation is `cat` of the SKILL.md path codex lists for the skill).
 */
import type { Turn } from "./scenario.js";
import { turnText } from "./scenario.js";

interface ResponsesInputItem {
  type?: string;
  role?: string;
}

/**
 * Model turns already in a request's history: each function call the model made and each assistant
 * message is one turn (a scenario turn is either a tool call or a message, never both).
 */
export function responsesModelTurns(body: unknown): number {
  const input = (body as { input?: ResponsesInputItem[] } | undefined)?.input;
  if (!Array.isArray(input)) return 0;
  return input.filter(
    (i) =>
      (i?.type === "function_call" && (i as { name?: string }).name !== WAIT_TOOL) ||
      i?.type === "custom_tool_call" ||
      i?.type === "local_shell_call" ||
      (i?.type === "message" && i.role === "assistant"),
  ).length;
}

/** codex's tool that writes to (or, with no characters, waits on) a command still running: not a scenario turn. */
const WAIT_TOOL = "write_stdin";

/**
 * The session of a command codex left running: an `exec_command` answers after its yield time (10 s by default)
 * with "Process running with session ID N" while the command goes on. A real model waits on it with
 * `write_stdin`; so does the mock, before it plays the next turn (else a slow command on a loaded machine is cut
 * off when the job ends, and its output is lost).
 */
export function responsesRunningSession(body: unknown): number | undefined {
  const input = (body as { input?: Array<{ type?: string; output?: unknown }> } | undefined)?.input;
  if (!Array.isArray(input)) return undefined;
  const outputs = input.filter((i) => i?.type === "function_call_output");
  const last = outputs[outputs.length - 1]?.output;
  const match = typeof last === "string" ? /Process running with session ID (\d+)/.exec(last) : null;
  return match ? Number(match[1]) : undefined;
}

/** The output of the last function call in a request's input, as text. */
export function responsesLastToolOutput(body: unknown): string | undefined {
  const input = (body as { input?: Array<{ type?: string; output?: unknown }> } | undefined)?.input;
  if (!Array.isArray(input)) return undefined;
  const outputs = input.filter((i) => i?.type === "function_call_output" || i?.type === "custom_tool_call_output");
  const last = outputs[outputs.length - 1]?.output;
  return last === undefined ? undefined : typeof last === "string" ? commandOutput(last) : JSON.stringify(last);
}

/**
 * What the command itself printed: codex frames an exec's output with a few header lines ("Wall time: ...",
 * "Process exited with code 0", ...) and "Output:"; a model echoing the output answers with the command's text.
 */
function commandOutput(text: string): string {
  const framed = /^(?:[^\n]*\n){0,6}?Output:\n([\s\S]*)$/.exec(text);
  return framed ? framed[1]! : text;
}

const PATCH_EOF = "SKILLRIG_MOCK_PATCH_EOF";

/** An apply_patch invocation that adds (or replaces) one file. */
export function applyPatchCommand(path: string, content: string): string {
  const body = content.endsWith("\n") ? content.slice(0, -1) : content;
  const lines = body.split("\n").map((l) => `+${l}`);
  return [`apply_patch <<'${PATCH_EOF}'`, "*** Begin Patch", `*** Add File: ${path}`, ...lines, "*** End Patch", PATCH_EOF, ""].join("\n");
}

/** Every string in a JSON value (the request's instructions and input texts), in order. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/**
 * Where codex says skill `name`'s SKILL.md is, from its skill list in the request: an entry
 * `- <name>: <description> (file: r1/<name>/SKILL.md)` whose short path expands through the "Skill roots" table
 * (`` - `r1` = `/abs/.agents/skills` ``), or an absolute `(file: /abs/.../SKILL.md)`. Undefined when codex did not
 * list the skill (it is not installed).
 */
export function listedSkillFile(body: unknown, name: string): string | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const entry = new RegExp(`^- ${escaped}: .*\\(file: ([^)\\n]+/SKILL\\.md)\\)\\s*$`, "m");
  for (const text of stringsOf(body)) {
    const file = entry.exec(text)?.[1];
    if (file === undefined) continue;
    if (file.startsWith("/")) return file;
    const [root, ...rest] = file.split("/");
    for (const line of text.split("\n")) {
      const m = /^- `([^`]+)` = `([^`]+)`\s*$/.exec(line);
      if (m && m[1] === root) return [m[2]!.replace(/\/+$/, ""), ...rest].join("/");
    }
  }
  return undefined;
}

/** A POSIX shell single-quoted word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

export function responsesOutputItem(turn: Turn, n: number, toolOutput?: string, body?: unknown): Record<string, unknown> {
  if ("activate_skill" in turn) {
    // codex has no skill tool: its model reads the SKILL.md codex listed, as a real model does.
    const file = listedSkillFile(body, turn.activate_skill.name);
    const cmd = file ? `cat ${shellQuote(file)}` : undefined;
    if (cmd)
      return { type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, name: "exec_command", arguments: JSON.stringify({ cmd }) };
    turn = { text: `mock-model: codex lists no skill named "${turn.activate_skill.name}" in this request` };
  }
  const text = turnText(turn, toolOutput);
  if (text !== undefined) {
    return {
      type: "message",
      role: "assistant",
      id: `msg_${n}`,
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    };
  }
  let cmd: string;
  if ("write_file" in turn) cmd = applyPatchCommand(turn.write_file.path, turn.write_file.content);
  else if ("shell" in turn) cmd = turn.shell.command;
  else throw new Error("turn has no model answer");
  return { type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, name: "exec_command", arguments: JSON.stringify({ cmd }) };
}

type ResponsesUsage = { input: number; output: number; cached?: number; reasoning?: number };

/** The SSE events of one response. */
export function responsesEvents(
  turn: Turn,
  n: number,
  usage: ResponsesUsage,
  toolOutput?: string,
  body?: unknown,
): Array<Record<string, unknown>> {
  return responseOf(responsesOutputItem(turn, n, toolOutput, body), n, usage, body);
}

/** The SSE events of a response that waits (up to 30 s, codex's longest yield) on a command still running. */
export function responsesWaitEvents(session: number, n: number, usage: ResponsesUsage, body?: unknown): Array<Record<string, unknown>> {
  const args = { session_id: session, chars: "", yield_time_ms: 30_000 };
  const item = { type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, name: WAIT_TOOL, arguments: JSON.stringify(args) };
  return responseOf(item, n, usage, body);
}

function responseOf(item: Record<string, unknown>, n: number, usage: ResponsesUsage, body: unknown): Array<Record<string, unknown>> {
  const id = `resp_${n}`;
  return [
    { type: "response.created", response: { id, status: "in_progress" } },
    { type: "response.output_item.added", output_index: 0, item },
    { type: "response.output_item.done", output_index: 0, item },
    {
      type: "response.completed",
      response: {
        id,
        status: "completed",
        ...(typeof (body as { model?: unknown } | undefined)?.model === "string" ? { model: (body as { model: string }).model } : {}),
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: usage.cached ?? 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: Math.min(usage.reasoning ?? 0, usage.output) },
          total_tokens: usage.input + usage.output,
        },
      },
    },
  ];
}

/** An OpenAI API error body; 401 reads as the real service's bad-key answer. */
export function responsesErrorBody(status: number, message?: string): Record<string, unknown> {
  if (status === 401) {
    return {
      error: {
        message: message ?? "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    };
  }
  if (status === 429) {
    // The real service's rate limit (not `insufficient_quota`, which is a billing state no retry mends).
    return {
      error: {
        message: message ?? "Rate limit reached for requests (mock-model scripted 429). Please try again in 1s.",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    };
  }
  return {
    error: {
      message: message ?? `mock-model scripted error ${status}`,
      type: status >= 500 ? "server_error" : "invalid_request_error",
      param: null,
      code: null,
    },
  };
}
