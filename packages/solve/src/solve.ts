/**
 * A solve batch: many tasks, one or more engines, K attempts each, run concurrently.
 *
 *   check every engine is claimed -> reference check of every task (before any engine is scored)
 *   -> a dry-run preflight of every (task, engine) job -> every (task, engine, attempt) through `runAttempt`,
 *   `jobs` at a time -> per-engine summary.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import { isSkillrigError, SkillrigError, type LoadedTask, type Runner, type SkillManifest, type Violation } from "@skillrig/core";
import { type InvocationBudget, loadSkill, runJob } from "@skillrig/skills";
import { scoredTask } from "./reference-check.js";
import { summarizeEngines, type AttemptResult, type ReferenceCheck, type SolveReport, type TaskResult } from "./report.js";
import { localExecution, type SolveExecution } from "./solve-execution.js";
import { prepareSolveSkill, solveInputs } from "./solve-skill.js";

export interface SolveEngine {
  /** The engine plugin's name (`gemini`, `codex`, a user's plugin). */
  name: string;
  /** How the report names it; default `name`. Lets two variants of one engine (models, settings) run side by side. */
  label?: string;
  /** Options for the engine plugin, merged over its configured options (model, binary, ...). */
  options?: Record<string, unknown>;
}

export interface SolveOptions {
  tasks: LoadedTask[];
  engines: SolveEngine[];
  /** Attempts per task and engine (default 1). */
  attempts?: number;
  /** Attempts running at once (default 2). */
  jobs?: number;
  /** Cases graded at once within an attempt (default 2). */
  caseJobs?: number;
  /** Where run folders go (default: core's `runsFolderOf`, as for `runJob`). */
  runsDir?: string;
  /** Per-job timeout for the engine. */
  timeoutMs?: number;
  /** Cancels the batch: running engines are stopped and no new attempt starts (those attempts end as `canceled`). */
  signal?: AbortSignal;
  /** Where reference checks and attempts run (default: here, on `runner`; `skillrig solve --server`: a jobs server). */
  execution?: SolveExecution;
  /**
   * One budget for the batch (`--max-cost-usd`, `--max-tokens`): each attempt's job is capped to what is left, and
   * once it is spent no further attempt starts (those are `not_run`, reason `cost_limit`; the report's `stopped` says why).
   */
  budget?: InvocationBudget;
  /** Progress for people: called when each reference check and each attempt ends. */
  onProgress?: (event: SolveProgress) => void;
}

export type SolveProgress =
  | { type: "reference"; task_id: string; check: ReferenceCheck }
  | { type: "attempt"; result: AttemptResult; done: number; total: number };

/** What every step of a batch reads: the options normalised once, at the edge. */
interface SolveBatch {
  runner: Runner;
  options: SolveOptions;
  execution: SolveExecution;
  engines: BatchEngine[];
  attempts: number;
  jobs: number;
  caseJobs: number;
}

type BatchEngine = { name: string; label: string; options?: Record<string, unknown> };

/** The batch's plan: a result per task (attempts added as they end), the attempts to run, the jobs to preflight. */
interface SolvePlan {
  results: TaskResult[];
  runs: Array<() => Promise<AttemptResult>>;
  preflights: Preflight[];
}

export async function solve(runner: Runner, options: SolveOptions): Promise<SolveReport> {
  const startedAt = new Date();
  const started = performance.now();
  const batch = await openBatch(runner, options);
  const references = await checkReferences(batch);
  const skillsDir = await mkdtemp(join(tmpdir(), "skillrig-solve-skills-"));
  try {
    const plan = await planAttempts(batch, references, skillsDir);
    if (batch.execution.preflight) await preflight(runner, plan.preflights, join(skillsDir, "preflight-runs"));
    await runPlan(batch, plan.runs);
    return reportOf(batch, plan.results, startedAt, performance.now() - started);
  } finally {
    await rm(skillsDir, { recursive: true, force: true });
  }
}

