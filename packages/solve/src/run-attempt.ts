/**
 * One attempt: the engine runs the solve skill for a task (through @skillrig/skills' `runJob`), the collected
 * deliverable is graded by the Task Oracle's suite path (`gradeSample`, the unit `skillrig test` suites schedule:
 * one sample of one task, sandboxed like every deliverable), and both are folded into one `AttemptResult`.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isSkillrigError, type EngineEvent, type JobResult, type LoadedTask, type Runner, type SkillManifest } from "@skillrig/core";
import { gradeSample, resolveDeliverable } from "@skillrig/oracle";
import { runJob } from "@skillrig/skills";
import type { AttemptResult, TranscriptEvent } from "./report.js";
import { solveInputs } from "./solve-skill.js";

/** Largest deliverable kept verbatim in the report; the file itself stays in the run folder. */
const DELIVERABLE_REPORT_BYTES = 256 * 1024;
/** Most events kept per transcript (streamed message deltas are merged first). */
const TRANSCRIPT_EVENTS = 2000;

export interface AttemptSpec {
  loaded: LoadedTask;
  /** The task as scored (without the cases the reference solution fails). */
  scored: LoadedTask;
  skill: SkillManifest;
  engine: { label: string; name: string; options?: Record<string, unknown> };
  attempt: number;
  runsDir?: string;
  timeoutMs?: number;
  /** Cases graded at once. */
  caseJobs: number;
  signal?: AbortSignal;
  /** Refuse to run an engine outside the agent jail (a jobs server sets this; see docs/sandbox.md). */
  requireEngineJail?: boolean;
  /** The job's own budget (what is left of the solve's, `--max-cost-usd` / `--max-tokens`), when there is one. */
  budget?: { max_cost_usd?: number; max_tokens?: number };
  /** Each engine event as it comes (a jobs server forwards them to the job's event stream). */
  onEvent?: (event: EngineEvent) => void;
}

/**
 * The attempt as named steps: run the job, start the result from it, then either say why there is no deliverable
 * or grade the one there is.
 */
export async function runAttempt(runner: Runner, spec: AttemptSpec): Promise<AttemptResult> {
  const started = performance.now();
  const transcript: TranscriptEvent[] = [];
  const job = await runSolveJob(runner, spec, transcript);
  const result = await attemptFromJob(spec, job, transcript);
  const artifact = job.artifacts.find((a) => a.field === "deliverable");
  if (!artifact) sayWhyNoDeliverable(result, job, spec);
  else {
    result.deliverable = await deliverableOfReport(artifact);
    await gradeDeliverable(runner, spec, artifact.path, job, result);
  }
  result.usage = usageOf(job, performance.now() - started);
  return result;
}

/**
 * The engine runs the solve skill. runJob throws only for requests it refuses (solve's preflight has rendered the
 * same request already); the batch keeps going and the attempt says why.
 */
async function runSolveJob(runner: Runner, spec: AttemptSpec, transcript: TranscriptEvent[]): Promise<JobResult> {
  return runJob(
    runner,
    {
      skill_id: spec.skill.id,
      engine: spec.engine.name,
      input: solveInputs(runner, spec.loaded.task),
      parameter: {},
      options: {
        engine: spec.engine.options ?? {},
        ...(spec.timeoutMs !== undefined ? { timeout_ms: spec.timeoutMs } : {}),
        ...spec.budget,
      },
    },
    {
      skill: spec.skill,
      runsDir: spec.runsDir,
      signal: spec.signal,
      requireEngineJail: spec.requireEngineJail,
      onEvent: (event) => {
        // When it happened, so a transcript shows the time between events (the view's timeline).
        appendEvent(transcript, { ...event, at: new Date().toISOString() });
        spec.onEvent?.(event);
      },
    },
  ).catch((error: unknown): JobResult => {
    if (!isSkillrigError(error)) throw error;
    const now = new Date().toISOString();
    return {
      job_id: "",
      skill_id: spec.skill.id,
      engine: spec.engine.name,
      status: "failed",
      artifacts: [],
      error: error.toJSON(),
      run_dir: "",
      timings: { started_at: now, finished_at: now },
    };
  });
}

/** The attempt's result as the job left it: failed with no case passed until grading says otherwise. */
async function attemptFromJob(spec: AttemptSpec, job: JobResult, transcript: TranscriptEvent[]): Promise<AttemptResult> {
  return {
    task_id: spec.loaded.task.task_id,
    engine: spec.engine.label,
    attempt: spec.attempt,
    status: "failed",
    score: { passed: 0, total: spec.scored.task.tests.length },
    job: {
      job_id: job.job_id,
      status: job.status,
      run_dir: job.run_dir,
      engine_version: job.engine_version,
      error: job.error,
      warnings: job.warnings,
    },
    prompt: job.prompt,
    skill_md: job.run_dir ? await readFile(join(job.run_dir, "SKILL.patched.md"), "utf8").catch(() => undefined) : undefined,
    transcript,
    cases: [],
    usage: usageOf(job, 0),
  };
}

