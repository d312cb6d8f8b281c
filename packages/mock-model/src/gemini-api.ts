/**
 * Enough of the Gemini API (generativelanguage v1beta) for gemini-cli: `:streamGenerateContent?alt=sse`
 * plays the scenario; `:generateContent` (the CLI's side calls: routing, next-speaker checks) and
 * `:countTokens` get small fixed answers so they never consume a scenario turn.
 */
import type { Turn } from "./scenario.js";
import { turnText } from "./scenario.js";

/** Token counts a mock answer reports: `input` counts cached and cache-write tokens, `output` counts reasoning ones. */
export interface GeminiUsage {
  input: number;
  output: number;
  cached?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** Gemini's usageMetadata: candidates exclude thoughts; the prompt count includes cached content. */
function geminiUsageMetadata(usage: GeminiUsage, output = usage.output): Record<string, number> {
  const reasoning = Math.min(usage.reasoning ?? 0, output);
  return {
    promptTokenCount: usage.input,
    ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
    candidatesTokenCount: output - reasoning,
    ...(reasoning ? { thoughtsTokenCount: reasoning } : {}),
    totalTokenCount: usage.input + output,
  };
}

/** Model turns already in a request's history: each `role: "model"` content is one turn the model took. */
export function geminiModelTurns(body: unknown): number {
  const contents = (body as { contents?: Array<{ role?: string }> } | undefined)?.contents;
  if (!Array.isArray(contents)) return 0;
  return contents.filter((c) => c?.role === "model").length;
}

/** The output of the last function call in a request's history, as text. */
export function geminiLastToolOutput(body: unknown): string | undefined {
  const contents = (
    body as { contents?: Array<{ parts?: Array<{ functionResponse?: { response?: Record<string, unknown> } }> }> } | undefined
  )?.contents;
  if (!Array.isArray(contents)) return undefined;
  let last: string | undefined;
  for (const c of contents) {
    for (const p of c?.parts ?? []) {
      const response = p?.functionResponse?.response;
      if (response) last = typeof response.output === "string" ? response.output : JSON.stringify(response);
    }
  }
  return last;
}

/** The parts of a model answer for a turn (text, or a function call to one of gemini-cli's tools). */
export function geminiParts(turn: Turn, toolOutput?: string): Array<Record<string, unknown>> {
  const text = turnText(turn, toolOutput);
  if (text !== undefined) return [{ text }];
  if ("write_file" in turn)
    return [{ functionCall: { name: "write_file", args: { file_path: turn.write_file.path, content: turn.write_file.content } } }];
  if ("shell" in turn) return [{ functionCall: { name: "run_shell_command", args: { command: turn.shell.command } } }];
  if ("activate_skill" in turn) return [{ functionCall: { name: "activate_skill", args: { name: turn.activate_skill.name } } }];
  throw new Error("turn has no model answer");
}

export function geminiChunk(turn: Turn, model: string, usage: GeminiUsage, toolOutput?: string): Record<string, unknown> {
  return {
    candidates: [{ content: { role: "model", parts: geminiParts(turn, toolOutput) }, finishReason: "STOP", index: 0 }],
    usageMetadata: geminiUsageMetadata(usage),
    modelVersion: model,
  };
}

const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/** A Google API error body; 400/401 come with the API_KEY_INVALID reason, as the real service sends for a bad key. */
export function geminiErrorBody(status: number, message?: string): Record<string, unknown> {
  const keyProblem = status === 400 || status === 401;
  return {
    error: {
      code: status,
      message: message ?? (keyProblem ? "API key not valid. Please pass a valid API key." : `mock-model scripted error ${status}`),
      status: GOOGLE_STATUS[status] ?? "UNKNOWN",
      ...(keyProblem
        ? { details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }] }
        : {}),
    },
  };
}

/**
 * The answer to a side call (`generateContent` without streaming). gemini-cli asks these for JSON
 * (model routing, "who speaks next"); one object that satisfies each of them keeps the CLI on the
 * scripted path: route to the requested model, and the user speaks next.
 */
export function geminiSideAnswer(model: string, usage: GeminiUsage): Record<string, unknown> {
  const text = JSON.stringify({ reasoning: "mock-model side call", next_speaker: "user", model_choice: "flash", complexity_score: 1 });
  return {
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: geminiUsageMetadata({ ...usage, reasoning: 0 }, 1),
    modelVersion: model,
  };
}
