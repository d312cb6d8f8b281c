/**
 * `--retries N`: a run whose job was lost to its infrastructure (the model endpoint answered 429 or 5xx or could not
 * be reached, the engine died before its first event, the agent jail did not start: the job result's
 * `infrastructure_failure`, typed by engine-kit from what skillrig saw itself) runs again as a new job, up to N more
 * times. A run that failed any other way, or whose answer or assertions failed, is never run again: that is the
 * skill's result. Every attempt keeps its own job folder (jobs/<job id>/: prompt, events, logs), and the run's record
 * lists each attempt with its failure type.
 */
import type { InfrastructureFailure, JobResult } from "@skillrig/core";

/** One attempt of a run, as answer.json lists it. */
export interface RunAttempt {
  /** From 1. */
  attempt: number;
  job_id: string;
  /** The attempt's job folder, absolute. */
  job_dir: string;
  status: JobResult["status"];
  /** Why the attempt was lost, when its infrastructure failed it (it was then run again, retries allowing). */
  infrastructure_failure?: InfrastructureFailure;
}

export interface RetriedJob {
  /** The last attempt's result (the run's). */
  result: JobResult;
  attempts: RunAttempt[];
}

export interface RetryOptions {
  /** Runs after the first (`--retries`; 0: none). */
  retries: number;
  /** Whether another attempt may start (not when the eval was canceled or its budget is spent). */
  mayRetry?: () => boolean;
  /** Called before each retry, with the attempt that failed. */
  onRetry?: (failed: RunAttempt) => void;
}

function attemptOf(result: JobResult, attempt: number): RunAttempt {
  return {
    attempt,
    job_id: result.job_id,
    job_dir: result.run_dir,
    status: result.status,
    ...(result.infrastructure_failure ? { infrastructure_failure: result.infrastructure_failure } : {}),
  };
}

/** Whether a job's result is worth another attempt: it failed, and for its infrastructure only. */
export function lostToInfrastructure(result: JobResult): boolean {
  return result.status === "failed" && result.infrastructure_failure !== undefined;
}

/**
 * Runs `runAttempt(1)`, then again with the next attempt number while the last one was lost to its infrastructure
 * and retries are left. Throws what `runAttempt` throws (a request refused before it had a job).
 */
export async function runWithRetries(runAttempt: (attempt: number) => Promise<JobResult>, options: RetryOptions): Promise<RetriedJob> {
  const attempts: RunAttempt[] = [];
  for (let attempt = 1; ; attempt++) {
    const result = await runAttempt(attempt);
    const record = attemptOf(result, attempt);
    attempts.push(record);
    const retriesLeft = attempt <= options.retries;
    if (!lostToInfrastructure(result) || !retriesLeft || options.mayRetry?.() === false) return { result, attempts };
    options.onRetry?.(record);
  }
}
