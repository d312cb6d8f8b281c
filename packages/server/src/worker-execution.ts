/**
 * Runs jobs in a pool of worker threads (src/job-worker.ts), one job per worker at a time, while listings, skill
 * lookups and task validation stay on the main thread's runner. The queue never has more than `concurrency` jobs
 * in flight, so a pool of that size always has a free worker; a worker that dies fails its job and is replaced.
 */
import { Worker } from "node:worker_threads";
import { SkillrigError, type CaseVerdict, type EngineEvent, type SerializedError } from "@skillrig/core";
import { exactTaskText } from "@skillrig/oracle";
import { describeProcessEnding } from "@skillrig/process";
import type { JobExecution } from "./job-execution.js";
import type { JobWorkerData } from "./job-worker.js";

export interface WorkerPoolOptions extends JobWorkerData {
  size: number;
}

interface PendingJob {
  onEvent?: (event: EngineEvent) => void;
  onCase?: (verdict: CaseVerdict) => void;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface PooledWorker {
  worker: Worker;
  ready: Promise<void>;
  job?: { id: string; pending: PendingJob };
}

type Outgoing =
  | { type: "ready" }
  | { type: "fatal"; error: SerializedError }
  | { type: "event"; jobId: string; event: EngineEvent }
  | { type: "case"; jobId: string; verdict: CaseVerdict }
  | { type: "done"; jobId: string; value: unknown }
  | { type: "failed"; jobId: string; error: SerializedError };

function revive(error: SerializedError): SkillrigError {
  const { code, message, ...rest } = error;
  return new SkillrigError(code, message, rest);
}

export function createWorkerExecution(local: JobExecution, options: WorkerPoolOptions): JobExecution & { close(): Promise<void> } {
  const pool: PooledWorker[] = [];
  const waiting: Array<(w: PooledWorker) => void> = [];
  let closed = false;

  const spawn = (): PooledWorker => {
    const worker = new Worker(new URL("./job-worker.js", import.meta.url), {
      workerData: { cwd: options.cwd, configFile: options.configFile, builtinsModule: options.builtinsModule } satisfies JobWorkerData,
    });
    let markReady!: () => void;
    let markFailed!: (error: Error) => void;
    const ready = new Promise<void>((res, rej) => {
      markReady = res;
      markFailed = rej;
    });
    const pooled: PooledWorker = { worker, ready };
    pooled.ready.catch(() => undefined);
    const drop = (error: Error) => {
      const index = pool.indexOf(pooled);
      if (index >= 0) pool.splice(index, 1);
      markFailed(error);
      pooled.job?.pending.reject(error);
      pooled.job = undefined;
    };
    worker.on("message", (message: Outgoing) => {
      if (message.type === "ready") return markReady();
      if (message.type === "fatal") {
        drop(revive(message.error));
        void worker.terminate();
        return;
      }
      const job = pooled.job;
      if (!job || job.id !== message.jobId) return;
      if (message.type === "event") job.pending.onEvent?.(message.event);
      else if (message.type === "case") job.pending.onCase?.(message.verdict);
      else {
        pooled.job = undefined;
        if (message.type === "done") job.pending.resolve(message.value);
        else job.pending.reject(revive(message.error));
        release(pooled);
      }
    });
    // The job that was running is failed and never handed to a worker again (quarantined): it may be what killed it.
    const crashed = (how: string) =>
      new SkillrigError("unhandled", `the job crashed its worker thread (${how}); quarantined (it will not run again)`, {
        hint: "its run folder keeps what it had done; the worker was replaced and other jobs carry on",
      });
    worker.on("error", (error) => drop(crashed(`it threw ${error.message}`)));
    worker.on("exit", (code) => drop(crashed(`it ${describeProcessEnding({ kind: "exited", code })}`)));
    pool.push(pooled);
    return pooled;
  };

  const release = (pooled: PooledWorker) => {
    const next = waiting.shift();
    if (next) next(pooled);
  };

  /**
   * Gives `job` a worker, and marks the worker taken in the same synchronous step: two jobs started in one turn
   * (a pump that starts several, BullMQ handing out several) must never both see the same worker idle.
   */
  const acquire = (job: NonNullable<PooledWorker["job"]>): Promise<PooledWorker> => {
    const take = (pooled: PooledWorker) => {
      pooled.job = job;
      return pooled;
    };
    const idle = pool.find((p) => !p.job);
    if (idle) return Promise.resolve(take(idle));
    if (pool.length < options.size) return Promise.resolve(take(spawn()));
    return new Promise((resolve) => waiting.push((pooled) => resolve(take(pooled))));
  };

  const run = async <T>(
    jobId: string,
    message: Record<string, unknown>,
    signal: AbortSignal,
    handlers: Omit<PendingJob, "resolve" | "reject">,
  ): Promise<T> => {
    if (closed) throw new SkillrigError("interrupted", "the server is shutting down");
    let pending!: PendingJob;
    const result = new Promise<T>((resolve, reject) => {
      pending = { ...handlers, resolve: resolve as (v: unknown) => void, reject };
    });
    const pooled = await acquire({ id: jobId, pending });
    const cancel = () => pooled.worker.postMessage({ type: "cancel", jobId });
    // A worker that fails to start rejects `result` itself (see drop), so only the success path posts.
    pooled.ready.then(
      () => {
        pooled.worker.postMessage({ ...message, jobId });
        if (signal.aborted) cancel();
        else signal.addEventListener("abort", cancel, { once: true });
      },
      () => undefined,
    );
    try {
      return await result;
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  };

  return {
    listSkills: () => local.listSkills(),
    skill: (id) => local.skill(id),
    loadTask: (task) => local.loadTask(task),
    loadTaskText: (text) => local.loadTaskText(text),
    runSkillJob(request, opts) {
      return run(opts.jobId, { type: "run-skill", request, runsDir: opts.runsDir }, opts.signal, { onEvent: opts.onEvent });
    },
    runOracle(loaded, deliverableDir, opts) {
      // The job id only routes messages; an oracle run is identified by its deliverable folder.
      // As text, not the parsed task: the worker reads it back with its exact values, and a string is all that is cloned.
      return run(deliverableDir, { type: "run-oracle", taskText: exactTaskText(loaded), deliverableDir }, opts.signal, {
        onCase: opts.onCase,
      });
    },
    runSolveAttempt(request, opts) {
      return run(opts.runDir, { type: "run-solve", request, runDir: opts.runDir }, opts.signal, {
        onEvent: opts.onEvent,
        onCase: opts.onCase,
      });
    },
    async close() {
      closed = true;
      await Promise.all(pool.splice(0).map((p) => closeWorker(p.worker)));
    },
  };
}

/** Asks a worker to close its runner (warm runtimes stop), then terminates it; a worker that does not answer within 5 s is terminated anyway. */
async function closeWorker(worker: Worker): Promise<void> {
  await new Promise<void>((done) => {
    const timer = setTimeout(done, 5000);
    worker.on("message", (message: { type?: string }) => {
      if (message?.type !== "closed") return;
      clearTimeout(timer);
      done();
    });
    worker.once("exit", () => {
      clearTimeout(timer);
      done();
    });
    worker.postMessage({ type: "close" });
  });
  await worker.terminate();
}