/** Checks the options and that every engine is claimed; two engines with one label are refused. */
async function openBatch(runner: Runner, options: SolveOptions): Promise<SolveBatch> {
  const attempts = options.attempts ?? 1;
  const jobs = options.jobs ?? 2;
  const caseJobs = options.caseJobs ?? 2;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new SkillrigError("usage", `--attempts must be a whole number of at least 1 (got ${attempts})`, { field: "--attempts" });
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new SkillrigError("usage", `--jobs must be a whole number of at least 1 (got ${jobs})`, { field: "--jobs" });
  if (options.engines.length === 0)
    throw new SkillrigError("usage", "no engine given", { field: "--engine", hint: "skillrig solve <task-file...> --engine gemini" });
  const execution = options.execution ?? localExecution(runner);
  const engines = options.engines.map((e) => ({ name: e.name, label: e.label ?? e.name, options: e.options }));
  const labels = new Set<string>();
  for (const e of engines) {
    if (labels.has(e.label)) throw new SkillrigError("usage", `engine "${e.label}" is given twice`, { field: "--engine" });
    labels.add(e.label);
    await execution.requireEngine(e.name);
  }
  return { runner, options, execution, engines, attempts, jobs, caseJobs };
}

/** Every task is checked against its reference before any engine runs; all problems are listed at once. */
async function checkReferences({ runner, options, execution, caseJobs }: SolveBatch): Promise<Map<string, ReferenceCheck | undefined>> {
  const references = new Map<string, ReferenceCheck | undefined>();
  const problems: Violation[] = [];
  for (const loaded of options.tasks) {
    runner.requireClaim("deliverable", loaded.task.deliverable_type, { file: loaded.displayPath, pointer: "/deliverable_type" });
    try {
      const check = await execution.checkReference(loaded, { jobs: caseJobs, signal: options.signal });
      references.set(loaded.task.task_id, check);
      if (check) options.onProgress?.({ type: "reference", task_id: loaded.task.task_id, check });
    } catch (error) {
      // A broken task is collected so every one is listed; anything else (no sandbox ...) is not about the task.
      if (!isSkillrigError(error) || (error.code !== "invalid_task" && error.code !== "invalid_test_format")) throw error;
      problems.push({ file: error.file ?? loaded.displayPath, pointer: error.pointer, message: error.message });
    }
  }
  if (problems.length > 0) {
    throw new SkillrigError(
      "invalid_task",
      problems.length === 1
        ? problems[0]!.message
        : `${problems.length} tasks cannot be scored:\n${problems.map((p) => `  ${p.message}`).join("\n")}`,
      {
        file: problems[0]!.file,
        pointer: problems[0]!.pointer,
        violations: problems,
      },
    );
  }
  return references;
}

/** Per task: its solve skill copy, its result, and an attempt per (engine, attempt number). */
async function planAttempts(batch: SolveBatch, references: Map<string, ReferenceCheck | undefined>, skillsDir: string): Promise<SolvePlan> {
  const plan: SolvePlan = { results: [], runs: [], preflights: [] };
  for (const loaded of batch.options.tasks) {
    const task = loaded.task;
    const reference = references.get(task.task_id);
    const scored = scoredTask(loaded, reference);
    const skillDir = join(skillsDir, String(plan.results.length));
    const names = batch.engines.map((e) => e.name);
    const skill: SkillManifest = loadSkill(await prepareSolveSkill(batch.runner, task, skillDir, names));
    const result: TaskResult = {
      task_id: task.task_id,
      file: loaded.displayPath,
      deliverable_type: task.deliverable_type,
      entrypoint: task.entrypoint,
      description: task.description,
      total_cases: task.tests.length,
      scored_cases: scored.task.tests.length,
      ...(reference ? { reference } : {}),
      attempts: [],
    };
    plan.results.push(result);
    for (const engine of batch.engines) {
      plan.preflights.push({ loaded, skill, engine });
      for (let attempt = 1; attempt <= batch.attempts; attempt++)
        plan.runs.push(() => runOrSkipAttempt(batch, { loaded, scored, skill, engine, attempt }, result));
    }
  }
  return plan;
}

/**
 * One attempt, unless the batch was canceled or its budget spent before it started (the report says so); an
 * attempt that starts gets what is left of the budget as its own.
 */
