/**
 * One `skillrig eval` iteration: every case x configuration x engine x run as a job of its own (runJob from
 * @skillrig/skills), each run's outputs copied out of the job's workspace, its answer, timing and grading written
 * in the specification's layout (layout.ts), then benchmark.json, and the trigger evals when asked. iteration.json
 * is written first (status running) and last (its end status), so a broken-off iteration still says what it was.
 *
 *   with_skill     the skill installed where the engine discovers it, named nowhere (`skill_install: discoverable`)
 *   without_skill  no skill at all (`skill_install: none`)
 *   old_skill      the baseline folder's skill, installed as with_skill is (`--baseline`)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SkillrigError, type JobRequest, type JobResult, type Runner, type SkillManifest } from "@skillrig/core";
import { contextFileText } from "@skillrig/engine-kit";
import { runJob } from "@skillrig/skills";
import pLimit from "p-limit";
import {
  EVAL_FORMAT_VERSION,
  type Assertion,
  type AssertionResult,
  type Benchmark,
  type BenchmarkRun,
  type Configuration,
  type Grading,
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
import { runTriggers, type TriggerRunInfo } from "./run-triggers.js";
import { buildBenchmark, meetsMinPassRate, round } from "./stats.js";

/** The context files the bundled engines write at the workspace's top (engine-kit's prepareWorkspace). */
const CONTEXT_FILES = ["GEMINI.md", "AGENTS.md", "CLAUDE.md"];

export interface RunIterationOptions {
  runner: Runner;
  skill: SkillManifest;
  /** The old snapshot to compare with (`--baseline`): the configurations are with_skill and old_skill. */
  baseline?: SkillManifest;
  evals: LoadedEvals;
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
  minPassRate?: number;
  gradeRun: GradeRun;
  /** Each job's time limit (default: the job's own). */
  timeoutMs?: number;
  outputsCapBytes?: number;
  signal?: AbortSignal;
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
  /** Every case's with_skill mean pass rate met the minimum. */
  passed: boolean;
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
  return baseline ? ["with_skill", "old_skill"] : ["with_skill", "without_skill"];
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
  const configurations = configurationsOf(baseline);
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
    status: "running",
    ...(options.minPassRate !== undefined ? { min_pass_rate: options.minPassRate } : {}),
  };
  const recordFile = join(dir, "iteration.json");
  writeJson(recordFile, record);

  try {
    const plan = planRuns(evals.cases, configurations, engines, runs);
    const limit = pLimit(Math.max(1, options.jobs ?? 1));
    const results = await Promise.all(plan.map((p) => limit(() => runOne(options, p, dir, jobsDir))));
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
    if (options.triggers && !options.signal?.aborted) {
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
        onRun: options.onTriggerRun,
      });
      writeJson(join(dir, "triggers.json"), triggers);
    }
    // A canceled iteration broke off: its files say what ran, but it neither passed nor failed.
    const canceled = options.signal?.aborted === true;
    const passed = !canceled && meetsMinPassRate(benchmark, options.minPassRate ?? 0);
    const status: IterationRecord["status"] = canceled ? "error" : passed ? "passed" : "failed";
    writeJson(recordFile, { ...record, status, finished_at: new Date().toISOString() });
    return { iteration, dir, benchmark, ...(triggers ? { triggers } : {}), passed };
  } catch (error) {
    writeJson(recordFile, { ...record, status: "error", finished_at: new Date().toISOString() });
    throw error;
  }
}

/** One planned run: its job, what it left, its grading, its line in benchmark.json. */
async function runOne(options: RunIterationOptions, p: PlannedRun, dir: string, jobsDir: string): Promise<BenchmarkRun> {
  const runDir = join(dir, p.path);
  mkdirSync(runDir, { recursive: true });
  const skill = p.configuration === "old_skill" ? options.baseline! : options.skill;
  const job = await runCaseJob(options, p, skill, jobsDir);
  const outputsDir = join(runDir, "outputs");
  const { answer, timing } = recordRun(options, p, skill, job, runDir, outputsDir);
  const grading = await gradeOne(options, p, answer, {
    runner: options.runner,
    skillDir: options.skill.dir,
    prompt: p.evalCase.prompt,
    ...(p.evalCase.expected_output !== undefined ? { expectedOutput: p.evalCase.expected_output } : {}),
    assertions: p.evalCase.assertions,
    outputsDir,
    answer: job.result?.output,
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
}

/** The run's job: the case's prompt and files, the skill installed as the configuration says. */
async function runCaseJob(options: RunIterationOptions, p: PlannedRun, skill: SkillManifest, jobsDir: string): Promise<CaseJob> {
  const request: JobRequest = {
    skill_id: skill.id,
    engine: p.engine,
    prompt: p.evalCase.prompt,
    files: Object.fromEntries(p.evalCase.files.map((f) => [f.workspacePath, f.source])),
    options: {
      skill_install: p.configuration === "without_skill" ? "none" : "discoverable",
      ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}),
    },
  };
  if (options.signal?.aborted) return { request, refused: { code: "canceled", message: "the eval was canceled before this run started" } };
  try {
    return { request, result: await runJob(options.runner, request, { skill, runsDir: jobsDir, signal: options.signal }) };
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
  { request, result, refused }: CaseJob,
  runDir: string,
  outputsDir: string,
): { answer: RunAnswer; timing: Timing } {
  const copied = copyOutputs(result ? join(result.run_dir, "workspace") : join(runDir, "no-workspace"), outputsDir, {
    capBytes: options.outputsCapBytes ?? DEFAULT_OUTPUTS_CAP_BYTES,
    writtenBySkillrig: result ? contextFilesOf(result, skill, request) : [],
  });
  const status: RunAnswer["status"] =
    result?.status === "succeeded" ? "succeeded" : result?.status === "canceled" || refused?.code === "canceled" ? "canceled" : "failed";
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
  };
  writeJson(join(runDir, "answer.json"), answer);
  const timing: Timing = {
    total_tokens: tokensOf(result),
    duration_ms: result?.timings.duration_ms ?? 0,
    ...(result?.usage?.inputTokens !== undefined ? { input_tokens: result.usage.inputTokens } : {}),
    ...(result?.usage?.outputTokens !== undefined ? { output_tokens: result.usage.outputTokens } : {}),
    ...(result?.timings.engine_ms !== undefined ? { engine_ms: result.timings.engine_ms } : {}),
  };
  writeJson(join(runDir, "timing.json"), timing);
  return { answer, timing };
}

/** The run's grading: every assertion failed when the run did not succeed, else gradeRun's (which never throws for an output). */
async function gradeOne(options: RunIterationOptions, p: PlannedRun, answer: RunAnswer, input: GradeRunInput): Promise<Grading> {
  const { assertions } = p.evalCase;
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
