/**
 * `cost`: how jobs are metered, priced and budgeted. The metering proxy (engine-kit) sits in front of the model
 * unless `meter` is false; `prices` add or replace rows of the shipped price table (engine-kit's prices.json);
 * `max_cost_usd` / `max_tokens` are every job's budget (a job's own `options.max_cost_usd` / `max_tokens` can only
 * lower them); `max_cost_usd_per_invocation` / `max_tokens_per_invocation` are one budget shared by all of a
 * `skillrig eval` or `skillrig solve` invocation's jobs (its `--max-cost-usd` / `--max-tokens` can only lower them); the `meter_max_*` keys bound what the proxy reads of one model response.
 */
import { defineConfigSection, type JobCostControls, type JobRequest, type ModelPrice } from "@skillrig/core";

export interface CostConfig {
  meter?: boolean;
  prices?: Record<string, ModelPrice>;
  max_cost_usd?: number;
  max_tokens?: number;
  /** One budget for all of a `skillrig eval` or `skillrig solve` invocation's jobs (`--max-cost-usd` can only lower it). */
  max_cost_usd_per_invocation?: number;
  max_tokens_per_invocation?: number;
  meter_max_json_bytes?: number;
  meter_max_line_bytes?: number;
}

declare module "@skillrig/core" {
  interface SkillrigConfig {
    cost?: CostConfig;
  }
}

const usdPerMillion = { type: "number", minimum: 0 };

export const costConfigSection = defineConfigSection({
  section: "cost",
  owner: "@skillrig/skills",
  schema: {
    description: "How engine jobs are metered, priced and budgeted (docs/cost.md).",
    type: "object",
    additionalProperties: false,
    properties: {
      meter: {
        description: "Send the engine's model calls through skillrig's metering proxy and take its figures as the usage. Default true.",
        type: "boolean",
      },
      prices: {
        description: "Price rows over the shipped table: model id -> USD per million tokens.",
        type: "object",
        additionalProperties: {
          type: "object",
          additionalProperties: false,
          required: ["input", "output"],
          properties: {
            input: usdPerMillion,
            cached_input: usdPerMillion,
            cache_write: usdPerMillion,
            output: usdPerMillion,
            reasoning: usdPerMillion,
          },
        },
      },
      max_cost_usd: {
        description: "Every job's cost budget in USD (a job may set a lower one). Default none.",
        type: "number",
        exclusiveMinimum: 0,
      },
      max_tokens: {
        description: "Every job's token budget, input + output (a job may set a lower one). Default none.",
        type: "integer",
        minimum: 1,
      },
      max_cost_usd_per_invocation: {
        description:
          "One cost budget in USD for all the jobs of a skillrig eval or skillrig solve invocation: once spent, no further run starts (cost_limit). --max-cost-usd may set a lower one. Default none.",
        type: "number",
        exclusiveMinimum: 0,
      },
      max_tokens_per_invocation: {
        description:
          "One token budget for all the jobs of a skillrig eval or skillrig solve invocation: once used, no further run starts (cost_limit). --max-tokens may set a lower one. Default none.",
        type: "integer",
        minimum: 1,
      },
      meter_max_json_bytes: {
        description:
          "Largest non-streamed model response whose usage the proxy reads (larger ones pass unread, with a warning). Default 16 MiB.",
        type: "integer",
        minimum: 1024,
      },
      meter_max_line_bytes: {
        description: "Longest server-sent-events line the proxy reads (longer ones pass unread, with a warning). Default 4 MiB.",
        type: "integer",
        minimum: 1024,
      },
    },
  },
});

function lower(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** The job's cost controls: the config's `cost` section with the request's own budget (the lower one wins). */
export function jobCostControls(config: CostConfig | undefined, request: JobRequest): JobCostControls {
  const maxCostUsd = lower(config?.max_cost_usd, request.options?.max_cost_usd);
  const maxTokens = lower(config?.max_tokens, request.options?.max_tokens);
  return {
    meter: config?.meter ?? true,
    ...(config?.prices ? { prices: config.prices } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(config?.meter_max_json_bytes !== undefined ? { meterMaxJsonBytes: config.meter_max_json_bytes } : {}),
    ...(config?.meter_max_line_bytes !== undefined ? { meterMaxLineBytes: config.meter_max_line_bytes } : {}),
  };
}