async function runOrSkipAttempt(
  { options, execution, caseJobs }: SolveBatch,
  planned: { loaded: LoadedTask; scored: LoadedTask; skill: SkillManifest; engine: BatchEngine; attempt: number },
  result: TaskResult,
): Promise<AttemptResult> {
  const { loaded, scored, engine, attempt } = planned;
  const total = scored.task.tests.length;
  const spent = options.budget?.reached();
  const outcome = options.signal?.aborted
    ? notRun(loaded.task.task_id, engine.label, attempt, total)
    : spent !== undefined
      ? notRunForBudget(loaded.task.task_id, engine.label, attempt, total, spent)
      : await execution.runAttempt({
          ...planned,
          runsDir: options.runsDir,
          timeoutMs: options.timeoutMs,
          caseJobs,
          signal: options.signal,
          ...(options.budget?.active ? { budget: options.budget.jobOptions() } : {}),
        });
  if (spent === undefined && !options.signal?.aborted) options.budget?.addUsage(outcome.usage);
  result.attempts.push(outcome);
  return outcome;
}

/** Runs the attempts `jobs` at a time, saying each as it ends. */
async function runPlan({ options, jobs }: SolveBatch, runs: SolvePlan["runs"]): Promise<void> {
  const limit = pLimit(jobs);
  let done = 0;
  await Promise.all(
    runs.map((run) =>
      limit(async () => {
        const result = await run();
        done += 1;
        options.onProgress?.({ type: "attempt", result, done, total: runs.length });
      }),
    ),
  );
}

/** The batch's report. Attempts finish in any order; the report lists them by engine, then attempt number. */
function reportOf({ options, engines, attempts }: SolveBatch, results: TaskResult[], startedAt: Date, durationMs: number): SolveReport {
  const order = new Map(engines.map((e, i) => [e.label, i]));
  for (const r of results) r.attempts.sort((a, b) => order.get(a.engine)! - order.get(b.engine)! || a.attempt - b.attempt);
  const all = results.flatMap((r) => r.attempts);
  const passed = all.filter((a) => a.status === "passed").length;
  const stopped = options.budget?.reached();
  return {
    kind: "skillrig-solve-report",
    version: 1,
    started_at: startedAt.toISOString(),
    duration_ms: Math.round(durationMs),
    attempts_per_task: attempts,
    engines: summarizeEngines(
      engines.map((e) => ({ engine: e.label, engine_name: e.name })),
      results,
      attempts,
    ),
    tasks: results,
    summary: { tasks: results.length, attempts: all.length, passed, not_passed: all.length - passed },
    ...(stopped !== undefined ? { stopped: { code: "cost_limit" as const, message: stopped } } : {}),
  };
}

interface Preflight {
  loaded: LoadedTask;
  skill: SkillManifest;
  engine: BatchEngine;
}

/**
 * Renders every (task, engine) job without running an engine (a dry run), so a request the skills package
 * refuses (an input, a template, an engine the skill does not support) is invalid input reported before any
 * engine spends time, rather than a failure in the middle of a batch.
 */
async function preflight(runner: Runner, checks: Preflight[], runsDir: string): Promise<void> {
  const problems: Violation[] = [];
  for (const { loaded, skill, engine } of checks) {
    const result = await runJob(
      runner,
      {
        skill_id: skill.id,
        engine: engine.name,
        input: solveInputs(runner, loaded.task),
        parameter: {},
        options: { dry_run: true, engine: engine.options ?? {} },
      },
      { skill, runsDir },
    );
    if (result.error) {
      problems.push({
        file: loaded.displayPath,
        field: engine.label,
        message: `task ${loaded.task.task_id} with engine ${engine.label}: [${result.error.code}] ${result.error.message}`,
      });
    }
  }
  if (problems.length > 0) {
    throw new SkillrigError("usage", `the solve jobs cannot be prepared:\n${problems.map((p) => `  ${p.message}`).join("\n")}`, {
      violations: problems,
    });
  }
}

/** An attempt the batch's cancellation kept from starting. */
export function notRun(task_id: string, engine: string, attempt: number, total: number): AttemptResult {
  return {
    task_id,
    engine,
    attempt,
    status: "canceled",
    message: "not run: the batch was canceled before this attempt started",
    score: { passed: 0, total },
    transcript: [],
    cases: [],
    usage: { durationMs: 0 },
  };
}

/** An attempt the batch's budget kept from starting: `not_run`, reason `cost_limit`. */
export function notRunForBudget(task_id: string, engine: string, attempt: number, total: number, why: string): AttemptResult {
  return {
    ...notRun(task_id, engine, attempt, total),
    status: "not_run",
    reason: "cost_limit",
    message: `not run: ${why}`,
  };
}
