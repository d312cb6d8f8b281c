/**
 * What a job store is, whichever backend holds it: every job (skill job or oracle run) and every event it produced.
 * Two implementations: `SqliteJobStore` (one file, one process; the default) and `RedisJobStore` (hashes and one
 * Redis Stream per job, shared by every API node and worker). Both keep the same promises:
 *
 * - a status change and its `status` event are written together (one SQLite transaction, one Lua script), so the
 *   event log and the record never disagree;
 * - every transition is guarded by the status it leaves, so a job can be neither started nor finished twice;
 * - event sequence numbers only grow, so `Last-Event-ID` resumes a stream on any node.
 *
 * Methods may answer synchronously (SQLite) or with a promise (Redis); callers always `await`.
 */
import type { JobStatus, SerializedError } from "@skillrig/core";
import type { JobKind, JobRecord, JobRequestOf } from "./stored-job.js";

export const TERMINAL_STATUSES: readonly JobStatus[] = ["succeeded", "failed", "canceled"];
export const PENDING_STATUSES: readonly JobStatus[] = ["waiting_upload", "queued"];

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export type Awaitable<T> = T | Promise<T>;

// What a stored job is, and the check of each one read back from a backend: stored-job.ts.
export type {
  JobKind,
  JobRecord,
  JobRequestOf,
  OracleRunRecord,
  OracleRunRequest,
  SkillJobRecord,
  SolveAttemptRecord,
} from "./stored-job.js";

export interface StoredEvent {
  /** Increasing across the store: the SSE event id clients resume from with Last-Event-ID. */
  seq: number;
  job_id: string;
  type: string;
  data: unknown;
  at: string;
}

/** What a submission makes of a job before it is stored: its kind and its request go together. */
export type JobSubmission = {
  skill_id?: string;
  engine?: string;
  needs_upload: boolean;
} & { [K in JobKind]: { kind: K; request: JobRequestOf<K> } }[JobKind];

/** A job to store: the submission, with its id, its tenant and its run folder. */
export type NewJob = JobSubmission & { id: string; tenant: string; run_dir: string };

export interface FinishFields {
  status: Extract<JobStatus, "succeeded" | "failed" | "canceled">;
  error?: SerializedError | null;
  reason?: string | null;
  result?: unknown;
}

/** The `status` event data a finish writes. */
export function finishEventData(fields: FinishFields): Record<string, unknown> {
  const data: Record<string, unknown> = { status: fields.status };
  if (fields.reason) data.reason = fields.reason;
  if (fields.error) data.error = fields.error;
  return data;
}

/**
 * The limits a new job must fit, checked in the same transaction (or Lua script) that stores it, so concurrent
 * submissions cannot overshoot them: the tenant's first, then the server's.
 */
export interface Admission {
  tenantQueueLimit?: number;
  tenantWaitingUploadLimit?: number;
  /** `server.queue_limit`. */
  queueLimit: number;
}

/** Which limit refused a job, and the count that reached it. */
export interface Refusal {
  limit: "queue_limit" | "waiting_upload_limit" | "server.queue_limit";
  count: number;
  max: number;
}

/** GET /v1/jobs: newest first, filtered; `cursor` continues where the previous page's `next_cursor` left off. */
export interface ListQuery {
  /** Only this tenant's jobs; undefined: every tenant's (an admin). */
  tenant?: string;
  statuses?: JobStatus[];
  kind?: JobKind;
  skillId?: string;
  limit: number;
  cursor?: string;
}

export interface JobPage {
  jobs: JobRecord[];
  /** Opaque; null when there is nothing after this page. */
  next_cursor: string | null;
}

/** The stored part of a cursor: where the previous page ended, in the backend's creation order. */
export function encodeCursor(position: string | number): string {
  return Buffer.from(JSON.stringify({ v: 1, p: position })).toString("base64url");
}

/** Undefined when `cursor` is not one this server handed out. */
export function decodeCursor(cursor: string): string | number | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; p?: unknown };
    if (value.v !== 1 || (typeof value.p !== "string" && typeof value.p !== "number")) return undefined;
    return value.p;
  } catch {
    return undefined;
  }
}

/** Jobs of one tenant per status that its limits count. */
export interface TenantCounts {
  waiting_upload: number;
  queued: number;
  running: number;
}

/** What a tenant's finished jobs cost on one UTC day. */
export interface DayUsage {
  day: string;
  /** USD of the priced jobs (an unpriced job adds nothing here and counts in `unpriced_jobs`). */
  cost_usd: number;
  tokens: number;
  jobs: number;
  unpriced_jobs: number;
}

export interface JobStore {
  /**
   * Inserts a job in `waiting_upload` or `queued` and records its first status event, unless it does not fit
   * `admission`: then nothing is stored and the refusal says which limit.
   */
  create(job: NewJob, admission?: Admission): Awaitable<{ record: JobRecord; event: StoredEvent } | { refused: Refusal }>;
  get(id: string): Awaitable<JobRecord | undefined>;
  /** Newest first, filtered, one page. */
  list(query: ListQuery): Awaitable<JobPage>;
  /** Counts `bytes` against `tenant`'s uploads of `day` (YYYY-MM-DD) unless that would pass `max`; returns the bytes used before. */
  reserveUploadBytes(tenant: string, day: string, bytes: number, max: number): Awaitable<{ ok: boolean; used: number }>;
  /** Gives back bytes reserved for an upload that was refused. */
  releaseUploadBytes(tenant: string, day: string, bytes: number): Awaitable<void>;
  /** Adds a finished job's cost to `tenant`'s `day` (tenant-usage.ts). */
  addDayUsage(tenant: string, day: string, add: Omit<DayUsage, "day">): Awaitable<void>;
  /** `tenant`'s stored usage on those of `days` that have any. */
  dayUsage(tenant: string, days: string[]): Awaitable<DayUsage[]>;
  /** Jobs per status (missing statuses count 0). */
  counts(): Awaitable<Record<JobStatus, number>>;
  /** Jobs waiting to run (`waiting_upload` + `queued`): what the queue limit counts. */
  pendingCount(): Awaitable<number>;
  /** How many queued jobs will start before this queued one. */
  queuedAhead(id: string): Awaitable<number>;
  /** `from` -> `queued`. Returns the event, or undefined if the job was not in `from`. */
  markQueued(id: string, from: JobStatus): Awaitable<StoredEvent | undefined>;
  /** Moves a job to a terminal status; a job that is already terminal is left as it is (returns undefined). */
  finish(id: string, fields: FinishFields): Awaitable<StoredEvent | undefined>;
  /** Ids of jobs that have waited for their upload since before `cutoff` (an ISO time). */
  waitingSince(cutoff: string): Awaitable<string[]>;
  appendEvent(jobId: string, type: string, data: unknown): Awaitable<StoredEvent>;
  /** Events of a job after `afterSeq`, oldest first. */
  eventsAfter(jobId: string, afterSeq: number, limit?: number): Awaitable<StoredEvent[]>;
  close(): Awaitable<void>;
}
