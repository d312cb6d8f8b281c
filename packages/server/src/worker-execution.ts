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
  /** `server.worker_heap_mb`: each worker's V8 old generation; a worker past it ends its job `memory_limit`. */
  heapMb?: number;
  /** `server.job_stop_grace_ms`: a job still running this long after its stop has its worker ended. */
  stopGraceMs?: number;
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
  /** Ended by the pool because its job did not stop in time (not a crash of its own). */
  ended?: boolean;
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

/** The job whose worker thread ran out of its heap: failed (never requeued), the worker replaced. */
function outOfMemory(heapMb: number | undefined): SkillrigError {
  return new SkillrigError(
    "memory_limit",
    `the job's worker thread ran out of its memory (server.worker_heap_mb: ${heapMb ?? "Node's default"} MiB) and was stopped; it will not run again`,
    {
      field: "server.worker_heap_mb",
      details: { limit: "server.worker_heap_mb", max_mb: heapMb ?? null },
      hint: "its run folder keeps what it had done; the worker was replaced and other jobs carry on. Make the job smaller, or raise server.worker_heap_mb",
    },
  );
}

/** The pool's state, shared by its named steps below. */
interface WorkerPool {
  options: WorkerPoolOptions;
  workers: PooledWorker[];
  /** Jobs waiting for a worker to be released, first come first served. */
  waiting: Array<(w: PooledWorker) => void>;
  closed: boolean;
}

export function createWorkerExecution(local: JobExecution, options: WorkerPoolOptions): JobExecution & { close(): Promise<void> } {
  const pool: WorkerPool = { options, workers: [], waiting: [], closed: false };
  return {
    listSkills: () => local.listSkills(),
    skill: (id) => local.skill(id),
    loadTask: (task) => local.loadTask(task),
    loadTaskText: (text) => local.loadTaskText(text),
    runSkillJob(request, opts) {
      return runInWorker(pool, opts.jobId, { type: "run-skill", request, runsDir: opts.runsDir }, opts.signal, { onEvent: opts.onEvent });
    },
    runOracle(loaded, deliverableDir, opts) {
      // The job id only routes messages; an oracle run is identified by its deliverable folder.
      // As text, not the parsed task: the worker reads it back with its exact values, and a string is all that is cloned.
      return runInWorker(pool, deliverableDir, { type: "run-oracle", taskText: exactTaskText(loaded), deliverableDir }, opts.signal, {
        onCase: opts.onCase,
      });
    },
    runSolveAttempt(request, opts) {
      return runInWorker(pool, opts.runDir, { type: "run-solve", request, runDir: opts.runDir }, opts.signal, {
        onEvent: opts.onEvent,
        onCase: opts.onCase,
      });
    },
    async close() {
      pool.closed = true;
      await Promise.all(pool.workers.splice(0).map((p) => closeWorker(p.worker)));
    },
  };
}

/** Runs one job on a worker of the pool: waits for one, posts the job once it is ready, passes a stop on. */
async function runInWorker<T>(
  pool: WorkerPool,
  jobId: string,
  message: Record<string, unknown>,
  signal: AbortSignal,
  handlers: Omit<PendingJob, "resolve" | "reject">,
): Promise<T> {
  if (pool.closed) throw new SkillrigError("interrupted", "the server is shutting down");
  let pending!: PendingJob;
  const result = new Promise<T>((resolve, reject) => {
    pending = { ...handlers, resolve: resolve as (v: unknown) => void, reject };
  });
  const pooled = await acquireWorker(pool, { id: jobId, pending });
  let endTimer: NodeJS.Timeout | undefined;
  const cancel = () => {
    endTimer = stopJob(pooled, jobId, pool.options.stopGraceMs);
  };
  // A worker that fails to start rejects `result` itself (see dropWorker), so only the success path posts.
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
    clearTimeout(endTimer);
    signal.removeEventListener("abort", cancel);
  }
}

/**
 * Gives `job` a worker, and marks the worker taken in the same synchronous step: two jobs started in one turn
 * (a pump that starts several, BullMQ handing out several) must never both see the same worker idle.
 */
function acquireWorker(pool: WorkerPool, job: NonNullable<PooledWorker["job"]>): Promise<PooledWorker> {
  const take = (pooled: PooledWorker) => {
    pooled.job = job;
    return pooled;
  };
  const idle = pool.workers.find((p) => !p.job);
  if (idle) return Promise.resolve(take(idle));
  if (pool.workers.length < pool.options.size) return Promise.resolve(take(startWorker(pool)));
  return new Promise((resolve) => pool.waiting.push((pooled) => resolve(take(pooled))));
}

