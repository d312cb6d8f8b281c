/**
 * The invocation budget's arithmetic: jobs' costs and tokens add up as they end, a job starting gets what is left
 * (or its own lower budget), an unpriced job adds tokens but no cost, and the budget is reached at its limit.
 */
import { describe, expect, it } from "vitest";
import type { JobResult } from "@skillrig/core";
import { InvocationBudget } from "../src/invocation-budget.js";

const ended = (cost_usd: number | "unpriced" | undefined, totalTokens: number | undefined): JobResult => ({
  job_id: "j",
  skill_id: "s",
  engine: "gemini",
  status: "succeeded",
  artifacts: [],
  run_dir: "/tmp/j",
  timings: { started_at: "", finished_at: "" },
  ...(totalTokens !== undefined ? { usage: { totalTokens, source: "proxy" as const } } : {}),
  ...(cost_usd !== undefined ? { cost_usd } : {}),
});

describe("InvocationBudget", () => {
  it("caps each starting job to what is left, and says it is reached once the sum gets there", () => {
    const b = new InvocationBudget({ maxCostUsd: 0.01, maxTokens: 1000 });
    expect(b.jobOptions()).toEqual({ max_cost_usd: 0.01, max_tokens: 1000 });
    b.add(ended(0.004, 600));
    expect(b.reached()).toBeUndefined();
    expect(b.jobOptions().max_tokens).toBe(400);
    expect(b.jobOptions().max_cost_usd).toBeCloseTo(0.006, 12);
    // A job's own lower budget wins over the remainder.
    expect(b.jobOptions({ maxTokens: 100, maxCostUsd: 0.001 })).toEqual({ max_cost_usd: 0.001, max_tokens: 100 });
    b.add(ended(0.006, 300));
    // 0.004 + 0.006 in floats is 0.009999...: still reached.
    expect(b.reached()).toMatch(/cost budget is spent: \$0\.010000 over 2 job\(s\), --max-cost-usd is \$0\.01/);
    expect(b.spent()).toEqual({ costUsd: 0.004 + 0.006, tokens: 900, jobs: 2, unpricedJobs: 0 });
  });

  it("an unpriced job adds its tokens, no cost; a job that never reached its engine adds nothing", () => {
    const b = new InvocationBudget({ maxTokens: 500 });
    b.add(ended("unpriced", 200));
    b.add(undefined);
    b.addUsage({ durationMs: 0 } as never);
    expect(b.spent()).toMatchObject({ costUsd: 0, tokens: 200, unpricedJobs: 1 });
    b.addUsage({ inputTokens: 250, outputTokens: 50, costUsd: null });
    expect(b.reached()).toBe("the invocation's token budget is spent: 500 tokens over 3 job(s), --max-tokens is 500");
  });

  it("without a limit it is inactive and leaves a job's own budget alone", () => {
    const b = new InvocationBudget({});
    expect(b.active).toBe(false);
    b.add(ended(5, 1_000_000));
    expect(b.reached()).toBeUndefined();
    expect(b.jobOptions({ maxTokens: 10 })).toEqual({ max_tokens: 10 });
  });
});
