/**
 * The console's closing line about what a job's model calls used and cost: `cost $0.0036 · 1200 tokens in (800
 * cached), 300 out (120 reasoning) · 2 model calls · gpt-5 (metered)`. "unpriced" when the model has no price.
 */
import type { JobResult } from "@skillrig/core";

export function usageLine(result: Pick<JobResult, "usage" | "cost_usd">): string | undefined {
  const u = result.usage;
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined && result.cost_usd === undefined)) return undefined;
  const cost =
    result.cost_usd === undefined ? undefined : typeof result.cost_usd === "number" ? `$${result.cost_usd.toFixed(4)}` : "unpriced";
  const parts = [
    cost === undefined ? undefined : `cost ${cost}`,
    u.inputTokens === undefined
      ? undefined
      : `${u.inputTokens} tokens in${u.cachedInputTokens ? ` (${u.cachedInputTokens} cached)` : ""}, ${u.outputTokens ?? "?"} out${u.reasoningTokens ? ` (${u.reasoningTokens} reasoning)` : ""}`,
    u.modelCalls === undefined ? undefined : `${u.modelCalls} model call${u.modelCalls === 1 ? "" : "s"}`,
    u.model === undefined
      ? undefined
      : `${u.model}${u.source === "proxy" ? " (metered)" : u.source === "engine" ? " (as the engine reported)" : ""}`,
  ].filter((p): p is string => p !== undefined);
  return parts.length === 0 ? undefined : parts.join(" · ");
}

/** A positive number flag (`--max-cost-usd 0.5`); NaN when the text is not one (the caller names the flag). */
export function positiveNumber(value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) return Number.NaN;
  return n;
}
