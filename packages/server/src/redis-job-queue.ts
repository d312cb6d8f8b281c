/**
 * The scheduler of the redis backend, on BullMQ. API nodes store a job (RedisJobStore) and add `{id}` to the
 * BullMQ queue under the job's own id (so adding twice is harmless); workers (any number of processes, each
 * `concurrency` jobs at once) take deliveries from it and, for each, claim in the store the job fair turns between
 * tenants pick (a delivery is a turn, not a particular job; see the claim script) and run it. BullMQ brings what a
 * distributed queue needs: FIFO delivery, per-worker concurrency, an optional rate limit, retries of a delivery
 * that failed before the job started, and stalled-job detection (a worker renews a lock on each job it runs;
 * one that dies stops renewing, and another worker's stalled check hands the job out again).
 *
 * A job handed out again is already `running` in the store, which is how the new worker knows its first worker
 * died: `on_restart: fail` ends it as failed with reason `interrupted`; `requeue` clears its half-done run folder
 * and runs it again, until its worker has died MAX_WORKER_CRASHES times (counted in the store): then it is failed
 * with reason `quarantined`, so a job that kills its worker cannot loop forever.
 * Crash detection takes at most lock_ms + stalled_check_ms (10 s + 5 s by default) plus the wait for a free slot.
 *
 * Cancel: a job that has not started ends at once; for a running one the store publishes its id on P:cancel and
 * the worker running it aborts it.
 */
