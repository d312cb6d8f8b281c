/**
 * The embedded scheduler over the SQLite store (the default backend): runs up to `concurrency` jobs at once in
 * this process, by fair turns between tenants (oldest queued first within one), cancels, recovers after a restart, and fans every stored event out to live
 * listeners (the SSE streams).
 *
 * The store is the truth; this class only holds what cannot outlive the process (abort controllers).
 * A job in flight when the process stops stays `running` in the store; the next start settles it by
 * `on_restart`: `fail` ends it as failed with reason `interrupted`, `requeue` puts it back in the queue, up to
 * MAX_WORKER_CRASHES deaths of the process while it ran: then it is failed with reason `quarantined`.
 */
import { EventEmitter } from "node:events";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { SkillrigError } from "@skillrig/core";
import type { JobExecution } from "./job-execution.js";
import {
  CANCELED_BEFORE_RUN,
  canceledWhileRunning,
  INTERRUPTED_ERROR,
  MAX_WORKER_CRASHES,
  quarantined,
  serializeJobError,
  type JobQueue,
} from "./job-queue.js";
import { isTerminal, type Admission, type JobRecord, type NewJob, type Refusal, type StoredEvent } from "./job-store.js";
import { clearForRerun, dropUpload, runJobRecord } from "./run-job-record.js";
import { recordJobCost } from "./tenant-usage.js";
import type { SqliteJobStore } from "./sqlite-job-store.js";

export interface LocalJobQueueOptions {
  store: SqliteJobStore;
  execution: JobExecution;
  /** Where run folders go: `<runsDir>/<jobId>`. */
  runsDir: string;
  concurrency: number;
  onRestart: "fail" | "requeue";
  /** Jobs waiting longer than this for their upload are canceled. */
  uploadWaitMs: number;
  /** Each tenant's `running_limit` (tenants not named have none). */
  runningLimits?: Record<string, number>;
  /** `server.job_max_running_ms`. */
  maxRunningMs?: number;
  /** Slots kept for tenants with no job running (`reserveOf(server.reserved_slots, concurrency)`). */
  reservedSlots?: number;
}

