/**
 * The scheduler over the durable store: runs up to `concurrency` jobs at once, oldest queued first, cancels,
 * recovers after a restart, and fans every stored event out to live listeners (the SSE streams).
 *
 * The store is the truth; this class only holds what cannot outlive the process (abort controllers).
 * A job in flight when the process stops stays `running` in the store; the next start settles it by
 * `on_restart`: `fail` ends it as failed with reason `interrupted`, `requeue` puts it back in the queue.
 */
import { EventEmitter } from "node:events";
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isSkillrigError, SkillrigError, type EngineEvent, type JobRequest, type SerializedError } from "@skillrig/core";
import type { JobExecution } from "./job-execution.js";
import { isTerminal, type JobRecord, type JobStore, type StoredEvent } from "./job-store.js";

export interface JobQueueOptions {
  store: JobStore;
  execution: JobExecution;
  /** Where run folders go: `<runsDir>/<jobId>`. */
  runsDir: string;
  /** Where a skill job's extracted upload waits until the job runs: `<uploadsDir>/<jobId>/<field>`. */
  uploadsDir: string;
  concurrency: number;
  onRestart: "fail" | "requeue";
  /** Jobs waiting longer than this for their upload are canceled. */
  uploadWaitMs: number;
}

export const INTERRUPTED_ERROR: SerializedError = {
  code: "interrupted",
  message: "the server stopped while this job was running; its run folder keeps what it had done",
  hint: 'submit the job again, or set server.on_restart: "requeue" to have such jobs run again on restart',
};

function serialize(error: unknown): SerializedError {
  if (isSkillrigError(error)) return error.toJSON();
  return { code: "unhandled", message: `unexpected error while running the job: ${(error as Error)?.message ?? String(error)}` };
}

