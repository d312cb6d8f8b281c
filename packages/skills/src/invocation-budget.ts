/**
 * One budget shared by every job of a `skillrig eval` or `skillrig solve` invocation (`--max-cost-usd`,
 * `--max-tokens`, or the config's `cost.max_cost_usd_per_invocation` / `cost.max_tokens_per_invocation`). Each job's
 * cost and tokens are added as it ends; a job about to start gets a per-job budget capped to what is left (so a job
 * cannot spend past the invocation's remainder); once the budget is reached no further job starts and the command
 * ends with `cost_limit`.
 */
import type { JobResult } from "@skillrig/core";

export interface InvocationLimits {
  maxCostUsd?: number;
  maxTokens?: number;
}

export interface InvocationSpend {
  costUsd: number;
  tokens: number;
  jobs: number;
  /** Jobs whose model has no price: the cost budget could not count them (their tokens are counted). */
  unpricedJobs: number;
}

function tokensOf(result: JobResult): number {
  const u = result.usage;
  if (!u) return 0;
  return u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
}

export class InvocationBudget {
  readonly limits: InvocationLimits;
  private readonly spend: InvocationSpend = { costUsd: 0, tokens: 0, jobs: 0, unpricedJobs: 0 };

  constructor(limits: InvocationLimits) {
    this.limits = limits;
  }

  /** Whether the invocation has a budget at all. */
  get active(): boolean {
    return this.limits.maxCostUsd !== undefined || this.limits.maxTokens !== undefined;
  }

  spent(): InvocationSpend {
    return { ...this.spend };
  }

  /**
   * Why no further job may start, once the budget is reached. A job its capped budget stopped spent at least the
   * remainder it was given, so the sum reaches the budget (up to a float's rounding, allowed for).
   */
  reached(): string | undefined {
    const { maxCostUsd, maxTokens } = this.limits;
    if (maxTokens !== undefined && this.spend.tokens >= maxTokens)
      return `the invocation's token budget is spent: ${this.spend.tokens} tokens over ${this.spend.jobs} job(s), --max-tokens is ${maxTokens}`;
    if (maxCostUsd !== undefined && this.spend.costUsd >= maxCostUsd - 1e-12)
      return `the invocation's cost budget is spent: $${this.spend.costUsd.toFixed(6)} over ${this.spend.jobs} job(s), --max-cost-usd is $${maxCostUsd}`;
    return undefined;
  }

  /**
   * The per-job budget for a job starting now: what is left of the invocation's, or lower when the job's own is.
   * Empty when the invocation has no budget (the job keeps the config's own per-job budget).
   */
  jobOptions(own: InvocationLimits = {}): { max_cost_usd?: number; max_tokens?: number } {
    const out: { max_cost_usd?: number; max_tokens?: number } = {};
    const { maxCostUsd, maxTokens } = this.limits;
    if (maxCostUsd !== undefined) {
      // Never 0 (a job budget must be positive): a remainder that small is reached by the first call.
      const left = Math.max(maxCostUsd - this.spend.costUsd, 1e-9);
      out.max_cost_usd = own.maxCostUsd !== undefined ? Math.min(own.maxCostUsd, left) : left;
    } else if (own.maxCostUsd !== undefined) out.max_cost_usd = own.maxCostUsd;
    if (maxTokens !== undefined) {
      const left = Math.max(maxTokens - this.spend.tokens, 1);
      out.max_tokens = own.maxTokens !== undefined ? Math.min(own.maxTokens, left) : left;
    } else if (own.maxTokens !== undefined) out.max_tokens = own.maxTokens;
    return out;
  }

  /** Adds an ended attempt's usage (a solve attempt's: tokens and `costUsd`, null when its model is unpriced). */
  addUsage(usage: { totalTokens?: number; inputTokens?: number; outputTokens?: number; costUsd?: number | null } | undefined): void {
    if (!usage) return;
    this.spend.jobs++;
    this.spend.tokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
    if (typeof usage.costUsd === "number") this.spend.costUsd += usage.costUsd;
    else if (usage.costUsd === null) this.spend.unpricedJobs++;
  }

  /** Adds an ended job's cost and tokens (a job that never reached its engine adds nothing). */
  add(result: JobResult | undefined): void {
    if (!result) return;
    this.spend.jobs++;
    this.spend.tokens += tokensOf(result);
    if (typeof result.cost_usd === "number") this.spend.costUsd += result.cost_usd;
    else if (result.cost_usd === "unpriced") this.spend.unpricedJobs++;
  }
}