export class LocalJobQueue implements JobQueue {
  readonly #options: LocalJobQueueOptions;
  readonly #running = new Map<string, { controller: AbortController; canceled: boolean; done: Promise<void> }>();
  readonly #live = new EventEmitter();
  #closing = false;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: LocalJobQueueOptions) {
    this.#options = options;
    this.#live.setMaxListeners(0);
    // Engine, log and case events reach live listeners once the store has committed them (a few per commit).
    options.store.onCommitted((events) => {
      for (const event of events) this.#publish(event);
    });
  }

  get store(): SqliteJobStore {
    return this.#options.store;
  }

  get activeCount(): number {
    return this.#running.size;
  }

  async create(job: NewJob, admission?: Admission): Promise<JobRecord | { refused: Refusal }> {
    const created = this.store.create(job, admission);
    if ("refused" in created) return created;
    this.#published(created.event);
    return this.store.get(job.id) ?? created.record;
  }

  async uploaded(id: string): Promise<StoredEvent | undefined> {
    const event = this.store.markQueued(id, "waiting_upload");
    // Published right after it is stored, before anything else is: live listeners see events in store order.
    if (event) this.#published(event);
    return event;
  }

  /** Settles jobs a previous process left running, then starts queued ones. */
  async recover(): Promise<{ failed: string[]; requeued: string[] }> {
    const out = { failed: [] as string[], requeued: [] as string[] };
    for (const job of this.store.runningJobs()) {
      // The process died while this job ran: counted first, so a job that kills the server at every start ends.
      const crashes = this.store.countWorkerCrash(job.id);
      if (this.#options.onRestart === "requeue" && crashes >= MAX_WORKER_CRASHES) {
        const event = this.store.finish(job.id, quarantined(crashes));
        if (event) this.#publish(event);
        out.failed.push(job.id);
      } else if (this.#options.onRestart === "requeue") {
        await clearForRerun(job);
        this.store.appendEvent(job.id, "log", { stream: "skillrig", line: "server restarted while the job was running; requeued" });
        const event = this.store.markQueued(job.id, "running");
        if (event) this.#publish(event);
        out.requeued.push(job.id);
      } else {
        const event = this.store.finish(job.id, { status: "failed", error: INTERRUPTED_ERROR, reason: "interrupted" });
        if (event) this.#publish(event);
        // The run folder stays as the job left it, upload included: it shows what the job had got to.
        out.failed.push(job.id);
      }
    }
    this.#pump();
    this.#sweepAbandoned();
    const every = Math.min(60_000, Math.max(100, Math.floor(this.#options.uploadWaitMs / 2)));
    this.#sweeper = setInterval(() => this.#sweepAbandoned(), every);
    this.#sweeper.unref();
    return out;
  }

  /** Cancels jobs whose upload never came, so they do not hold queue places forever. */
  #sweepAbandoned(): void {
    const cutoff = new Date(Date.now() - this.#options.uploadWaitMs).toISOString();
    for (const id of this.store.waitingSince(cutoff)) {
      this.#published(this.store.finish(id, uploadTimeout(this.#options.uploadWaitMs)));
    }
  }

  async subscribe(jobId: string, listener: (event: StoredEvent) => void): Promise<() => void> {
    const channel = `job:${jobId}`;
    this.#live.on(channel, listener);
    return () => this.#live.off(channel, listener);
  }

  async record(jobId: string, type: string, data: unknown): Promise<StoredEvent> {
    return this.#recordNow(jobId, type, data);
  }

  /** Published to live listeners once committed (see SqliteJobStore.appendEvent). */
  #recordNow(jobId: string, type: string, data: unknown): StoredEvent {
    return this.store.appendEvent(jobId, type, data);
  }

  /** Announces an event the store wrote (a status change) and starts work if a slot is free. */
  #published(event: StoredEvent | undefined): void {
    if (event) this.#publish(event);
    this.#pump();
  }

  async cancel(id: string): Promise<boolean> {
    const job = this.store.get(id);
    if (!job || isTerminal(job.status)) return false;
    const running = this.#running.get(id);
    if (running) {
      running.canceled = true;
      running.controller.abort(new SkillrigError("usage", "canceled by the client"));
      this.#recordNow(id, "log", { stream: "skillrig", line: "cancel requested; stopping the engine" });
      return true;
    }
    const event = this.store.finish(id, CANCELED_BEFORE_RUN);
    this.#published(event);
    // A queued skill job's upload will never be used now.
    void dropUpload(join(this.#options.runsDir, id));
    return event !== undefined || this.#running.has(id);
  }

  /** Starts queued jobs while there are free slots, by fair turns between tenants (fair-turns.ts). */
  #pump(): void {
    const limits = this.#options.runningLimits ?? {};
    while (!this.#closing && this.#running.size < this.#options.concurrency) {
      // Slots still free once this one is taken: a tenant already running may not take a reserved one.
      const freeAfter = this.#options.concurrency - this.#running.size - 1;
      const claimed = this.store.claimNext((tenant) => limits[tenant], { freeAfter, reserved: this.#options.reservedSlots ?? 0 });
      if (!claimed) return;
      this.#publish(claimed.event);
      this.#start(claimed.record);
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweeper);
    const pending = [...this.#running.values()];
    for (const run of pending) run.controller.abort(new SkillrigError("interrupted", "the server is shutting down"));
    await Promise.allSettled(pending.map((r) => r.done));
  }

  #publish(event: StoredEvent): void {
    this.#live.emit(`job:${event.job_id}`, event);
  }

  #start(job: JobRecord): void {
    const controller = new AbortController();
    const entry = { controller, canceled: false, done: Promise.resolve() };
    this.#running.set(job.id, entry);
    entry.done = runJobRecord(job, {
      execution: this.#options.execution,
      runsDir: this.#options.runsDir,
      signal: controller.signal,
      maxRunningMs: this.#options.maxRunningMs,
      onEvent: (type, data) => {
        if (!this.#closing) this.#recordNow(job.id, type, data);
      },
    })
      .then(
        (outcome) => {
          if (this.#closing) return;
          const finished = this.store.finish(job.id, entry.canceled ? canceledWhileRunning(outcome.result) : outcome);
          this.#published(finished);
          // Counted once, by the finish that took (a job already ended elsewhere adds nothing).
          void Promise.resolve(finished)
            .then((event) => (event ? recordJobCost(this.store, job, outcome.result) : undefined))
            .catch(() => undefined);
        },
        (error: unknown) => {
          if (this.#closing) return;
          this.#published(this.store.finish(job.id, { status: entry.canceled ? "canceled" : "failed", error: serializeJobError(error) }));
        },
      )
      .finally(() => {
        this.#running.delete(job.id);
        this.#pump();
      });
  }
}

export function uploadTimeout(uploadWaitMs: number) {
  return {
    status: "canceled" as const,
    reason: "upload_timeout",
    error: {
      code: "timeout" as const,
      message: `no upload arrived within ${uploadWaitMs} ms (server.upload_wait_ms)`,
      hint: "submit the job again and upload its files right after",
    },
  };
}