/** No deliverable was collected. Only the batch's own cancellation makes an attempt `canceled`; a job that ran out of time failed. */
function sayWhyNoDeliverable(result: AttemptResult, job: JobResult, spec: AttemptSpec): void {
  result.status =
    job.status === "canceled" && spec.signal?.aborted
      ? "canceled"
      : job.error?.code === "artifact_missing" || job.status === "succeeded"
        ? "artifact_missing"
        : "engine_failed";
  result.message =
    result.status === "artifact_missing"
      ? `the agent wrote no deliverable: ${job.error?.message ?? "no deliverable artifact was collected"}`
      : `the job ${job.status}: ${job.error ? `[${job.error.code}] ${job.error.message}` : "no reason given"}`;
}

/** The deliverable as the report keeps it: the file's text, cut at DELIVERABLE_REPORT_BYTES. */
async function deliverableOfReport(artifact: { filename: string; path: string }): Promise<AttemptResult["deliverable"]> {
  const bytes = await readFile(artifact.path);
  return {
    file: artifact.filename,
    path: artifact.path,
    content: bytes.subarray(0, DELIVERABLE_REPORT_BYTES).toString("utf8"),
    ...(bytes.length > DELIVERABLE_REPORT_BYTES ? { truncated: true } : {}),
  };
}

/** Grades the written deliverable against the scored task (read by its type's `task.resolveDeliverable`). */
async function gradeDeliverable(runner: Runner, spec: AttemptSpec, path: string, job: JobResult, result: AttemptResult): Promise<void> {
  // The deliverable was written; a malformed final answer does not stop it from being graded, but it is said.
  const jobNote =
    job.status === "succeeded"
      ? undefined
      : `graded the deliverable although the job ${job.status}: [${job.error?.code}] ${job.error?.message}`;
  try {
    const deliverable = await resolveDeliverable(runner, path, spec.scored.task);
    const graded = await gradeSample(runner, { loaded: spec.scored, deliverable, jobs: spec.caseJobs, signal: spec.signal });
    if (!graded.report) {
      result.status = "grading_error";
      result.message = `the deliverable could not be graded: [${graded.error?.code}] ${graded.error?.message}`;
      return;
    }
    const report = graded.report;
    result.cases = report.cases;
    result.score = { passed: report.summary.passed, total: report.summary.total };
    result.status = report.summary.total > 0 && report.summary.passed === report.summary.total ? "passed" : "failed";
    const notPassed = report.cases.filter((c) => c.status !== "passed");
    result.message =
      [
        notPassed.length > 0
          ? `${notPassed.length} of ${report.summary.total} cases did not pass: ${notPassed.map((c) => `${c.name} (${c.status})`).join(", ")}`
          : undefined,
        jobNote,
      ]
        .filter(Boolean)
        .join("; ") || undefined;
  } catch (error) {
    if (!isSkillrigError(error)) throw error;
    result.status = "grading_error";
    result.message = `the deliverable could not be graded: [${error.code}] ${error.message}`;
  }
}

/** Merges consecutive streamed deltas of one role into one message, and caps the transcript's length. */
function appendEvent(transcript: TranscriptEvent[], event: TranscriptEvent): void {
  const last = transcript[transcript.length - 1];
  if (event.type === "message" && event.delta && last?.type === "message" && last.delta && last.role === event.role) {
    transcript[transcript.length - 1] = { ...last, text: last.text + event.text };
    return;
  }
  if (transcript.length < TRANSCRIPT_EVENTS) transcript.push(event);
  else if (transcript.length === TRANSCRIPT_EVENTS)
    transcript.push({
      type: "log",
      stream: "skillrig",
      line: "transcript truncated; the full event log is in the run folder's logs/events.jsonl",
      at: event.at,
    });
}

function usageOf(job: JobResult, durationMs: number): AttemptResult["usage"] {
  return {
    ...(job.usage?.inputTokens !== undefined ? { inputTokens: job.usage.inputTokens } : {}),
    ...(job.usage?.outputTokens !== undefined ? { outputTokens: job.usage.outputTokens } : {}),
    ...(job.usage?.totalTokens !== undefined ? { totalTokens: job.usage.totalTokens } : {}),
    ...(job.timings.engine_ms !== undefined ? { engineMs: job.timings.engine_ms } : {}),
    durationMs: Math.round(durationMs),
    ...(job.usage?.cachedInputTokens !== undefined ? { cachedInputTokens: job.usage.cachedInputTokens } : {}),
    ...(job.usage?.reasoningTokens !== undefined ? { reasoningTokens: job.usage.reasoningTokens } : {}),
    ...(job.usage?.source !== undefined ? { source: job.usage.source } : {}),
    // A job that never reached its engine has no cost_usd: nothing is said, rather than a guessed $0.
    ...(job.cost_usd !== undefined ? { costUsd: typeof job.cost_usd === "number" ? job.cost_usd : null } : {}),
  };
}