/** A worker whose job ended is handed to the job waiting longest, if any. */
function releaseWorker(pool: WorkerPool, pooled: PooledWorker): void {
  const next = pool.waiting.shift();
  if (next) next(pooled);
}

/** Starts a worker thread (src/job-worker.ts) with the host's config and built-ins, and adds it to the pool. */
function startWorker(pool: WorkerPool): PooledWorker {
  const { options } = pool;
  const worker = new Worker(new URL("./job-worker.js", import.meta.url), {
    workerData: { cwd: options.cwd, configFile: options.configFile, builtins: options.builtins } satisfies JobWorkerData,
    ...(options.heapMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: options.heapMb } }),
  });
  let markReady!: () => void;
  let markFailed!: (error: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    markReady = res;
    markFailed = rej;
  });
  const pooled: PooledWorker = { worker, ready };
  pooled.ready.catch(() => undefined);
  const drop = (error: Error) => dropWorker(pool, pooled, error, markFailed);
  worker.on("message", (message: Outgoing) => {
    if (message.type === "ready") return markReady();
    if (message.type === "fatal") {
      drop(revive(message.error));
      void worker.terminate();
      return;
    }
    if (routeToJob(pooled, message)) releaseWorker(pool, pooled);
  });
  worker.on("error", (error: Error & { code?: string }) =>
    drop(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? outOfMemory(options.heapMb) : crashed(`it threw ${error.message}`)),
  );
  worker.on("exit", (code) =>
    drop(pooled.ended ? notStopped(options.stopGraceMs) : crashed(`it ${describeProcessEnding({ kind: "exited", code })}`)),
  );
  pool.workers.push(pooled);
  return pooled;
}

/** Passes a worker's message to its job; true when the job ended with it (the worker is free again). */
function routeToJob(pooled: PooledWorker, message: Exclude<Outgoing, { type: "ready" | "fatal" }>): boolean {
  const job = pooled.job;
  if (!job || job.id !== message.jobId) return false;
  if (message.type === "event") job.pending.onEvent?.(message.event);
  else if (message.type === "case") job.pending.onCase?.(message.verdict);
  else {
    pooled.job = undefined;
    if (message.type === "done") job.pending.resolve(message.value);
    else job.pending.reject(revive(message.error));
    return true;
  }
  return false;
}

/** A worker that failed to start, crashed or was ended leaves the pool, failing its job with `error`. */
function dropWorker(pool: WorkerPool, pooled: PooledWorker, error: Error, markFailed: (error: Error) => void): void {
  const index = pool.workers.indexOf(pooled);
  if (index >= 0) pool.workers.splice(index, 1);
  markFailed(error);
  pooled.job?.pending.reject(error);
  pooled.job = undefined;
}

/** The job that was running is failed and never handed to a worker again (quarantined): it may be what killed it. */
function crashed(how: string): SkillrigError {
  return new SkillrigError("unhandled", `the job crashed its worker thread (${how}); quarantined (it will not run again)`, {
    hint: "its run folder keeps what it had done; the worker was replaced and other jobs carry on",
  });
}

/** The job whose worker the pool ended because it did not stop in time (not a crash of its own). */
function notStopped(stopGraceMs: number | undefined): SkillrigError {
  return new SkillrigError(
    "interrupted",
    `the job did not stop within server.job_stop_grace_ms (${stopGraceMs} ms) of being told to; its worker thread was ended`,
    {
      field: "server.job_stop_grace_ms",
      hint: "the worker was replaced and other jobs carry on",
    },
  );
}

/**
 * Tells the worker to stop `jobId`; a job that ignores its stop (a plugin blocking its thread) must not keep the
 * slot, so after `graceMs` its thread is ended (the exit handler fails the job as `ended`).
 */
function stopJob(pooled: PooledWorker, jobId: string, graceMs: number | undefined): NodeJS.Timeout | undefined {
  pooled.worker.postMessage({ type: "cancel", jobId });
  if (graceMs === undefined) return undefined;
  return setTimeout(() => {
    if (pooled.job?.id !== jobId) return;
    pooled.ended = true;
    void pooled.worker.terminate();
  }, graceMs);
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
