/**
 * Runs one stored job through JobExecution and says how it ended; the same for the local queue and for a Redis
 * worker, so both backends produce the same results, run folders and events.
 */
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { EngineEvent, JobRequest, SerializedError } from "@skillrig/core";
import type { JobExecution, SolveAttemptRequest } from "./job-execution.js";
import type { JobRecord } from "./job-store.js";

export interface RunJobRecordOptions {
  execution: JobExecution;
  runsDir: string;
  uploadsDir: string;
  signal: AbortSignal;
  /** An event for the job's log: `engine`, `log` or `case`. */
  onEvent(type: string, data: unknown): void;
}

export interface JobOutcome {
  status: "succeeded" | "failed" | "canceled";
  result?: unknown;
  error?: SerializedError | null;
  reason?: string | null;
}

export async function runJobRecord(job: JobRecord, options: RunJobRecordOptions): Promise<JobOutcome> {
  const { execution, signal } = options;
  if (job.kind === "oracle") {
    // The task's text as sent (exact values); a job stored before the text was kept has the parsed `task`.
    const text = job.request.task_text;
    const loaded = typeof text === "string" ? execution.loadTaskText(text) : execution.loadTask(job.request.task);
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
    const attempt = await execution.runSolveAttempt(job.request as unknown as SolveAttemptRequest, {
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
  const request = { ...(job.request as unknown as JobRequest) };
  const uploads = join(options.uploadsDir, job.id);
  // Only a job that waited for an upload has a staging folder; looking for one that cannot exist (a failed readdir,
  // then a recursive rm) was a tenth of the main thread's time per job at 100 clients.
  const files = job.needs_upload ? await readdir(uploads).catch(() => [] as string[]) : [];
  if (files.length > 0) request.files = Object.fromEntries(files.map((name) => [name, join(uploads, name)]));
  const result = await execution.runSkillJob(request, {
    jobId: job.id,
    runsDir: options.runsDir,
    signal,
    onEvent: (event: EngineEvent) => options.onEvent(event.type === "log" ? "log" : "engine", event),
  });
  // The uploads now live in the run folder's uploads/; the staging copy is no longer needed.
  if (job.needs_upload) await rm(uploads, { recursive: true, force: true });
  return {
    status: result.status === "succeeded" ? "succeeded" : result.status === "canceled" ? "canceled" : "failed",
    result,
    error: result.error ?? null,
  };
}

/**
 * Before a job that was interrupted runs again: runJob creates a skill job's (or a solve attempt's) run folder
 * afresh, so the half-done one would be in its way; an oracle run's folder holds its uploaded deliverable, which the
 * next attempt needs.
 */
export async function clearForRerun(job: JobRecord): Promise<void> {
  if (job.kind !== "oracle") await rm(job.run_dir, { recursive: true, force: true });
}