import { hostname } from "node:os";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { DelayedError, Queue, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
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
import type { Admission, JobRecord, NewJob, Refusal, StoredEvent } from "./job-store.js";
import { uploadTimeout } from "./local-job-queue.js";
import type { RedisJobStore } from "./redis-job-store.js";
import { clearForRerun, dropUpload, runJobRecord } from "./run-job-record.js";
import { recordJobCost } from "./tenant-usage.js";

/** A turn that found every tenant with queued jobs at its running limit is tried again after this. */
const WAIT_TURN_MS = 500;

/** A queued record whose BullMQ entry is missing this long (an API node died between the two writes) is added again. */
const LOST_AFTER_MS = 30_000;

export interface RedisJobQueueOptions {
  store: RedisJobStore;
  /** The command connection (BullMQ duplicates it for its blocking reads). */
  connection: Redis;
  /** Whether this process answers HTTP (sweeps abandoned uploads) and/or runs jobs. */
  api: boolean;
  worker: boolean;
  execution: JobExecution;
  runsDir: string;
  concurrency: number;
  onRestart: "fail" | "requeue";
  uploadWaitMs: number;
  /** Each tenant's `running_limit` (tenants not named have none). */
  runningLimits: Record<string, number>;
  lockMs: number;
  stalledCheckMs: number;
  rateLimit?: { max: number; duration_ms: number };
  /** `server.job_max_running_ms`. */
  maxRunningMs?: number;
  /** Slots of this worker kept for tenants with no job running (`reserveOf(server.reserved_slots, concurrency)`). */
  reservedSlots?: number;
}

export class RedisJobQueue implements JobQueue {
  readonly #options: RedisJobQueueOptions;
  readonly #bull: Queue;
  #worker: Worker | undefined;
  readonly #running = new Map<string, { controller: AbortController; canceled: boolean }>();
  readonly #timers: NodeJS.Timeout[] = [];
  #stopCancelListener: (() => void) | undefined;
  #closing = false;
  /** Deliveries this worker holds (BullMQ hands out at most `concurrency`): its slots in use. */
  #inFlight = 0;
  readonly #name = `${hostname()}:${process.pid}`;

  constructor(options: RedisJobQueueOptions) {
    this.#options = options;
    this.#bull = new Queue("jobs", {
      connection: options.connection,
      prefix: `${options.store.prefix}:bull`,
      // The store keeps every record; BullMQ's own copies are only delivery state, so they go once delivered.
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: "exponential", delay: 500 } },
    });
  }

  get store(): RedisJobStore {
    return this.#options.store;
  }

  async create(job: NewJob, admission?: Admission): Promise<JobRecord | { refused: Refusal }> {
    const created = await this.store.create(job, admission);
    if ("refused" in created) return created;
    if (created.record.status === "queued") await this.#enqueue(job.id);
    return created.record;
  }

  async uploaded(id: string): Promise<StoredEvent | undefined> {
    const event = await this.store.markQueued(id, "waiting_upload");
    if (event) await this.#enqueue(id);
    return event;
  }

  #enqueue(id: string): Promise<unknown> {
    return this.#bull.add("job", { id }, { jobId: id });
  }

  record(jobId: string, type: string, data: unknown): Promise<StoredEvent> {
    return this.store.appendEvent(jobId, type, data);
  }

  subscribe(jobId: string, listener: (event: StoredEvent) => void): Promise<() => void> {
    return this.store.subscribe(jobId, listener);
  }

  async cancel(id: string): Promise<boolean> {
    const answer = await this.store.requestCancel(id, CANCELED_BEFORE_RUN);
    if (answer.outcome === "canceled") {
      // Not run now: its BullMQ entry would only be skipped, and its upload is not needed.
      await this.#bull.remove(id).catch(() => undefined);
      await dropUpload(join(this.#options.runsDir, id));
    }
    return answer.outcome !== "final";
  }

  async recover(): Promise<{ failed: string[]; requeued: string[] }> {
    const options = this.#options;
    if (options.api) {
      const every = Math.min(60_000, Math.max(100, Math.floor(options.uploadWaitMs / 2)));
      await this.#sweepAbandoned();
      this.#every(every, () => this.#sweepAbandoned());
    }
    if (options.worker) {
      this.#stopCancelListener = await this.store.onCancel((id) => {
        const run = this.#running.get(id);
        if (!run) return;
        run.canceled = true;
        run.controller.abort(new SkillrigError("usage", "canceled by the client"));
      });
      this.#worker = new Worker("jobs", (job, token) => this.#process(job, token), {
        connection: options.connection,
        prefix: `${options.store.prefix}:bull`,
        concurrency: options.concurrency,
        lockDuration: options.lockMs,
        stalledInterval: options.stalledCheckMs,
        // BullMQ hands a stalled job out again as often as it stalls; the store's restart count bounds requeues.
        maxStalledCount: 1_000_000,
        limiter: options.rateLimit ? { max: options.rateLimit.max, duration: options.rateLimit.duration_ms } : undefined,
      });
      this.#worker.on("error", () => undefined); // connection errors: BullMQ reconnects and carries on
      await this.#worker.waitUntilReady();
      await this.#addLost();
      this.#every(LOST_AFTER_MS, () => this.#addLost());
    }
    // Jobs a dead process left are settled as BullMQ hands them out again, not here; nothing to list at start.
    return { failed: [], requeued: [] };
  }

  #every(ms: number, task: () => Promise<void>): void {
    const timer = setInterval(() => void task().catch(() => undefined), ms);
    timer.unref();
    this.#timers.push(timer);
  }

  async #sweepAbandoned(): Promise<void> {
    const cutoff = new Date(Date.now() - this.#options.uploadWaitMs).toISOString();
    for (const id of await this.store.waitingSince(cutoff)) await this.store.finish(id, uploadTimeout(this.#options.uploadWaitMs));
  }

  /** Queued records without a BullMQ entry (their API node died between storing and adding) are added again. */
  async #addLost(): Promise<void> {
    const cutoff = Date.now() - LOST_AFTER_MS;
    const old = (await this.store.oldestQueued(200)).filter((j) => j.queued_at !== null && Date.parse(j.queued_at) < cutoff);
    if (old.length > 0) await this.#bull.addBulk(old.map((j) => ({ name: "job", data: { id: j.id }, opts: { jobId: j.id } })));
  }

  /**
   * One BullMQ delivery is one turn (see the claim script): it starts the job fair turns pick, which need not be
   * the job that added the delivery. The job is registered for cancels as soon as it is known, then its cancel
   * flag is read, so a cancel published between the claim and the registration is not missed.
   */
  async #process(delivery: Job<{ id: string }>, token: string | undefined): Promise<void> {
    const turn = delivery.id ?? delivery.data.id;
    if (this.#closing) throw new SkillrigError("interrupted", "this worker is shutting down");
    const entry = { controller: new AbortController(), canceled: false };
    let running: string | undefined;
    this.#inFlight += 1;
    try {
      const reserve = { freeAfter: this.#options.concurrency - this.#inFlight, reserved: this.#options.reservedSlots ?? 0 };
      let claim = await this.store.claim(turn, this.#name, this.#options.runningLimits, reserve);
      if (claim.outcome === "stalled") {
        const id = claim.id;
        const job = (await this.store.get(id))!;
        if (this.#options.onRestart === "fail" || claim.restarts >= MAX_WORKER_CRASHES) {
          const ending =
            this.#options.onRestart === "fail"
              ? { status: "failed" as const, error: INTERRUPTED_ERROR, reason: "interrupted" }
              : quarantined(claim.restarts);
          await this.store.finish(id, ending);
          return;
        }
        await clearForRerun(job);
        await this.store.appendEvent(id, "log", { stream: "skillrig", line: "the worker running the job stopped; requeued" });
        await this.store.markQueued(id, "running");
        claim = await this.store.claim(turn, this.#name, this.#options.runningLimits, reserve);
      }
      if (claim.outcome === "wait") {
        // Every tenant with queued jobs is at its running limit: this turn comes back when a slot may have freed.
        await delivery.moveToDelayed(Date.now() + WAIT_TURN_MS, token);
        throw new DelayedError();
      }
      if (claim.outcome !== "claimed") return;
      running = claim.id;
      this.#running.set(running, entry);
      if (await this.store.cancelRequested(running)) entry.canceled = true;
      const job = (await this.store.get(running))!;
      await this.#run(job, entry);
    } finally {
      this.#inFlight -= 1;
      if (running !== undefined) this.#running.delete(running);
    }
  }

  async #run(job: JobRecord, entry: { controller: AbortController; canceled: boolean }): Promise<void> {
    if (entry.canceled) entry.controller.abort(new SkillrigError("usage", "canceled by the client"));
    // Events are sent without waiting, in order, on the one command connection; the finish below follows them.
    const pendingEvents: Promise<unknown>[] = [];
    let outcome: Parameters<RedisJobStore["finish"]>[1];
    try {
      const ran = await runJobRecord(job, {
        execution: this.#options.execution,
        runsDir: this.#options.runsDir,
        signal: entry.controller.signal,
        maxRunningMs: this.#options.maxRunningMs,
        onEvent: (type, data) => {
          if (!this.#closing) pendingEvents.push(this.store.appendEvent(job.id, type, data).catch(() => undefined));
        },
      });
      outcome = entry.canceled ? canceledWhileRunning(ran.result) : ran;
    } catch (error) {
      outcome = { status: entry.canceled ? "canceled" : "failed", error: serializeJobError(error) };
    }
    await Promise.all(pendingEvents);
    // Shutting down: leave the job running in the store; BullMQ's stalled check hands it to another worker.
    if (this.#closing) throw new SkillrigError("interrupted", "this worker is shutting down");
    if (await this.store.finish(job.id, outcome)) await recordJobCost(this.store, job, outcome.result).catch(() => undefined);
  }

  /** Stops taking jobs; running ones are aborted and left to BullMQ's stalled check and on_restart, as after a crash. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    this.#stopCancelListener?.();
    for (const run of this.#running.values()) run.controller.abort(new SkillrigError("interrupted", "the server is shutting down"));
    // force: do not wait for running jobs to finish, and do not mark them done: their locks lapse as after a crash.
    await this.#worker?.close(true);
    await this.#bull.close();
  }
}
