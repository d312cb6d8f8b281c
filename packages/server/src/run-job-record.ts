/**
 * Runs one stored job through JobExecution and says how it ended; the same for the local queue and for a Redis
 * worker, so both backends produce the same results, run folders and events.
 */
import { readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillrigError, type EngineEvent, type SerializedError } from "@skillrig/core";
import type { JobExecution } from "./job-execution.js";
import type { JobRecord } from "./job-store.js";

export interface RunJobRecordOptions {
  execution: JobExecution;
  runsDir: string;
  signal: AbortSignal;
  /** An event for the job's log: `engine`, `log` or `case`. */
  onEvent(type: string, data: unknown): void;
  /** `server.job_max_running_ms`: past it the job is stopped and ends failed, error `timeout`, reason `time_limit`. */
  maxRunningMs?: number;
}

export interface JobOutcome {
  status: "succeeded" | "failed" | "canceled";
  result?: unknown;
  error?: SerializedError | null;
  reason?: string | null;
}

/**
 * Runs the job, stopped by its signal or once it has run `maxRunningMs` (the server's cap on one job's time, so no
 * job holds a worker slot for longer): then it ends `failed` with reason `time_limit`, keeping whatever result the
 * stopped work returned and its run folder as it was left.
 */
export async function runJobRecord(job: JobRecord, options: RunJobRecordOptions): Promise<JobOutcome> {
  const limit = options.maxRunningMs;
  if (limit === undefined) return runJobKind(job, options);
  const capped = new AbortController();
  const forward = () => capped.abort(options.signal.reason);
  if (options.signal.aborted) forward();
  else options.signal.addEventListener("abort", forward, { once: true });
  let overrun = false;
  const timer = setTimeout(() => {
    overrun = true;
    options.onEvent("log", { stream: "skillrig", line: `the job ran past server.job_max_running_ms (${limit} ms); stopping it` });
    capped.abort(new SkillrigError("timeout", timeLimitMessage(limit)));
  }, limit);
  // The cap never keeps a stopping process alive: a job that runs keeps it alive on its own.
  timer.unref();
  try {
    const outcome = await runJobKind(job, { ...options, signal: capped.signal });
    return overrun ? timeLimited(limit, outcome.result) : outcome;
  } catch (error) {
    if (overrun) return timeLimited(limit, undefined);
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", forward);
  }
}

function timeLimitMessage(limit: number): string {
  return `the job ran longer than server.job_max_running_ms (${limit} ms) and was stopped; its run folder keeps what it had done`;
}

/** The record of a job stopped by `server.job_max_running_ms`. */
export function timeLimited(limit: number, result: unknown): JobOutcome {
  return {
    status: "failed",
    reason: "time_limit",
    result,
    error: {
      code: "timeout",
      message: timeLimitMessage(limit),
      field: "server.job_max_running_ms",
      hint: "split the work into shorter jobs, or raise server.job_max_running_ms in the server's config",
      details: { limit: "server.job_max_running_ms", max_ms: limit },
    },
  };
}

async function runJobKind(job: JobRecord, options: RunJobRecordOptions): Promise<JobOutcome> {
  const { execution, signal } = options;
  if (job.kind === "oracle") {
    // The task's text as sent (exact values); a job stored before the text was kept has the parsed `task`.
    const loaded = "task_text" in job.request ? execution.loadTaskText(job.request.task_text) : execution.loadTask(job.request.task);
    const report = await execution.runOracle(loaded, join(job.run_dir, "deliverable"), {
      signal,
      onCase: (verdict) => {
        const { name, index, status, duration_ms, message } = verdict;
        options.onEvent("case", { name, index, status, duration_ms, message });
      },
    });
    await writeFile(join(job.run_dir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
    return { status: "succeeded", result: report };
  }
  if (job.kind === "solve") {
    const attempt = await execution.runSolveAttempt(job.request, {
      runDir: job.run_dir,
      signal,
      onEvent: (event: EngineEvent) => options.onEvent(event.type === "log" ? "log" : "engine", event),
      onCase: (verdict) => {
        const { name, index, status, duration_ms, message } = verdict;
        options.onEvent("case", { name, index, status, duration_ms, message });
      },
    });
    // Whatever the engine or the grading did, the attempt was carried out and its result says how it went;
    // only a cancellation ends the job otherwise.
    return { status: attempt.status === "canceled" ? "canceled" : "succeeded", result: attempt };
  }
  // The upload, if the skill has file inputs, is already in the run folder's uploads/ (the upload route unzipped it
  // there); runJob makes the rest of the folder around it.
  const result = await execution.runSkillJob(job.request, {
    jobId: job.id,
    runsDir: options.runsDir,
    signal,
    onEvent: (event: EngineEvent) => options.onEvent(event.type === "log" ? "log" : "engine", event),
  });
  return {
    status: result.status === "succeeded" ? "succeeded" : result.status === "canceled" ? "canceled" : "failed",
    result,
    error: result.error ?? null,
  };
}

/** Where POST /v1/jobs/{id}/upload unzips a skill job's files: straight into its run folder. */
export function uploadsOf(runDir: string): string {
  return join(runDir, "uploads");
}

/**
 * Before a job that was interrupted runs again: runJob creates a skill job's (or a solve attempt's) run folder
 * afresh, so the half-done one would be in its way, all but the job's upload, which the next attempt reads again;
 * an oracle run's folder holds its uploaded deliverable, which the next attempt needs.
 */
export async function clearForRerun(job: JobRecord): Promise<void> {
  if (job.kind === "oracle") return;
  const entries = await readdir(job.run_dir).catch(() => [] as string[]);
  await Promise.all(
    entries.filter((name) => name !== "uploads").map((name) => rm(join(job.run_dir, name), { recursive: true, force: true })),
  );
}

/** A job that will not run: its upload is dropped, and its run folder with it when nothing else is in it. */
export async function dropUpload(runDir: string): Promise<void> {
  await rm(uploadsOf(runDir), { recursive: true, force: true });
  await rmdir(runDir).catch(() => undefined);
}
