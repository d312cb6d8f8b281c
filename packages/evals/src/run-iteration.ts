/**
 * One `skillrig eval` iteration: every case x configuration x engine x run as a job of its own (runJob from
 * @skillrig/skills), each run's outputs copied out of the job's workspace, its answer, timing and grading written
 * in the specification's layout (layout.ts), then benchmark.json, and the trigger evals when asked. iteration.json
 * is written first (status running) and last (its end status), so a broken-off iteration still says what it was.
 *
 *   with_skill     the skill installed where the engine discovers it, named nowhere (`skill_install: discoverable`)
 *   without_skill  no skill at all (`skill_install: none`)
 *   old_skill      the baseline folder's skill, installed as with_skill is (`--baseline`)
 *   inline_skill   nothing installed; SKILL.md and the files it references in the prompt (`--configs`, inline-skill.ts)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SkillrigError, type JobRequest, type JobResult, type Runner, type SkillManifest } from "@skillrig/core";
import { contextFileText } from "@skillrig/engine-kit";
import { type InvocationBudget, runJob } from "@skillrig/skills";
import pLimit from "p-limit";
import {
  EVAL_FORMAT_VERSION,
  type Assertion,
  type AssertionResult,
  type Benchmark,
  type BenchmarkRun,
  type Configuration,
  type Grading,
  type IterationComparison,
  type IterationRecord,
  type RunAnswer,
  type Timing,
  type TriggerReport,
} from "./format.js";
import type { GradeRun, GradeRunInput } from "./grading-contract.js";
import { assertionText, summarizeResults } from "./grading/index.js";
import { iterationDir, nextIteration, runPath, type LayoutShape } from "./layout.js";
import type { LoadedCase, LoadedEvals, LoadedTriggers } from "./load-evals.js";
import { copyOutputs, DEFAULT_OUTPUTS_CAP_BYTES } from "./outputs.js";
import { sealResultNames, storedName } from "./result-names.js";
import { runTriggers, type TriggerRunInfo } from "./run-triggers.js";
import { compareIterations } from "./compare-iterations.js";
import { type RunAttempt, runWithRetries } from "./infrastructure-retries.js";
import { defaultConfigurations, skillInstallOf } from "./configurations.js";
import type { LoadedDistractors } from "./distractors.js";
import { inlinePrompt, inlineSkill, type InlineSkill } from "./inline-skill.js";
import { buildBenchmark, meetsMinPassRate, round } from "./stats.js";

/** The context files the bundled engines write at the workspace's top (engine-kit's prepareWorkspace). */
const CONTEXT_FILES = ["GEMINI.md", "AGENTS.md", "CLAUDE.md"];

export interface RunIterationOptions {
  runner: Runner;
  skill: SkillManifest;
  /** The old snapshot to compare with (`--baseline`): the configurations are with_skill and old_skill. */
  baseline?: SkillManifest;
  evals: LoadedEvals;
  /** The configurations to run, each once, with_skill among them (`--configs`; default: defaultConfigurations). */
  configurations?: Configuration[];
  /** The bound on an inline_skill prompt's skill text, in bytes (default INLINE_SKILL_MAX_BYTES). */
  inlineSkillMaxBytes?: number;
  /** Neighbour skills installed beside the skill in every trigger run (`--distractors`). */
  distractors?: LoadedDistractors;
  /** Trigger queries to run after the cases (none: no trigger evals). */
  triggers?: LoadedTriggers;
  triggerRuns?: number;
  engines: string[];
  /** Runs per case, configuration and engine (default 1). */
  runs?: number;
  /** Runs at once (default 1). */
  jobs?: number;
  /** The judge engine, and the path of the user's own judge prompt template, if any. */
  judge?: { engine: string; template?: string };
  /** The eval folder: iterations go in it (`--out`). */
  evalDir: string;
  /** Gate: every case's with_skill mean pass rate at least this. Without it (and without failOn) no gate: `finished`. */
  minPassRate?: number;
  /** The earlier iteration to compare with (its benchmark.json): comparison.json, and the --fail-on gate. */
  against?: Benchmark;
  /** Gate on the comparison with `against`: `regression` (a case's with_skill rate fell), `significant`, `never`. */
  failOn?: "regression" | "significant" | "never";
  gradeRun: GradeRun;
  /** Each job's time limit (default: the job's own). */
  timeoutMs?: number;
  outputsCapBytes?: number;
  signal?: AbortSignal;
  /**
   * The invocation's budget (`--max-cost-usd`, `--max-tokens`), shared by every case run: each run's job gets what is
   * left as its own budget, and once it is spent no further run starts (those runs are `canceled`, error `cost_limit`).
   */
  budget?: InvocationBudget;
  /**
   * Runs again, up to this many times, a run whose job was lost to its infrastructure (`--retries`; default 0):
   * infrastructure-retries.ts. A run that failed for its answer or assertions is never run again.
   */
  retries?: number;
  /** Called before a run is retried, with the attempt that was lost. */
  onRetry?: (where: string, failed: RunAttempt) => void;
  /** Called as each run is graded (progress). */
  onRun?: (run: BenchmarkRun) => void;
  onTriggerRun?: (run: TriggerRunInfo) => void;
}

