/**
 * The usage of a turn as the outcome reports it, and the budget's verdict on it: the CLI's own report (summed
 * over turns) becomes a usage record, the metering proxy's figures take its place when the proxy metered, and a
 * run the budget stopped is a `cost_limit` failure with its partial work kept.
 */
import type { EngineFailed, EngineUsage } from "@skillrig/core";
import type { StreamParser } from "./adapter.js";
import type { AttemptRun } from "./engine-attempt.js";
import type { EngineRun } from "./engine-run.js";
import type { TurnFacts } from "./engine-verdict.js";
import type { BaseEngineOptions } from "./options.js";
import { addUsageCounts, engineUsage } from "./usage-record.js";

export interface TurnUsage {
  /** The CLI's own reports up to this turn. */
  reported?: EngineUsage;
  /** The job's usage record after this turn. */
  usage: EngineUsage;
}

/** `after - before` of a count (a turn's share of a job-long figure). */
function since(after: number | undefined, before: number | undefined): number | undefined {
  return after === undefined ? undefined : after - (before ?? 0);
}

/**
 * The job's usage after this turn, and its `usage` event. The event says this turn's share (a repair turn's event does
 * not repeat the first turn's tokens), so a reader that adds the events up gets the job's figures.
 */
export function turnUsage<O extends BaseEngineOptions>(
  run: EngineRun<O>,
  parser: StreamParser,
  reportedBefore: EngineUsage | undefined,
  durationMs: number,
  usageBefore?: EngineUsage,
): TurnUsage {
  const thisTurn = engineUsage(parser.usage());
  const reported: EngineUsage | undefined = thisTurn
    ? {
        ...addUsageCounts(reportedBefore, thisTurn),
        source: "engine",
        ...((thisTurn.model ?? reportedBefore?.model) ? { model: thisTurn.model ?? reportedBefore?.model } : {}),
      }
    : reportedBefore;
  const usage = run.meter.record(reported, durationMs);
  if (usage.source !== "none") {
    const b = usageBefore;
    const inputTokens = since(usage.inputTokens, b?.inputTokens);
    const outputTokens = since(usage.outputTokens, b?.outputTokens);
    const totalTokens = since(usage.totalTokens, b?.totalTokens);
    const cachedInputTokens = since(usage.cachedInputTokens, b?.cachedInputTokens);
    const reasoningTokens = since(usage.reasoningTokens, b?.reasoningTokens);
    const modelCalls = since(usage.modelCalls, b?.modelCalls);
    const costUsd = typeof usage.costUsd === "number" ? Math.round((usage.costUsd - (b?.costUsd ?? 0)) * 1e6) / 1e6 : null;
    const { source } = usage;
    run.work.emit({
      type: "usage",
      inputTokens,
      outputTokens,
      totalTokens,
      model: usage.model ?? run.options.model,
      ...(cachedInputTokens !== undefined ? { cachedInputTokens } : {}),
      ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
      ...(modelCalls !== undefined ? { modelCalls } : {}),
      costUsd,
      source,
    });
  }
  for (const warning of run.meter.warnings(reported)) run.work.warn(warning);
  return { reported, usage };
}

/** The turn's outcome when the budget stopped it: killed once reached, or ended by itself after a refused call. */
export function costLimitOutcome<O extends BaseEngineOptions>(
  run: EngineRun<O>,
  ended: AttemptRun,
  facts: TurnFacts,
): EngineFailed | undefined {
  const reason = run.meter.reached();
  if (reason === undefined) return undefined;
  if (!(run.meter.signal.aborted && ended.ending.kind === "canceled") && run.meter.refusedCalls() === 0) return undefined;
  const message = `${reason}; ${run.adapter.displayName} was stopped. Its partial work is kept in the run folder's workspace (${run.ctx.dirs.workspace})`;
  return {
    ok: false,
    failure: {
      kind: "cost_limit",
      message,
      hint: "raise the job's max_cost_usd / max_tokens (or cost.max_cost_usd / cost.max_tokens in the config)",
    },
    ...facts,
  };
}
