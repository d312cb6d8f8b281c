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

/** skill: a skill job; oracle: an oracle run; solve: one attempt of a solve batch (engine, then hidden tests). */
export type JobKind = "skill" | "oracle" | "solve";

export const TERMINAL_STATUSES: readonly JobStatus[] = ["succeeded", "failed", "canceled"];
export const PENDING_STATUSES: readonly JobStatus[] = ["waiting_upload", "queued"];

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export type Awaitable<T> = T | Promise<T>;

export interface JobRecord {
  id: string;
  kind: JobKind;
  status: JobStatus;
  skill_id: string | null;
  engine: string | null;
  /** The request as accepted (skill: JobRequest; oracle: { task }; solve: SolveAttemptRequest). */
  request: Record<string, unknown>;
  /** Whether the job waits for an upload before it is queued. */
  needs_upload: boolean;
  run_dir: string;
  /** Why a job ended the way it did beyond its error code (`interrupted`, `canceled_by_client` ...). */
  reason: string | null;
  error: SerializedError | null;
  /** JobResult (skill), TaskReport (oracle) or AttemptResult (solve), once finished. */
  result: unknown;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface StoredEvent {
  /** Increasing across the store: the SSE event id clients resume from with Last-Event-ID. */
  seq: number;
  job_id: string;
  type: string;
  data: unknown;
  at: string;
}

export interface NewJob {
  id: string;
  kind: JobKind;
  skill_id?: string;
  engine?: string;
  request: Record<string, unknown>;
  needs_upload: boolean;
  run_dir: string;
}

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

export interface JobStore {
  /** Inserts a job in `waiting_upload` or `queued` and records its first status event. */
  create(job: NewJob): Awaitable<{ record: JobRecord; event: StoredEvent }>;
  get(id: string): Awaitable<JobRecord | undefined>;
  /** Newest first. */
  list(limit?: number): Awaitable<JobRecord[]>;
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
