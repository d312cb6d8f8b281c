/**
 * `--max-cost-usd` / `--max-tokens` on `skillrig eval` and `skillrig solve`: one budget for every job of the
 * invocation, from the flags and the config's `cost.max_cost_usd_per_invocation` / `cost.max_tokens_per_invocation`
 * (the lower of the two wins, as a job's own budget can only lower the config's per-job one).
 */
import type { Command } from "commander";
import { SkillrigError } from "@skillrig/core";
import { type CostConfig, InvocationBudget } from "@skillrig/skills";
import { positiveNumber } from "./usage-line.js";

export interface BudgetFlags {
  maxCostUsd?: string;
  maxTokens?: string;
}

export function addBudgetOptions(command: Command, what: string): Command {
  return command
    .option(
      "--max-cost-usd <usd>",
      `one cost budget in USD for all of the ${what}'s jobs: once spent, nothing further starts (error cost_limit)`,
    )
    .option("--max-tokens <n>", `one token budget for all of the ${what}'s jobs: once used, nothing further starts (error cost_limit)`);
}

function lower(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/**
 * `--max-cost-usd` and `--max-tokens` as numbers (tokens whole), undefined when not given; a flag that is not a
 * positive number is a usage error naming it (exit 2). `skillrig run` reads its per-job budget with it too.
 */
export function budgetFlagValues(flags: BudgetFlags): { maxCostUsd: number | undefined; maxTokens: number | undefined } {
  const maxCostUsd = positiveNumber(flags.maxCostUsd, false);
  const maxTokens = positiveNumber(flags.maxTokens, true);
  for (const [flag, value, given] of [
    ["--max-cost-usd", maxCostUsd, flags.maxCostUsd],
    ["--max-tokens", maxTokens, flags.maxTokens],
  ] as const) {
    if (Number.isNaN(value))
      throw new SkillrigError("usage", `${flag} ${given}: expected a positive ${flag === "--max-tokens" ? "whole number" : "number"}`, {
        field: flag.slice(2),
      });
  }
  return { maxCostUsd, maxTokens };
}

/** The invocation's budget: the flags' (budgetFlagValues) and the config's, the lower of each. */
export function invocationBudget(flags: BudgetFlags, cost: CostConfig | undefined): InvocationBudget {
  const { maxCostUsd, maxTokens } = budgetFlagValues(flags);
  const usd = lower(maxCostUsd, cost?.max_cost_usd_per_invocation);
  const tokens = lower(maxTokens, cost?.max_tokens_per_invocation);
  return new InvocationBudget({
    ...(usd !== undefined ? { maxCostUsd: usd } : {}),
    ...(tokens !== undefined ? { maxTokens: tokens } : {}),
  });
}

/** The closing error of an invocation its budget stopped: printed like any error, the partial results kept. */
export function costLimitError(reason: string, what: string, where: string): SkillrigError {
  return new SkillrigError("cost_limit", `${what} stopped: ${reason}`, {
    hint: `the partial results are in ${where}; raise --max-cost-usd / --max-tokens (or cost.max_cost_usd_per_invocation / cost.max_tokens_per_invocation)`,
  });
}

/** The error as the CLI prints one (stderr, text mode): the code, the message, the hint. */
export function errorLines(error: SkillrigError): string[] {
  return [`error[${error.code}]: ${error.message}`, ...(error.hint ? [`  hint: ${error.hint}`] : [])];
}
