/**
 * Reading token usage out of model API responses, in the dialects the engines speak: Gemini (generateContent,
 * streamGenerateContent as SSE or as a JSON array), OpenAI Responses (and Chat Completions), Anthropic Messages,
 * streamed and not. Every dialect reports cumulative figures (the last chunk's usage covers the whole answer), so a
 * reading overwrites the fields it has. Figures are normalised to the usage record's words: input counts cached
 * tokens, output counts reasoning tokens.
 */
import type { UsageCounts } from "@skillrig/core";

/** What one response (or one event of it) said. */
export interface UsageReading extends UsageCounts {
  model?: string;
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

/** A token count is a non-negative integer; anything else is not a figure (and is not trusted as one). */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function defined(reading: UsageReading): UsageReading {
  return Object.fromEntries(Object.entries(reading).filter(([, v]) => v !== undefined)) as UsageReading;
}

function modelOf(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= 200 ? value : undefined;
}

function sum(...values: Array<number | undefined>): number | undefined {
  return values.every((v) => v === undefined) ? undefined : values.reduce<number>((a, v) => a + (v ?? 0), 0);
}

/** Gemini's usageMetadata: the prompt count includes cached content; candidates exclude thoughts. */
function gemini(usage: Json, model: unknown): UsageReading {
  const thoughts = count(usage.thoughtsTokenCount);
  return defined({
    model: modelOf(model),
    inputTokens: sum(count(usage.promptTokenCount), count(usage.toolUsePromptTokenCount)),
    cachedInputTokens: count(usage.cachedContentTokenCount),
    outputTokens: sum(count(usage.candidatesTokenCount), thoughts),
    reasoningTokens: thoughts,
  });
}

/** OpenAI Responses: input includes cached tokens, output includes reasoning tokens. */
function responses(usage: Json, model: unknown): UsageReading {
  return defined({
    model: modelOf(model),
    inputTokens: count(usage.input_tokens),
    cachedInputTokens: count(obj(usage.input_tokens_details)?.cached_tokens),
    outputTokens: count(usage.output_tokens),
    reasoningTokens: count(obj(usage.output_tokens_details)?.reasoning_tokens),
  });
}

/** OpenAI Chat Completions (a final streamed chunk or the whole answer). */
function chat(usage: Json, model: unknown): UsageReading {
  return defined({
    model: modelOf(model),
    inputTokens: count(usage.prompt_tokens),
    cachedInputTokens: count(obj(usage.prompt_tokens_details)?.cached_tokens),
    outputTokens: count(usage.completion_tokens),
    reasoningTokens: count(obj(usage.completion_tokens_details)?.reasoning_tokens),
  });
}

/** Anthropic: `input_tokens` is the uncached rest; cache reads and writes are counted apart. */
function anthropic(usage: Json, model: unknown): UsageReading {
  const uncached = count(usage.input_tokens);
  const read = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  return defined({
    model: modelOf(model),
    inputTokens: sum(uncached, read, written),
    cachedInputTokens: read,
    cacheWriteTokens: written,
    outputTokens: count(usage.output_tokens),
  });
}

/** The usage one JSON value of a response says, in any dialect; undefined when it says none. */
export function readUsage(value: unknown): UsageReading | undefined {
  const o = obj(value);
  if (!o) return undefined;
  const usageMetadata = obj(o.usageMetadata);
  if (usageMetadata) return gemini(usageMetadata, o.modelVersion);
  const type = typeof o.type === "string" ? o.type : undefined;
  const response = obj(o.response);
  if (type?.startsWith("response.") && response) {
    const usage = obj(response.usage);
    return usage ? responses(usage, response.model) : undefined;
  }
  if (type === "message_start") {
    const message = obj(o.message);
    const usage = obj(message?.usage);
    return usage ? anthropic(usage, message?.model) : undefined;
  }
  const usage = obj(o.usage);
  if (!usage) return undefined;
  if (type === "message_delta" || type === "message") return anthropic(usage, o.model);
  if (o.object === "response") return responses(usage, o.model);
  if ("prompt_tokens" in usage) return chat(usage, o.model);
  if ("cache_read_input_tokens" in usage || "cache_creation_input_tokens" in usage) return anthropic(usage, o.model);
  if ("input_tokens" in usage) return responses(usage, o.model);
  return undefined;
}
