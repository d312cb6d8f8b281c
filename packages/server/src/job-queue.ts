/**
 * What the routes use to move jobs along, whichever backend runs them: `LocalJobQueue` (jobs run in this process,
 * over SQLite) or `RedisJobQueue` (BullMQ: any API node enqueues, any worker process runs). The store is the truth
 * either way; a queue adds scheduling, cancel, recovery and live events.
 */
import { isSkillrigError, type SerializedError } from "@skillrig/core";
import type { Admission, JobRecord, JobStore, NewJob, Refusal, StoredEvent } from "./job-store.js";

export interface JobQueue {
  readonly store: JobStore;
  /** Stores a new job and, unless it waits for an upload, queues it; unless it does not fit `admission` (nothing stored). */
  create(job: NewJob, admission?: Admission): Promise<JobRecord | { refused: Refusal }>;
  /** The upload is in: `waiting_upload` -> `queued`. Undefined when the job had stopped waiting meanwhile. */
  uploaded(id: string): Promise<StoredEvent | undefined>;
  /** Records an event and hands it to live listeners. */
  record(jobId: string, type: string, data: unknown): Promise<StoredEvent>;
  /**
   * Listens to the stored events of one job as they happen, in store order. Resolves once listening (events
   * stored after that are delivered), with the unsubscribe function.
   */
  subscribe(jobId: string, listener: (event: StoredEvent) => void): Promise<() => void>;
  /** Cancels a job that has not finished: at once when it has not started, else stops its engine. False when it had finished. */
  cancel(id: string): Promise<boolean>;
  /** Settles what a previous process left behind and starts work. */
  recover(): Promise<{ failed: string[]; requeued: string[] }>;
  /** Stops taking jobs; running ones are aborted and left for on_restart to settle, exactly as after a crash. */
  close(): Promise<void>;
}

export const INTERRUPTED_ERROR: SerializedError = {
  code: "interrupted",
  message: "the server stopped while this job was running; its run folder keeps what it had done",
  hint: 'submit the job again, or set server.on_restart: "requeue" to have such jobs run again on restart',
};

/**
 * A job whose worker died while running it this many times (the process killed, a worker thread or process that
 * crashed) is not run again under `on_restart: requeue`: it is failed and quarantined, so a job that kills its
 * worker cannot take the server down at every start. The count is kept in the store, so it survives restarts.
 */
export const MAX_WORKER_CRASHES = 3;

export function quarantined(crashes: number) {
  return {
    status: "failed" as const,
    reason: "quarantined",
    error: {
      code: "interrupted" as const,
      message: `the job crashed its worker ${crashes} times; quarantined (it will not run again)`,
      hint: "its run folder keeps what it had done; fix what makes it crash the worker before submitting it again",
      details: { worker_crashes: crashes, max_worker_crashes: MAX_WORKER_CRASHES },
    },
  };
}

export function serializeJobError(error: unknown): SerializedError {
  if (isSkillrigError(error)) return error.toJSON();
  return { code: "unhandled", message: `unexpected error while running the job: ${(error as Error)?.message ?? String(error)}` };
}

/** The record of a job that was canceled while it ran. */
export function canceledWhileRunning(result: unknown) {
  return {
    status: "canceled" as const,
    reason: "canceled_by_client",
    error: { code: "usage" as const, message: "canceled by the client while it ran" },
    result: result === undefined ? undefined : { ...(result as object), status: "canceled" },
  };
}

export const CANCELED_BEFORE_RUN = {
  status: "canceled" as const,
  reason: "canceled_by_client",
  error: { code: "usage" as const, message: "canceled by the client before it ran" },
};
