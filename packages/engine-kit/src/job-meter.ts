/**
 * A job's metering: the metering proxy in front of the model (when `cost.meter` is on and the engine has a base
 * URL), the job's budget (`max_cost_usd`, `max_tokens`) checked after every model call, and the usage record the
 * outcome reports: the proxy's figures (`source: "proxy"`) with the CLI's own beside them, priced from the table.
 */
import type { EngineUsage, JobWork, UsageCounts } from "@skillrig/core";
import { DEFAULT_METER_BOUNDS, startMeteringProxy, type MeteredTotals, type MeteringProxy, type ModelCallEnd } from "./metering-proxy.js";
import { priceModels, priceTable, type PriceTable } from "./pricing.js";
import { addUsageCounts, usageCounts } from "./usage-record.js";

export interface JobMeter {
  /** The base URL the engine gets when metering (the proxy's, with the upstream's path); undefined when not. */
  proxiedBaseUrl?: string;
  /** Aborts when the budget is reached (the engine is then stopped). */
  signal: AbortSignal;
  /** Why the budget stopped the job, once it did. */
  reached(): string | undefined;
  /** Whether the proxy refused a call for the budget (the engine may have ended by itself after it). */
  refusedCalls(): number;
  /** What the proxy saw of the model endpoint: calls forwarded and how the last ended; undefined when not metering. */
  modelCalls(): { forwarded: number; last?: ModelCallEnd } | undefined;
  /** The usage record so far: the proxy's when it metered, else the CLI's own (summed over turns). */
  record(engineReported: EngineUsage | undefined, durationMs: number): EngineUsage;
  /** Warnings for the job: a difference between the proxy's figures and the CLI's, an unenforceable budget. */
  warnings(engineReported: EngineUsage | undefined): string[];
  close(): Promise<void>;
}

function budgetReason(totals: MeteredTotals, table: PriceTable, cost: JobWork["cost"]): string | undefined {
  if (!cost) return undefined;
  const tokens = Object.values(totals.models).reduce((n, c) => n + (c.totalTokens ?? 0), 0);
  if (cost.maxTokens !== undefined && tokens >= cost.maxTokens)
    return `the job's token budget is spent: ${tokens} tokens used over ${totals.calls} model calls, max_tokens is ${cost.maxTokens}`;
  if (cost.maxCostUsd !== undefined) {
    const { pricedUsd } = priceModels(totals.models, table);
    if (pricedUsd >= cost.maxCostUsd)
      return `the job's cost budget is spent: $${pricedUsd.toFixed(6)} over ${totals.calls} model calls, max_cost_usd is $${cost.maxCostUsd}`;
  }
  return undefined;
}

function sumModels(models: Record<string, UsageCounts>): UsageCounts {
  let sum: UsageCounts | undefined;
  for (const counts of Object.values(models)) sum = addUsageCounts(sum, counts);
  return sum ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0 };
}

function mainModel(models: Record<string, UsageCounts>): string | undefined {
  let best: string | undefined;
  for (const [model, counts] of Object.entries(models)) {
    if (best === undefined || (counts.modelCalls ?? 0) > (models[best]!.modelCalls ?? 0)) best = model;
  }
  return best;
}

/** A CLI's report differs from the proxy's figures when it names input or output and that number is not the proxy's. */
function differs(reported: UsageCounts, metered: UsageCounts): boolean {
  return (
    (reported.inputTokens !== undefined && reported.inputTokens !== metered.inputTokens) ||
    (reported.outputTokens !== undefined && reported.outputTokens !== metered.outputTokens)
  );
}

export async function startJobMeter(work: JobWork, upstream: string | undefined, fallbackModel?: string): Promise<JobMeter> {
  const cost = work.cost;
  const table = priceTable(cost?.prices);
  const stop = new AbortController();
  let reached: string | undefined;
  let proxy: MeteringProxy | undefined;
  if ((cost?.meter ?? true) && upstream) {
    proxy = await startMeteringProxy({
      upstream,
      bounds: {
        maxJsonBytes: cost?.meterMaxJsonBytes ?? DEFAULT_METER_BOUNDS.maxJsonBytes,
        maxLineBytes: cost?.meterMaxLineBytes ?? DEFAULT_METER_BOUNDS.maxLineBytes,
      },
      onCall(totals) {
        if (reached !== undefined) return;
        reached = budgetReason(totals, table, cost);
        if (reached !== undefined) stop.abort(new Error(reached));
      },
      refusal: () => reached,
    });
  }
  const record = (engineReported: EngineUsage | undefined, durationMs: number): EngineUsage => {
    if (proxy) {
      const { models } = proxy.totals;
      const priced = priceModels(models, table);
      const model = mainModel(models);
      return {
        ...sumModels(models),
        durationMs,
        ...(model !== undefined ? { model } : {}),
        models,
        source: "proxy",
        ...(engineReported ? { engineReported: usageCounts(engineReported) } : {}),
        costUsd: priced.costUsd,
        ...(priced.unpricedModels.length > 0 ? { unpricedModels: priced.unpricedModels } : {}),
      };
    }
    if (!engineReported) return { durationMs, source: "none", costUsd: null };
    const model = engineReported.model ?? fallbackModel;
    const price = model === undefined ? undefined : priceModels({ [model]: engineReported }, table);
    return {
      ...engineReported,
      durationMs,
      ...(model !== undefined ? { model } : {}),
      source: "engine",
      costUsd: price?.costUsd ?? null,
      ...(price === undefined
        ? { unpricedModels: ["(model not reported)"] }
        : price.unpricedModels.length > 0
          ? { unpricedModels: price.unpricedModels }
          : {}),
    };
  };
  return {
    proxiedBaseUrl: proxy && upstream ? proxy.proxied(upstream) : undefined,
    signal: stop.signal,
    reached: () => reached,
    refusedCalls: () => proxy?.totals.refusedCalls ?? 0,
    modelCalls: () =>
      proxy ? { forwarded: proxy.totals.forwardedCalls, ...(proxy.totals.lastCall ? { last: proxy.totals.lastCall } : {}) } : undefined,
    record,
    warnings(engineReported) {
      const out: string[] = [];
      if (proxy) {
        const metered = sumModels(proxy.totals.models);
        if (engineReported && differs(engineReported, metered)) {
          out.push(
            `usage: the engine reported ${engineReported.inputTokens ?? "?"} input / ${engineReported.outputTokens ?? "?"} output tokens, the metering proxy counted ${metered.inputTokens ?? 0} / ${metered.outputTokens ?? 0} over ${proxy.totals.calls} model calls (the proxy's figures are the job's usage)`,
          );
        }
        if (proxy.totals.unreadCalls > 0)
          out.push(
            `usage: ${proxy.totals.unreadCalls} model response(s) were too large to read their usage (cost.meter_max_json_bytes / cost.meter_max_line_bytes): their tokens are missing`,
          );
        const unpriced = priceModels(proxy.totals.models, table).unpricedModels;
        if (unpriced.length > 0 && cost?.maxCostUsd !== undefined)
          out.push(`usage: max_cost_usd cannot count calls to ${unpriced.join(", ")}: no price in the table (add one under cost.prices)`);
      } else if (cost?.maxCostUsd !== undefined || cost?.maxTokens !== undefined) {
        out.push("usage: the job's budget was not enforced: the metering proxy was off (cost.meter) or the engine has no model base URL");
      }
      return out;
    },
    close: async () => {
      await proxy?.close();
    },
  };
}
