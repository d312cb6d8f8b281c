/**
 * The price table: USD per million tokens per model, shipped as data (../prices.json, with the date its prices were
 * read) and overridden row by row from the config's `cost.prices`. A model with no row is unpriced: its cost is
 * `null`, never a guessed 0.
 */
import { readFileSync } from "node:fs";
import type { ModelPrice, UsageCounts } from "@skillrig/core";

export interface PriceTable {
  /** The date the shipped prices were read (YYYY-MM-DD). */
  as_of: string;
  currency: "USD";
  unit: "per_million_tokens";
  models: Record<string, ModelPrice>;
}

let shipped: PriceTable | undefined;

/** The price table shipped with engine-kit (prices.json). */
export function shippedPriceTable(): PriceTable {
  shipped ??= JSON.parse(readFileSync(new URL("../prices.json", import.meta.url), "utf8")) as PriceTable;
  return shipped;
}

/** The shipped table with `overrides` (the config's `cost.prices`) over it. */
export function priceTable(overrides?: Record<string, ModelPrice>): PriceTable {
  const table = shippedPriceTable();
  return overrides ? { ...table, models: { ...table.models, ...overrides } } : table;
}

/**
 * The row for a model id as an API reports it: the exact id, else without a `models/` prefix, else the longest row
 * the id starts with followed by `-` (a dated or numbered release: `claude-sonnet-4-5-20250929`, `gemini-2.5-pro-001`).
 */
export function priceOf(model: string, table: PriceTable): ModelPrice | undefined {
  const id = model.replace(/^models\//, "");
  const exact = table.models[model] ?? table.models[id];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table.models)) {
    if (id.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table.models[best];
}

/**
 * What `counts` cost at `price`: uncached input at `input`, cache reads at `cached_input`, cache writes at
 * `cache_write`, reasoning tokens at `reasoning`, the rest of the output at `output` (each defaulting as ModelPrice says).
 */
export function costOf(counts: UsageCounts, price: ModelPrice): number {
  const cached = counts.cachedInputTokens ?? 0;
  const written = counts.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, (counts.inputTokens ?? 0) - cached - written);
  const reasoning = counts.reasoningTokens ?? 0;
  const plainOutput = Math.max(0, (counts.outputTokens ?? 0) - reasoning);
  const usd =
    uncached * price.input +
    cached * (price.cached_input ?? price.input) +
    written * (price.cache_write ?? price.input) +
    plainOutput * price.output +
    reasoning * (price.reasoning ?? price.output);
  return usd / 1_000_000;
}

export interface PricedModels {
  /** Null when any model is unpriced. */
  costUsd: number | null;
  /** What the priced models cost (the whole cost when nothing is unpriced). */
  pricedUsd: number;
  unpricedModels: string[];
}

/** The cost of per-model counts; a model without a row makes the whole `costUsd` null and is named. */
export function priceModels(models: Record<string, UsageCounts>, table: PriceTable): PricedModels {
  let pricedUsd = 0;
  const unpricedModels: string[] = [];
  for (const [model, counts] of Object.entries(models)) {
    const price = priceOf(model, table);
    if (price) pricedUsd += costOf(counts, price);
    else unpricedModels.push(model);
  }
  return { costUsd: unpricedModels.length > 0 ? null : roundUsd(pricedUsd), pricedUsd: roundUsd(pricedUsd), unpricedModels };
}

/** Costs are kept to a millionth of a dollar: float noise never shows as a difference. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
