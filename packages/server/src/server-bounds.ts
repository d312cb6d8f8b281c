/**
 * Bounds on what one tenant's jobs may hold of the server's shared resources (issue 38): worker time, worker
 * slots, worker memory, disk through uploads. Each has a config key under `server`, a default a shared server can
 * live with, and an error or verdict for crossing it (docs/server.md, "Bounds on untrusted producers").
 * Normalised here, once, apart from the other settings, so the keys of one concern read together.
 */
import type { SkillrigConfig } from "@skillrig/core";
import type { TenantSettings } from "./server-config.js";

export interface ServerBounds {
  /** A job running longer than this is stopped and ends `failed`, error `timeout`, reason `time_limit`. */
  jobMaxRunningMs: number;
  /** A job in a worker thread that has not ended this long after it was told to stop has its thread ended. */
  jobStopGraceMs: number;
  /** Most case time a task may ask: the sum over its cases of each case's time limit (checked at POST). */
  taskMaxCaseTimeMs: number;
  /**
   * Slots of each worker process kept for tenants with no job running: a tenant that already runs a job may not
   * take one of the last `reservedSlots` free slots (at most concurrency - 1 of them).
   */
  reservedSlots: number;
  /** Heap of each job worker thread (V8 old generation), in MiB; a worker past it ends its job `memory_limit`. */
  workerHeapMb: number;
  /** Most folders an upload's entry path may go down. */
  uploadMaxPathDepth: number;
  /** Longest upload entry path, in UTF-8 bytes. */
  uploadMaxPathBytes: number;
}

/** Two hours: long enough for any one skill job, solve attempt or task we know of; short enough that a slot turns over. */
export const DEFAULT_JOB_MAX_RUNNING_MS = 2 * 60 * 60 * 1000;
/** 10 GiB a tenant may upload (extracted) per UTC day unless its own `upload_bytes_per_day` says otherwise. */
export const DEFAULT_UPLOAD_BYTES_PER_DAY = 10 * 1024 * 1024 * 1024;

export const BOUND_DEFAULTS = {
  jobStopGraceMs: 30_000,
  workerHeapMb: 1024,
  uploadMaxPathDepth: 32,
  uploadMaxPathBytes: 1024,
} as const;

type ServerSection = NonNullable<SkillrigConfig["server"]>;

export function resolveServerBounds(server: ServerSection, tenants: TenantSettings[]): ServerBounds {
  const jobMaxRunningMs = server.job_max_running_ms ?? DEFAULT_JOB_MAX_RUNNING_MS;
  // Nobody to keep a slot for when only one tenant can submit jobs (a server without tenants, or one team).
  const submitters = tenants.filter((t) => t.tokens.length > 0).length;
  return {
    jobMaxRunningMs,
    jobStopGraceMs: server.job_stop_grace_ms ?? BOUND_DEFAULTS.jobStopGraceMs,
    // A task the job cap could cut short is refused at the door rather than stopped after an hour or two.
    taskMaxCaseTimeMs: server.task_max_case_time_ms ?? jobMaxRunningMs,
    reservedSlots: server.reserved_slots ?? (submitters > 1 ? 1 : 0),
    workerHeapMb: server.worker_heap_mb ?? BOUND_DEFAULTS.workerHeapMb,
    uploadMaxPathDepth: server.upload_max_path_depth ?? BOUND_DEFAULTS.uploadMaxPathDepth,
    uploadMaxPathBytes: server.upload_max_path_bytes ?? BOUND_DEFAULTS.uploadMaxPathBytes,
  };
}

/** The reserve one worker process keeps: never its only slot. */
export function reserveOf(bounds: Pick<ServerBounds, "reservedSlots">, concurrency: number): number {
  return Math.max(0, Math.min(bounds.reservedSlots, concurrency - 1));
}
