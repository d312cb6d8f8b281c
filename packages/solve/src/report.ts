/**
 * The solve report: every task, every engine's attempts at it with the grading of each case, and per-engine
 * pass rates and pass@k. The JSON reporter writes it as is; the JUnit and HTML reporters render it.
 */
import type { CaseVerdict, EngineEvent, SerializedError, TaskReport } from "@skillrig/core";
import { passAtK, reportedKs } from "./pass-at-k.js";

/**
 * How an attempt ended:
 * - `passed`: every scored case passed;
 * - `failed`: the deliverable was graded and some scored case did not pass;
 * - `artifact_missing`: the engine ran but wrote no deliverable file;
 * - `engine_failed`: the engine or the job failed before a deliverable could be collected (auth, timeout, crash ...);
 * - `grading_error`: the deliverable was collected but could not be graded;
 * - `canceled`: the batch was canceled while the attempt ran, or before it started;
 * - `not_run`: the attempt never started, for the `reason` it names (`cost_limit`: the solve's budget was spent).
 */
export type AttemptStatus = "passed" | "failed" | "artifact_missing" | "engine_failed" | "grading_error" | "canceled" | "not_run";

export interface AttemptUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** The engine's own run time, as the job measured it. */
  engineMs?: number;
  /** Wall-clock time of the whole attempt: the job and the grading. */
  durationMs: number;
  /** Of inputTokens, read from the prompt cache; of outputTokens, reasoning (the job's usage record). */
  cachedInputTokens?: number;
  reasoningTokens?: number;
  /** Where the figures came from: the metering proxy, the engine's own report, or none. */
  source?: "proxy" | "engine" | "none";
  /** What the attempt's model calls cost (USD, from the price table); null when its model is unpriced. */
  costUsd?: number | null;
}

/** An engine event as a transcript keeps it: `at`, when the runner got it (ISO 8601; a merged message: its first part). */
export type TranscriptEvent = EngineEvent & { at?: string };

export interface AttemptResult {
  task_id: string;
  /** The engine's label in this run (its name, unless two variants of one engine run side by side). */
  engine: string;
  attempt: number;
  status: AttemptStatus;
  /** One line a person reads first. */
  message?: string;
  /** Why a `not_run` attempt never started: `cost_limit` (the invocation's budget, `--max-cost-usd` / `--max-tokens`). */
  reason?: "cost_limit";
  /** Scored cases that passed, of those scored (cases the reference solution fails are not scored). */
  score: { passed: number; total: number };
  job?: {
    job_id?: string;
    status: string;
    run_dir?: string;
    engine_version?: string;
    error?: SerializedError;
    warnings?: string[];
  };
  /** The rendered prompt the engine received. */
  prompt?: string;
  /** The SKILL.md the agent read (rendered for this task and patched with the output contract). */
  skill_md?: string;
  /** The engine's events: messages, tool calls, file changes, usage; each with when it came. */
  transcript: TranscriptEvent[];
  /** The file the agent wrote, as collected. */
  deliverable?: { file: string; path: string; content: string; truncated?: boolean };
  /** One verdict per scored case. */
  cases: CaseVerdict[];
  usage: AttemptUsage;
}

export interface ReferenceCheck {
  /** The reference solution, as the task file names it. */
  file: string;
  status: "passed" | "flagged";
  /** Cases the reference solution does not pass; they are not scored against engines. */
  flagged: Array<{ name: string; index: number; status: string; message?: string }>;
  report: TaskReport;
}

export interface TaskResult {
  task_id: string;
  /** The task file, as the user named it. */
  file: string;
  deliverable_type: string;
  entrypoint: string;
  description?: string;
  /** Hidden cases in the task. */
  total_cases: number;
  /** Hidden cases scored against engines. */
  scored_cases: number;
  reference?: ReferenceCheck;
  attempts: AttemptResult[];
}

export interface EngineSummary {
  engine: string;
  /** The engine plugin's name (`gemini`, `codex`, a user's). */
  engine_name: string;
  attempts: number;
  passed: number;
  /** passed / attempts over all tasks. */
  pass_rate: number;
  /** pass@k averaged over tasks, keyed by k ("1", "3" ...). */
  pass_at_k: Record<string, number>;
  /** Tasks with at least one passing attempt. */
  tasks_solved: number;
  statuses: Partial<Record<AttemptStatus, number>>;
  usage: {
    inputTokens: number;
    outputTokens: number;
    totalTokens: number;
    engineMs: number;
    durationMs: number;
    reported: boolean;
    /** USD of the engine's priced attempts; `unpricedAttempts` ran a model with no price (never counted as $0). */
    costUsd: number;
    unpricedAttempts: number;
  };
}

export interface SolveReport {
  kind: "skillrig-solve-report";
  version: 1;
  started_at: string;
  duration_ms: number;
  attempts_per_task: number;
  engines: EngineSummary[];
  tasks: TaskResult[];
  summary: { tasks: number; attempts: number; passed: number; not_passed: number };
  /** Why the batch stopped early: its budget (`--max-cost-usd`, `--max-tokens`) was spent; later attempts are `not_run`. */
  stopped?: { code: "cost_limit"; message: string };
}

export interface EngineLabel {
  engine: string;
  engine_name: string;
}

/** Per-engine totals, pass rates and pass@k (the unbiased estimator, averaged over tasks). */
export function summarizeEngines(engines: EngineLabel[], tasks: TaskResult[], attemptsPerTask: number): EngineSummary[] {
  return engines.map(({ engine, engine_name }) => {
    const perTask = tasks.map((t) => t.attempts.filter((a) => a.engine === engine));
    const all = perTask.flat();
    const passed = all.filter((a) => a.status === "passed").length;
    const pass_at_k: Record<string, number> = {};
    const graded = perTask.filter((attempts) => attempts.length > 0);
    if (graded.length > 0) {
      const n = Math.min(...graded.map((a) => a.length), attemptsPerTask);
      // Every task's attempts count: k up to the fewest any task has, and k = that count ("any attempt passed").
      for (const k of reportedKs(n, [n])) {
        const mean =
          graded.reduce((sum, attempts) => sum + passAtK(attempts.length, attempts.filter((a) => a.status === "passed").length, k), 0) /
          graded.length;
        pass_at_k[String(k)] = round(mean);
      }
    }
    const statuses: EngineSummary["statuses"] = {};
    for (const a of all) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    const usage = {
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      engineMs: 0,
      durationMs: 0,
      reported: false,
      costUsd: 0,
      unpricedAttempts: 0,
    };
    for (const a of all) {
      if (a.usage.inputTokens !== undefined || a.usage.outputTokens !== undefined || a.usage.totalTokens !== undefined)
        usage.reported = true;
      usage.inputTokens += a.usage.inputTokens ?? 0;
      usage.outputTokens += a.usage.outputTokens ?? 0;
      usage.totalTokens += a.usage.totalTokens ?? (a.usage.inputTokens ?? 0) + (a.usage.outputTokens ?? 0);
      usage.engineMs += a.usage.engineMs ?? 0;
      usage.durationMs += a.usage.durationMs;
      if (typeof a.usage.costUsd === "number") usage.costUsd = Math.round((usage.costUsd + a.usage.costUsd) * 1e6) / 1e6;
      else if (a.usage.costUsd === null) usage.unpricedAttempts += 1;
    }
    return {
      engine,
      engine_name,
      attempts: all.length,
      passed,
      pass_rate: all.length === 0 ? 0 : round(passed / all.length),
      pass_at_k,
      tasks_solved: perTask.filter((attempts) => attempts.some((a) => a.status === "passed")).length,
      statuses,
      usage,
    };
  });
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
