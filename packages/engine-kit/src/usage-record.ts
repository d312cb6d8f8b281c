/**
 * The usage record, for engine authors: every engine reports usage in one shape (core's `EngineUsage`, documented
 * in docs/plugin-api.md, "Usage records"). A stream parser returns its CLI's own figures from `usage()` through
 * `engineUsage`, which normalises them (input counts cached tokens, output counts reasoning tokens); engine-kit then
 * puts the metering proxy's figures beside them when the proxy is on.
 */
import type { EngineUsage, UsageCounts } from "@skillrig/core";

/** What a CLI says it used, in its own terms: say which parts the CLI counts apart from input and output. */
export interface ReportedUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  /** True when the CLI's input count leaves cached tokens out (Anthropic's `input_tokens`): they are added. */
  inputExcludesCached?: boolean;
  /** True when the CLI's output count leaves reasoning out (Gemini's candidates): they are added. */
  outputExcludesReasoning?: boolean;
  model?: string;
  modelCalls?: number;
}

const COUNT_KEYS = ["inputTokens", "cachedInputTokens", "cacheWriteTokens", "outputTokens", "reasoningTokens", "modelCalls"] as const;

/** A CLI's own report as a usage record (`source: "engine"`); undefined when it reported no tokens at all. */
export function engineUsage(reported: ReportedUsage | undefined): EngineUsage | undefined {
  if (!reported || (reported.inputTokens === undefined && reported.outputTokens === undefined)) return undefined;
  const cached = reported.cachedInputTokens;
  const written = reported.cacheWriteTokens;
  const reasoning = reported.reasoningTokens;
  const input =
    reported.inputTokens === undefined
      ? undefined
      : reported.inputTokens + (reported.inputExcludesCached ? (cached ?? 0) + (written ?? 0) : 0);
  const output =
    reported.outputTokens === undefined ? undefined : reported.outputTokens + (reported.outputExcludesReasoning ? (reasoning ?? 0) : 0);
  const record: EngineUsage = { source: "engine" };
  if (input !== undefined) record.inputTokens = input;
  if (cached !== undefined) record.cachedInputTokens = cached;
  if (written !== undefined) record.cacheWriteTokens = written;
  if (output !== undefined) record.outputTokens = output;
  if (reasoning !== undefined) record.reasoningTokens = reasoning;
  record.totalTokens = (input ?? 0) + (output ?? 0);
  if (reported.model !== undefined) record.model = reported.model;
  if (reported.modelCalls !== undefined) record.modelCalls = reported.modelCalls;
  return record;
}

/** The token counts of a record, without its source, model or cost. */
export function usageCounts(usage: UsageCounts): UsageCounts {
  const counts: UsageCounts = {};
  for (const key of COUNT_KEYS) if (usage[key] !== undefined) counts[key] = usage[key];
  if (usage.totalTokens !== undefined) counts.totalTokens = usage.totalTokens;
  return counts;
}

/** `a` and `b` added, field by field (a field absent from both stays absent). */
export function addUsageCounts(a: UsageCounts | undefined, b: UsageCounts | undefined): UsageCounts | undefined {
  if (!a) return b && usageCounts(b);
  if (!b) return usageCounts(a);
  const sum: UsageCounts = {};
  for (const key of [...COUNT_KEYS, "totalTokens"] as const) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  return sum;
}
