/**
 * Parses `gemini -o stream-json` (one JSON event per stdout line: init, message, tool_use, tool_result,
 * error, result) into skillrig engine events, and keeps what classification needs: the final assistant
 * message, usage, the result status and every error the CLI reported (its stderr included).
 */
import { isAbsolute, resolve } from "node:path";
import type { EngineEvent } from "@skillrig/core";
import { fileChangeTracker, skillActivations, skillFromToolCall, type StreamParser } from "@skillrig/engine-kit";

interface GeminiEvent {
  type?: string;
  role?: string;
  content?: string;
  delta?: boolean;
  model?: string;
  tool_name?: string;
  tool_id?: string;
  parameters?: Record<string, unknown>;
  status?: string;
  output?: string;
  message?: string;
  severity?: string;
  error?: { type?: string; message?: string };
  stats?: { total_tokens?: number; input_tokens?: number; output_tokens?: number; duration_ms?: number };
}

/** Tools of gemini-cli that change files, and the parameter holding the path. */
const FILE_TOOLS: Record<string, string> = { write_file: "file_path", replace: "file_path", edit: "file_path" };

/** gemini without network retries with backoff for minutes; after this many failed fetches skillrig stops it. */
export const FETCH_FAILURE_LIMIT = 4;
const FETCH_FAILED = /^Attempt \d+ failed\. Retrying with backoff\.\.\. .*fetch failed/;

export interface GeminiStreamParser extends StreamParser {
  /** The `result` event's status ("success" / "error"), when one came. */
  resultStatus(): string | undefined;
  /** Lines of stderr (bounded), for messages. */
  stderrLines(): string[];
  model(): string | undefined;
}

export function createGeminiStreamParser(workspace: string): GeminiStreamParser {
  let current = "";
  let final: string | undefined;
  let usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number } | undefined;
  let result: string | undefined;
  let model: string | undefined;
  const errors: string[] = [];
  const stderr: string[] = [];
  const tools = new Map<string, { tool: string; path?: string; existed?: boolean }>();
  const files = fileChangeTracker();
  const activations = skillActivations();
  let stderrJson: string[] | undefined;
  let fetchFailures = 0;

  const closeMessage = () => {
    if (current !== "") final = current;
    current = "";
  };

  return {
    stdoutLine(line) {
      const trimmed = line.trim();
      if (!trimmed.startsWith("{")) return [];
      let event: GeminiEvent;
      try {
        event = JSON.parse(trimmed) as GeminiEvent;
      } catch {
        return [];
      }
      const out: EngineEvent[] = [];
      switch (event.type) {
        case "init":
          model = event.model;
          out.push({ type: "status", status: "started", message: event.model ? `model ${event.model}` : undefined });
          break;
        case "message":
          if (event.role === "assistant" && typeof event.content === "string") {
            current = event.delta ? current + event.content : event.content;
            final = current;
            out.push({ type: "message", role: "assistant", text: event.content, delta: event.delta === true });
          } else if (event.role === "user" && typeof event.content === "string") {
            out.push({ type: "message", role: "user", text: event.content });
          }
          break;
        case "tool_use": {
          closeMessage();
          const tool = event.tool_name ?? "unknown";
          const key = FILE_TOOLS[tool];
          const raw = key ? event.parameters?.[key] : undefined;
          const path = typeof raw === "string" ? (isAbsolute(raw) ? raw : resolve(workspace, raw)) : undefined;
          tools.set(event.tool_id ?? tool, { tool, path, existed: path ? files.existedBefore(path) : undefined });
          out.push({ type: "tool_call", id: event.tool_id, tool, args: event.parameters, status: "started" });
          // Only gemini's own tool_use record: a command's printout is inside a tool_result's output, never a line.
          out.push(...activations.activated([skillFromToolCall(tool, event.parameters)], tool));
          break;
        }
        case "tool_result": {
          const call = tools.get(event.tool_id ?? "");
          const status = event.status ?? "unknown";
          const output = event.error?.message ?? event.output;
          out.push({ type: "tool_result", id: event.tool_id, tool: call?.tool, status, output });
          if (status === "success" && call?.path)
            out.push({ type: "file_change", path: call.path, kind: files.kind(call.path, call.existed) });
          break;
        }
        case "error":
          if (event.message) errors.push(event.message);
          out.push({ type: "status", status: event.severity === "warning" ? "warning" : "error", message: event.message });
          break;
        case "result":
          closeMessage();
          result = event.status;
          if (event.error?.message) errors.push(event.error.message);
          if (event.stats) {
            usage = {
              inputTokens: event.stats.input_tokens,
              outputTokens: event.stats.output_tokens,
              totalTokens: event.stats.total_tokens,
            };
          }
          break;
        default:
          break;
      }
      return out;
    },
    stderrLine(line) {
      if (stderr.length < 400) stderr.push(line);
      if (FETCH_FAILED.test(line)) fetchFailures += 1;
      // With -o json the CLI prints its fatal error as a pretty JSON object on stderr; gather it.
      if (line === "{") stderrJson = [line];
      else if (stderrJson) {
        stderrJson.push(line);
        if (line === "}") {
          try {
            const parsed = JSON.parse(stderrJson.join("\n")) as { error?: { message?: string } };
            if (parsed.error?.message) errors.push(parsed.error.message);
          } catch {
            // not the error object after all
          }
          stderrJson = undefined;
        }
      }
      return [];
    },
    finalMessage: () => final,
    usage: () => usage,
    errors: () => errors,
    completed: () => result === "success",
    giveUp: () =>
      fetchFailures >= FETCH_FAILURE_LIMIT
        ? `it cannot reach the model API (${fetchFailures} requests failed with "fetch failed" and it would retry for minutes); check the network, the base_url option or a proxy`
        : undefined,
    resultStatus: () => result,
    stderrLines: () => stderr,
    model: () => model,
  };
}
