/**
 * Starts the jobs server: opens (or creates) the data folder and its store, settles jobs a previous process
 * left running, and listens (roles all and api) and/or takes jobs (roles all and worker).
 *
 *   <dataDir>/skillrig-server.sqlite   jobs and events (sqlite backend; with redis they live in Redis)
 *   <dataDir>/uploads/<job_id>/        a skill job's extracted upload, until the job runs
 *   <dataDir>/runs/<job_id>/           run folders (skill jobs: the documented layout; oracle runs: deliverable/, report.json);
 *                                      $SKILLRIG_RUNS_DIR/<job_id>/ when that is set (core's runsFolderOf decides)
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { runsFolderOf, type ProjectBuiltins, type Runner } from "@skillrig/core";
import { buildApp } from "./app.js";
import { createJobExecution, type JobExecution } from "./job-execution.js";
import type { JobQueue } from "./job-queue.js";
import { LocalJobQueue } from "./local-job-queue.js";
import { openRedisBackend } from "./redis-backend.js";
import { SqliteJobStore } from "./sqlite-job-store.js";
import { sqliteDriver } from "./sqlite-driver.js";
import { createWorkerExecution } from "./worker-execution.js";
import { resolveServerSettings, type ServerOverrides, type ServerSettings } from "./server-config.js";
import { reserveOf } from "./server-bounds.js";

export interface StartServerOptions {
  runner: Runner;
  /** Command-line overrides of `config.server`. */
  overrides?: ServerOverrides;
  /** How jobs are run; default: @skillrig/skills and @skillrig/oracle on `runner`. */
  execution?: JobExecution;
  /** Fastify's request log on stdout. */
  logger?: boolean;
  /**
   * Run jobs in worker threads (one per concurrency slot), so job work never holds up HTTP answers. Each worker
   * builds its own runner with core's `openProjectRunner` from the runner's config file plus `builtins` (the
   * host's built-in plugins and sections as data, as the CLI's builtins.ts); so use it only when the runner was
   * built that way. Ignored when `execution` is given.
   */
  workers?: { builtins?: ProjectBuiltins };
}

export interface RunningServer {
  /** `http://host:port` (empty for role worker, which does not listen) */
  url: string;
  port: number;
  settings: ServerSettings;
  /** Jobs a previous process left running: how they were settled on this start. */
  recovered: { failed: string[]; requeued: string[] };
  /**
   * The SQLite driver of the store (sqlite backend): `name` is `node:sqlite` or `better-sqlite3`, `about` says which
   * Node and SQLite versions, e.g. "node:sqlite (Node v22.13.0, SQLite 3.47.2)". Null with the redis backend.
   */
  sqliteDriver: { name: string; about: string } | null;
  app: FastifyInstance;
  /** Stops listening; running jobs are aborted and left for the next start to settle (as after a crash). */
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { runner } = options;
  const settings = resolveServerSettings(runner.config, runner.configDir, options.overrides, runner.configFile);
  const runsDir = runsFolderOf(runner, { fallback: join(settings.dataDir, "runs") });
  // The runs folder may lie outside the data folder ($SKILLRIG_RUNS_DIR): both must exist.
  mkdirSync(settings.dataDir, { recursive: true });
  mkdirSync(runsDir, { recursive: true });
  const local = createJobExecution(runner);
  const runsJobs = settings.role !== "api";
  const pool =
    options.execution === undefined && options.workers && runsJobs
      ? createWorkerExecution(local, {
          size: settings.concurrency,
          cwd: runner.cwd,
          configFile: runner.configFile,
          builtins: options.workers.builtins,
          heapMb: settings.bounds.workerHeapMb,
          stopGraceMs: settings.bounds.jobStopGraceMs,
        })
      : undefined;
  const execution = options.execution ?? pool ?? local;
  const common = {
    execution,
    runsDir,
    concurrency: settings.concurrency,
    onRestart: settings.onRestart,
    uploadWaitMs: settings.uploadWaitMs,
    maxRunningMs: settings.bounds.jobMaxRunningMs,
    reservedSlots: reserveOf(settings.bounds, settings.concurrency),
    runningLimits: Object.fromEntries(
      settings.tenants.flatMap((t) => (t.limits.runningLimit === undefined ? [] : [[t.name, t.limits.runningLimit] as const])),
    ),
  };
  let queue: JobQueue;
  let closeBackend: () => Promise<void>;
  let driver: RunningServer["sqliteDriver"] = null;
  if (settings.queue.backend === "redis") {
    const backend = await openRedisBackend(settings.queue, { ...common, api: settings.role !== "worker", worker: runsJobs });
    queue = backend.queue;
    closeBackend = backend.close;
  } else {
    const store = new SqliteJobStore(join(settings.dataDir, "skillrig-server.sqlite"));
    driver = { name: sqliteDriver().name, about: sqliteDriver().describe() };
    queue = new LocalJobQueue({ store, ...common });
    closeBackend = async () => store.close();
  }
  const app = await buildApp({ settings, runner, execution, queue, runsDir }, { logger: options.logger });
  let recovered: RunningServer["recovered"];
  try {
    recovered = await queue.recover();
    if (settings.role !== "worker") await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    await queue.close();
    await pool?.close();
    await closeBackend();
    throw error;
  }
  const stop = async () => {
    await app.close();
    await queue.close();
    await pool?.close();
    await closeBackend();
  };
  if (settings.role === "worker") return { url: "", port: 0, settings, recovered, sqliteDriver: driver, app, close: stop };
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  const host = settings.host.includes(":") && !settings.host.startsWith("[") ? `[${settings.host}]` : settings.host;
  return {
    url: `http://${host}:${port}`,
    port,
    settings,
    recovered,
    sqliteDriver: driver,
    app,
    close: stop,
  };
}