export interface IterationResult {
  iteration: number;
  /** The iteration folder, absolute. */
  dir: string;
  benchmark: Benchmark;
  triggers?: TriggerReport;
  /** This iteration against `against`, when there was one. */
  comparison?: IterationComparison;
  /** Whether any gate was asked for (--min-pass-rate, --fail-on other than never). */
  gated: boolean;
  /** Every gate passed (true when there is none). */
  passed: boolean;
  /** Why the invocation's budget stopped the iteration (runs after it were not started): error `cost_limit`. */
  costLimit?: string;
}

interface PlannedRun {
  evalCase: LoadedCase;
  configuration: Configuration;
  engine: string;
  run: number;
  path: string;
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function configurationsOf(baseline: SkillManifest | undefined): Configuration[] {
  return defaultConfigurations(baseline !== undefined);
}

/** Every run of the iteration, in the order benchmark.json lists them. */
export function planRuns(cases: LoadedCase[], configurations: Configuration[], engines: string[], runs: number): PlannedRun[] {
  const shape: LayoutShape = { engines: engines.length, runs };
  const plan: PlannedRun[] = [];
  for (const evalCase of cases)
    for (const configuration of configurations)
      for (const engine of engines)
        for (let run = 1; run <= runs; run++)
          plan.push({ evalCase, configuration, engine, run, path: runPath(shape, evalCase.id, configuration, engine, run) });
  return plan;
}

/** A grading where every assertion failed for one reason (the run failed, or grading could not run). */
export function allFailed(assertions: Assertion[], evidence: string, errors?: string[]): Grading {
  const results: AssertionResult[] = assertions.map((a) => ({
    text: assertionText(a),
    passed: false,
    evidence,
    graded_by: typeof a === "string" ? "judge" : a.kind,
  }));
  // A run that failed fails its case even with no assertions to list.
  return { assertion_results: results, summary: { ...summarizeResults(results), pass_rate: 0 }, ...(errors ? { errors } : {}) };
}

/**
 * The files skillrig itself wrote into a job's workspace (the engine's context file), with their text: engine-kit's
 * contextFileText for this job (it reads the job id, the skill and how the skill was installed).
 */
function contextFilesOf(result: JobResult, skill: SkillManifest, request: JobRequest): Array<{ path: string; text: string }> {
  const skillDir = join(result.run_dir, "workspace", ".agents", "skills", skill.id);
  const text = contextFileText({ work: { jobId: result.job_id, skill, skillInstall: request.options?.skill_install } }, skillDir);
  return CONTEXT_FILES.map((path) => ({ path, text }));
}

function tokensOf(result: JobResult | undefined): number {
  const u = result?.usage;
  if (!u) return 0;
  return u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
}

/**
 * An eval's runs are jobs with a free-form prompt, which only a plain Agent Skill (SKILL.md, no assets/runner.json)
 * takes: a runner.json skill renders its own prompt from typed inputs, so every run would be refused.
 */
export function checkPlainSkill(skill: SkillManifest, what: string): void {
  if (skill.plain === true) return;
  throw new SkillrigError(
    "invalid_skill",
    `${what} "${skill.id}" has assets/runner.json: skillrig eval runs plain Agent Skills (SKILL.md without runner.json), whose jobs take the case's prompt as is`,
    { file: skill.runnerFile, hint: "evaluate a plain Agent Skill, or run this skill's cases with skillrig run (docs/evals.md)" },
  );
}

export async function runIteration(options: RunIterationOptions): Promise<IterationResult> {
  const { runner, skill, baseline, evals, engines } = options;
  checkPlainSkill(skill, "skill");
  if (baseline) checkPlainSkill(baseline, "the --baseline skill");
  const runs = options.runs ?? 1;
  const configurations = options.configurations ?? configurationsOf(baseline);
  if (configurations.includes("old_skill") && !baseline)
    throw new SkillrigError("usage", "the old_skill configuration needs a baseline skill (--baseline)", { field: "--configs" });
  // Read and bounded before anything runs: a skill too large to inline is refused with exit 2, not as failed runs.
  const inline = configurations.includes("inline_skill") ? inlineSkill(skill, options.inlineSkillMaxBytes) : undefined;
  const iteration = nextIteration(options.evalDir);
  const dir = iterationDir(options.evalDir, iteration);
  const jobsDir = join(dir, "jobs");
  mkdirSync(jobsDir, { recursive: true });
  const record: IterationRecord = {
    format: "skillrig-eval-iteration",
    version: EVAL_FORMAT_VERSION,
    skill_name: skill.name,
    skill_path: skill.dir,
    iteration,
    started_at: new Date().toISOString(),
    engines,
    configurations,
    runs_per_configuration: runs,
    ...(options.judge ? { judge: options.judge.engine } : {}),
    ...(baseline ? { baseline_path: baseline.dir } : {}),
    ...(inline
      ? {
          inline_skill: {
            files: inline.files,
            bytes: inline.bytes,
            max_bytes: inline.max_bytes,
            ...(inline.left_out ? { left_out: inline.left_out } : {}),
          },
        }
      : {}),
    ...(options.distractors && options.triggers ? { distractors_path: options.distractors.dir } : {}),
    status: "running",
    ...(options.minPassRate !== undefined ? { min_pass_rate: options.minPassRate } : {}),
    ...(options.failOn !== undefined ? { fail_on: options.failOn } : {}),
    ...(options.against ? { compared_with: options.against.metadata.iteration } : {}),
  };
  const recordFile = join(dir, "iteration.json");
  writeJson(recordFile, record);

  try {
    const plan = planRuns(evals.cases, configurations, engines, runs);
    const limit = pLimit(Math.max(1, options.jobs ?? 1));
    const results = await Promise.all(plan.map((p) => limit(() => runOne(options, p, dir, jobsDir, inline))));
    const benchmark = buildBenchmark({
      metadata: {
        skill_name: skill.name,
        skill_path: skill.dir,
        iteration,
        timestamp: record.started_at,
        engines,
        configurations,
        evals_run: evals.cases.map((c) => c.id),
        runs_per_configuration: runs,
        ...(options.judge ? { judge: options.judge.engine } : {}),
      },
      runs: results,
    });
    writeJson(join(dir, "benchmark.json"), benchmark);
    let triggers: TriggerReport | undefined;
    if (options.triggers && !options.signal?.aborted && options.budget?.reached() === undefined) {
      triggers = await runTriggers({
        runner,
        skill,
        queries: options.triggers.queries,
        engines,
        runsPerQuery: options.triggerRuns ?? 3,
        runsDir: jobsDir,
        jobs: options.jobs ?? 1,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        ...(options.distractors ? { distractors: options.distractors } : {}),
        onRun: options.onTriggerRun,
      });
      writeJson(join(dir, "triggers.json"), triggers);
    }
    const comparison = options.against ? compareIterations(options.against, benchmark) : undefined;
    if (comparison) writeJson(join(dir, "comparison.json"), comparison);
    // A canceled iteration broke off: its files say what ran, but it neither passed nor failed. One with no gate
    // finished: its numbers are the result, and nothing said what passing would be. One its budget stopped broke
    // off too (status error, `stopped` says why).
    const costLimit = options.budget?.reached();
    const canceled = options.signal?.aborted === true || costLimit !== undefined;
    const failOn = options.failOn ?? "never";
    const gated = options.minPassRate !== undefined || failOn !== "never";
    const comparisonFails =
      comparison !== undefined &&
      (failOn === "regression" ? comparison.regression : failOn === "significant" && comparison.significant_drop);
    const passed = !canceled && meetsMinPassRate(benchmark, options.minPassRate ?? 0) && !comparisonFails;
    const status: IterationRecord["status"] = canceled ? "error" : !gated ? "finished" : passed ? "passed" : "failed";
    // Trigger runs' and the judge's job folders too (the judge's workspace holds a copy of each run's outputs).
    sealResultNames(jobsDir);
    const stopped = costLimit !== undefined ? { stopped: { code: "cost_limit" as const, message: costLimit } } : {};
    writeJson(recordFile, { ...record, status, finished_at: new Date().toISOString(), ...stopped });
    return {
      iteration,
      dir,
      benchmark,
      ...(triggers ? { triggers } : {}),
      ...(comparison ? { comparison } : {}),
      gated,
      passed,
      ...(costLimit !== undefined ? { costLimit } : {}),
    };
  } catch (error) {
    sealResultNames(jobsDir);
    writeJson(recordFile, { ...record, status: "error", finished_at: new Date().toISOString() });
    throw error;
  }
}

/** One planned run: its job, what it left, its grading, its line in benchmark.json. */
async function runOne(
  options: RunIterationOptions,
  p: PlannedRun,
  dir: string,
  jobsDir: string,
  inline: InlineSkill | undefined,
): Promise<BenchmarkRun> {
  const runDir = join(dir, p.path);
  mkdirSync(runDir, { recursive: true });
  const skill = p.configuration === "old_skill" ? options.baseline! : options.skill;
  const prompt = p.configuration === "inline_skill" && inline ? inlinePrompt(inline, p.evalCase.prompt) : p.evalCase.prompt;
  const job = await runCaseJob(options, p, skill, jobsDir, prompt);
  const outputsDir = join(runDir, "outputs");
  const { answer, timing } = recordRun(options, p, skill, job, runDir, outputsDir);
  // Copied: the agent's `grading.json` left in the job's folder (workspace, HOME) gets a name no reader takes for ours.
  if (job.result) sealResultNames(job.result.run_dir);
  const grading = await gradeOne(options, p, answer, {
    runner: options.runner,
    skillDir: options.skill.dir,
    prompt: p.evalCase.prompt,
    ...(p.evalCase.expected_output !== undefined ? { expectedOutput: p.evalCase.expected_output } : {}),
    assertions: p.evalCase.assertions,
    outputsDir,
    answer: job.result?.output,
    ...(job.result ? { jobDir: job.result.run_dir } : {}),
    ...(options.judge ? { judge: options.judge } : {}),
    runsDir: jobsDir,
    signal: options.signal,
  });
  writeJson(join(runDir, "grading.json"), grading);
  const run: BenchmarkRun = {
    eval_id: p.evalCase.id,
    configuration: p.configuration,
    engine: p.engine,
    run_number: p.run,
    path: p.path,
    result: {
      status: answer.status,
      pass_rate: grading.summary.pass_rate,
      passed: grading.summary.passed,
      failed: grading.summary.failed,
      total: grading.summary.total,
      time_seconds: round(timing.duration_ms / 1000),
      tokens: timing.total_tokens,
      cost_usd: timing.cost_usd ?? null,
      attempts: answer.attempts ?? 1,
      ...(answer.infrastructure_failure ? { infrastructure_failure: answer.infrastructure_failure.type } : {}),
    },
  };
  options.onRun?.(run);
  return run;
}

interface CaseJob {
  request: JobRequest;
  result?: JobResult;
  /** Why there is no result: the request was refused before the job had a folder, or the eval was canceled first. */
  refused?: { code: string; message: string };
  /** Every attempt's job (one unless the run was lost to its infrastructure and retried). */
  attempts?: RunAttempt[];
}

/** The run's job: its prompt (the case's, or with the skill inlined) and the case's files, the skill installed as the configuration says. */
async function runCaseJob(
  options: RunIterationOptions,
  p: PlannedRun,
  skill: SkillManifest,
  jobsDir: string,
  prompt: string,
): Promise<CaseJob> {
  const request: JobRequest = {
    skill_id: skill.id,
    engine: p.engine,
    prompt,
    files: Object.fromEntries(p.evalCase.files.map((f) => [f.workspacePath, f.source])),
    options: {
      skill_install: skillInstallOf(p.configuration),
      ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}),
    },
  };
  if (options.signal?.aborted) return { request, refused: { code: "canceled", message: "the eval was canceled before this run started" } };
  const spent = options.budget?.reached();
  if (spent !== undefined) return { request, refused: { code: "cost_limit", message: `not run: ${spent}` } };
  // What is left of the invocation's budget, decided as the run starts (runs at once each get the same remainder).
  if (options.budget?.active) request.options = { ...request.options, ...options.budget.jobOptions() };
  try {
    const { result, attempts } = await runWithRetries(
      async (attempt) => {
        const attemptRequest = attempt === 1 ? request : { ...request, options: { ...request.options, attempt } };
        const out = await runJob(options.runner, attemptRequest, { skill, runsDir: jobsDir, signal: options.signal });
        options.budget?.add(out);
        return out;
      },
      {
        retries: options.retries ?? 0,
        mayRetry: () => !options.signal?.aborted && options.budget?.reached() === undefined,
        onRetry: (failed) => options.onRetry?.(p.path, failed),
      },
    );
    return { request, result, attempts };
  } catch (error) {
    // A request refused before the job had a folder (engine not supported, no plugin): the run failed.
    const e = error as { code?: unknown; message?: string };
    return { request, refused: { code: typeof e.code === "string" ? e.code : "unhandled", message: e.message ?? String(error) } };
  }
}

