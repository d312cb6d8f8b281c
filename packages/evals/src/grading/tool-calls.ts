/**
 * A job's tool calls, file changes and skill activations as trajectory assertions read them, the same on every
 * engine: each engine names its tools its own way (Claude Code `Bash`, Gemini CLI `run_shell_command`, Codex `shell`,
 * an ACP agent the tool its call id or input names), so a call gets a normalised `ToolKind` from its name, and an
 * argument text a pattern is searched in (a shell call's command, else the JSON of its arguments).
 *
 * Pure: the events in, the records out. A record keeps the event's number in the log (`event`, from 1, the line of
 * logs/events.jsonl) so evidence can name the event that decided.
 */
import { isAbsolute, posix, relative, sep } from "node:path";
import type { EngineEvent } from "@skillrig/core";
import type { FileChangeKind, ToolKind } from "../format.js";

export const TOOL_KINDS: readonly ToolKind[] = ["shell", "read", "edit", "search", "fetch", "skill", "other"];

/**
 * Tool names to kinds: Claude Code's, Gemini CLI's (also over ACP, where the call id names the tool), Codex's (as its
 * stream parser names them: `shell`, `apply_patch`, `web_search`) and ACP's own tool kinds (`execute`, ...), which an
 * ACP agent's call is named by when it gives no tool name. Names are matched as written; anything else is `other`.
 */
const KIND_OF_TOOL: Readonly<Record<string, ToolKind>> = {
  // shell
  Bash: "shell",
  BashOutput: "shell",
  run_shell_command: "shell",
  shell: "shell",
  exec_command: "shell",
  local_shell: "shell",
  execute: "shell",
  // read
  Read: "read",
  NotebookRead: "read",
  read_file: "read",
  read_many_files: "read",
  read: "read",
  // edit
  Write: "edit",
  Edit: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  write_file: "edit",
  replace: "edit",
  apply_patch: "edit",
  edit: "edit",
  delete: "edit",
  move: "edit",
  // search
  Grep: "search",
  Glob: "search",
  LS: "search",
  glob: "search",
  grep: "search",
  search_file_content: "search",
  list_directory: "search",
  search: "search",
  // fetch
  WebFetch: "fetch",
  WebSearch: "fetch",
  web_fetch: "fetch",
  google_web_search: "fetch",
  web_search: "fetch",
  fetch: "fetch",
  // skill
  Skill: "skill",
  activate_skill: "skill",
};

export function toolKindOf(tool: string): ToolKind {
  return Object.hasOwn(KIND_OF_TOOL, tool) ? KIND_OF_TOOL[tool]! : "other";
}

export interface ToolCallRecord {
  /** The event's number in the log, from 1. */
  event: number;
  tool: string;
  kind: ToolKind;
  /** What an `args` pattern is searched in: a shell call's command, else the JSON of its arguments ("" for none). */
  argsText: string;
}

export interface FileChangeRecord {
  event: number;
  /** Relative to the workspace, `/`-separated, when the file is in it; else the path as the engine gave it. */
  path: string;
  change: FileChangeKind;
}

export interface ActivationRecord {
  event: number;
  skill: string;
  via: string;
}

/** A job's events, numbered: what a trajectory assertion is graded on. */
export interface Trajectory {
  toolCalls: ToolCallRecord[];
  fileChanges: FileChangeRecord[];
  activations: ActivationRecord[];
}

const CHANGE_NAMES: Readonly<Record<string, FileChangeKind>> = { add: "added", update: "updated", delete: "deleted" };

function argsTextOf(kind: ToolKind, args: unknown): string {
  if (args === undefined || args === null) return "";
  if (typeof args === "string") return args;
  if (kind === "shell" && typeof args === "object" && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    // Claude Code, Gemini CLI and Codex give `command` (a string; codex's may be an argv); an ACP agent that sends no
    // input (Gemini CLI) titles the call with its command.
    const command = record.command ?? record.cmd ?? record.title;
    if (typeof command === "string") return command;
    if (Array.isArray(command) && command.every((c) => typeof c === "string")) return command.join(" ");
  }
  try {
    return JSON.stringify(args) ?? "";
  } catch {
    return "";
  }
}

/** `path` relative to `workspace` with `/` separators when inside it; else as given (normalised, `/`-separated). */
export function workspacePath(path: string, workspace: string | undefined): string {
  if (workspace !== undefined && isAbsolute(path)) {
    const rel = relative(workspace, path);
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return rel.split(sep).join("/");
    return posix.normalize(path.split(sep).join("/"));
  }
  const normal = posix.normalize(path.split(sep).join("/"));
  return normal.startsWith("./") ? normal.slice(2) : normal;
}

/**
 * The trajectory of `events` (in the order the job emitted them; `numbers[i]` is event i's number, default i + 1).
 * A tool call is counted once per call id (an engine may announce one call twice); events of another shape (a log
 * line that is not an event of these types, fields of the wrong type) are left out.
 */
export function trajectoryOf(events: readonly EngineEvent[], workspace?: string, numbers?: readonly number[]): Trajectory {
  const toolCalls: ToolCallRecord[] = [];
  const fileChanges: FileChangeRecord[] = [];
  const activations: ActivationRecord[] = [];
  const seenCalls = new Set<string>();
  events.forEach((event, i) => {
    const number = numbers?.[i] ?? i + 1;
    if (event.type === "tool_call" && typeof event.tool === "string") {
      if (typeof event.id === "string" && event.id !== "") {
        if (seenCalls.has(event.id)) return;
        seenCalls.add(event.id);
      }
      const kind = toolKindOf(event.tool);
      toolCalls.push({ event: number, tool: event.tool, kind, argsText: argsTextOf(kind, event.args) });
    } else if (event.type === "file_change" && typeof event.path === "string" && Object.hasOwn(CHANGE_NAMES, event.kind)) {
      fileChanges.push({ event: number, path: workspacePath(event.path, workspace), change: CHANGE_NAMES[event.kind]! });
    } else if (event.type === "skill_activated" && typeof event.skill === "string") {
      activations.push({ event: number, skill: event.skill, via: typeof event.via === "string" ? event.via : "" });
    }
  });
  return { toolCalls, fileChanges, activations };
}