export class JobQueue {
  readonly #options: JobQueueOptions;
  readonly #running = new Map<string, { controller: AbortController; canceled: boolean; done: Promise<void> }>();
  readonly #live = new EventEmitter();
  #closing = false;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: JobQueueOptions) {
    this.#options = options;
    this.#live.setMaxListeners(0);
  }

  get store(): JobStore {
    return this.#options.store;
  }

  get activeCount(): number {
    return this.#running.size;
  }

  /** Settles jobs a previous process left running, then starts queued ones. */
  async recover(): Promise<{ failed: string[]; requeued: string[] }> {
    const out = { failed: [] as string[], requeued: [] as string[] };
    for (const job of this.store.runningJobs()) {
      if (this.#options.onRestart === "requeue") {
        // runJob creates a skill job's run folder afresh, so the half-done one would be in its way; an oracle
        // run's folder holds its uploaded deliverable, which the next attempt needs.
        if (job.kind === "skill") await rm(job.run_dir, { recursive: true, force: true });
        this.#publish(
          this.store.appendEvent(job.id, "log", { stream: "skillrig", line: "server restarted while the job was running; requeued" }),
        );
        const event = this.store.markQueued(job.id, "running");
        if (event) this.#publish(event);
        out.requeued.push(job.id);
      } else {
        const event = this.store.finish(job.id, { status: "failed", error: INTERRUPTED_ERROR, reason: "interrupted" });
        if (event) this.#publish(event);
        // The job is over, so its staged upload will not be used again (runJob copies it into the run folder first thing).
        await rm(join(this.#options.uploadsDir, job.id), { recursive: true, force: true });
        out.failed.push(job.id);
      }
    }
    this.pump();
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
      this.published(
        this.store.finish(id, {
          status: "canceled",
          reason: "upload_timeout",
          error: {
            code: "timeout",
            message: `no upload arrived within ${this.#options.uploadWaitMs} ms (server.upload_wait_ms)`,
            hint: "submit the job again and upload its files right after",
          },
        }),
      );
    }
  }

  /** Listens to the stored events of one job as they happen. Returns the unsubscribe function. */
  subscribe(jobId: string, listener: (event: StoredEvent) => void): () => void {
    const channel = `job:${jobId}`;
    this.#live.on(channel, listener);
    return () => this.#live.off(channel, listener);
  }

  /** Records an event and hands it to live listeners. */
  record(jobId: string, type: string, data: unknown): StoredEvent {
    const event = this.store.appendEvent(jobId, type, data);
    this.#publish(event);
    return event;
  }

  /** Announces an event the store wrote (a status change) and starts work if a slot is free. */
  published(event: StoredEvent | undefined): void {
    if (event) this.#publish(event);
    this.pump();
  }

  /** Cancels a job that has not finished. Returns false when it already had. */
  cancel(id: string): boolean {
    const job = this.store.get(id);
    if (!job || isTerminal(job.status)) return false;
    const running = this.#running.get(id);
    if (running) {
      running.canceled = true;
      running.controller.abort(new SkillrigError("usage", "canceled by the client"));
      this.record(id, "log", { stream: "skillrig", line: "cancel requested; stopping the engine" });
      return true;
    }
    const event = this.store.finish(id, {
      status: "canceled",
      reason: "canceled_by_client",
      error: { code: "usage", message: "canceled by the client before it ran" },
    });
    this.published(event);
    // A queued skill job's staged upload will never be used now.
    void rm(join(this.#options.uploadsDir, id), { recursive: true, force: true });
    return event !== undefined || this.#running.has(id);
  }

  /** Starts queued jobs while there are free slots. */
  pump(): void {
    while (!this.#closing && this.#running.size < this.#options.concurrency) {
      const claimed = this.store.claimNext();
      if (!claimed) return;
      this.#publish(claimed.event);
      this.#start(claimed.record);
    }
  }

  /**
   * Stops taking jobs and aborts the running ones without recording an end for them: they stay `running` in
   * the store, exactly as after a crash, and the next start settles them by `on_restart`.
   */
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
    entry.done = this.#execute(job, controller.signal)
      .then(
        (outcome) => {
          if (this.#closing) return;
          if (entry.canceled) {
            this.published(
              this.store.finish(job.id, {
                status: "canceled",
                reason: "canceled_by_client",
                error: { code: "usage", message: "canceled by the client while it ran" },
                result: outcome.result === undefined ? undefined : { ...(outcome.result as object), status: "canceled" },
              }),
            );
          } else this.published(this.store.finish(job.id, outcome));
        },
        (error: unknown) => {
          if (this.#closing) return;
          this.published(this.store.finish(job.id, { status: entry.canceled ? "canceled" : "failed", error: serialize(error) }));
        },
      )
      .finally(() => {
        this.#running.delete(job.id);
        this.pump();
      });
  }

  async #execute(
    job: JobRecord,
    signal: AbortSignal,
  ): Promise<{ status: "succeeded" | "failed" | "canceled"; result?: unknown; error?: SerializedError | null; reason?: string | null }> {
    const { execution } = this.#options;
    if (job.kind === "oracle") {
      const loaded = execution.loadTask(job.request.task);
      const report = await execution.runOracle(loaded, join(job.run_dir, "deliverable"), {
        signal,
        onCase: (verdict) => {
          if (this.#closing) return;
          const { name, index, status, duration_ms, message } = verdict;
          this.record(job.id, "case", { name, index, status, duration_ms, message });
        },
      });
      await writeFile(join(job.run_dir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
      return { status: "succeeded", result: report };
    }
    const request = { ...(job.request as unknown as JobRequest) };
    const uploads = join(this.#options.uploadsDir, job.id);
    const files = await readdir(uploads).catch(() => [] as string[]);
    if (files.length > 0) request.files = Object.fromEntries(files.map((name) => [name, join(uploads, name)]));
    const result = await execution.runSkillJob(request, {
      jobId: job.id,
      runsDir: this.#options.runsDir,
      signal,
      onEvent: (event: EngineEvent) => {
        if (this.#closing) return;
        this.record(job.id, event.type === "log" ? "log" : "engine", event);
      },
    });
    // The uploads now live in the run folder's uploads/; the staging copy is no longer needed.
    await rm(uploads, { recursive: true, force: true });
    return {
      status: result.status === "succeeded" ? "succeeded" : result.status === "canceled" ? "canceled" : "failed",
      result,
      error: result.error ?? null,
    };
  }
}