/** outputs/ (copied once the job's process tree has ended), answer.json and timing.json. */
function recordRun(
  options: RunIterationOptions,
  p: PlannedRun,
  skill: SkillManifest,
  { request, result, refused, attempts }: CaseJob,
  runDir: string,
  outputsDir: string,
): { answer: RunAnswer; timing: Timing } {
  const copied = copyOutputs(result ? join(result.run_dir, "workspace") : join(runDir, "no-workspace"), outputsDir, {
    capBytes: options.outputsCapBytes ?? DEFAULT_OUTPUTS_CAP_BYTES,
    writtenBySkillrig: result ? contextFilesOf(result, skill, request) : [],
    rename: storedName,
  });
  const status: RunAnswer["status"] =
    result?.status === "succeeded"
      ? "succeeded"
      : result?.status === "canceled" || refused?.code === "canceled" || refused?.code === "cost_limit"
        ? "canceled"
        : "failed";
  const error = result?.error ? { code: result.error.code, message: result.error.message } : refused;
  const answer: RunAnswer = {
    eval_id: p.evalCase.id,
    configuration: p.configuration,
    engine: p.engine,
    run_number: p.run,
    job_id: result?.job_id ?? "",
    job_dir: result?.run_dir ?? "",
    status,
    ...(result?.output !== undefined ? { answer: result.output } : {}),
    ...(error ? { error } : {}),
    skills_activated: result?.skills_activated ?? [],
    ...(copied.skipped.length > 0 ? { outputs_skipped: copied.skipped } : {}),
    attempts: attempts?.length ?? 1,
    ...(attempts && attempts.length > 1 ? { attempt_history: attempts } : {}),
    ...(result?.infrastructure_failure ? { infrastructure_failure: result.infrastructure_failure } : {}),
  };
  writeJson(join(runDir, "answer.json"), answer);
  const timing: Timing = {
    total_tokens: tokensOf(result),
    duration_ms: result?.timings.duration_ms ?? 0,
    ...(result?.usage?.inputTokens !== undefined ? { input_tokens: result.usage.inputTokens } : {}),
    ...(result?.usage?.outputTokens !== undefined ? { output_tokens: result.usage.outputTokens } : {}),
    ...(result?.timings.engine_ms !== undefined ? { engine_ms: result.timings.engine_ms } : {}),
    // A run that never reached its engine cost nothing; one whose model has no price is null, never 0.
    cost_usd: result?.cost_usd === undefined ? (result?.usage ? null : 0) : typeof result.cost_usd === "number" ? result.cost_usd : null,
    ...(result?.usage?.cachedInputTokens !== undefined ? { cached_input_tokens: result.usage.cachedInputTokens } : {}),
    ...(result?.usage?.reasoningTokens !== undefined ? { reasoning_tokens: result.usage.reasoningTokens } : {}),
  };
  writeJson(join(runDir, "timing.json"), timing);
  return { answer, timing };
}

/** The run's grading: every assertion failed when the run did not succeed, else gradeRun's (which never throws for an output). */
async function gradeOne(options: RunIterationOptions, p: PlannedRun, answer: RunAnswer, input: GradeRunInput): Promise<Grading> {
  const { assertions } = p.evalCase;
  if (answer.infrastructure_failure) {
    const lost = answer.infrastructure_failure;
    const tries = `${answer.attempts ?? 1} attempt${answer.attempts === 1 ? "" : "s"}`;
    return allFailed(
      assertions,
      `the run was lost to its infrastructure after ${tries} (${lost.type}: ${lost.message}); nothing was graded, and the run is left out of the pass rate`,
    );
  }
  if (answer.status !== "succeeded") {
    const why = answer.error ? ` (${answer.error.code}: ${answer.error.message})` : "";
    return allFailed(assertions, `the run ${answer.status}${why}; nothing was graded`);
  }
  try {
    return await options.gradeRun(input);
  } catch (e) {
    const message = `grading failed: ${(e as Error).message}`;
    return allFailed(assertions, message, [message]);
  }
}
