/**
 * The embedded job store (the default backend): every job (skill job or oracle run) and every event it produced, in one SQLite
 * file. Status changes and their `status` event are written in one transaction, so the event log and the job row
 * never disagree, even after a SIGKILL (WAL mode, synchronous=NORMAL: a committed transaction survives a killed
 * process; only a power cut may lose the last one).
 */
import Database from "better-sqlite3";
import type { JobStatus, SerializedError } from "@skillrig/core";
import {
  finishEventData,
  type FinishFields,
  type JobKind,
  type JobRecord,
  type JobStore,
  type NewJob,
  type StoredEvent,
} from "./job-store.js";
import { migrate } from "./sqlite-migrations.js";

interface JobRow {
  id: string;
  kind: JobKind;
  status: JobStatus;
  skill_id: string | null;
  engine: string | null;
  request_json: string;
  needs_upload: number;
  run_dir: string;
  reason: string | null;
  error_json: string | null;
  result_json: string | null;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
}

function fromRow(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    skill_id: row.skill_id,
    engine: row.engine,
    request: JSON.parse(row.request_json) as Record<string, unknown>,
    needs_upload: row.needs_upload === 1,
    run_dir: row.run_dir,
    reason: row.reason,
    error: row.error_json === null ? null : (JSON.parse(row.error_json) as SerializedError),
    result: row.result_json === null ? null : JSON.parse(row.result_json),
    created_at: row.created_at,
    queued_at: row.queued_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

export class SqliteJobStore implements JobStore {
  readonly #db: Database.Database;
  readonly #statements;

  constructor(file: string) {
    this.#db = new Database(file);
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.pragma("busy_timeout = 5000");
    migrate(this.#db, file);
    const db = this.#db;
    this.#statements = {
      insert: db.prepare(
        `INSERT INTO jobs (id, kind, status, skill_id, engine, request_json, needs_upload, run_dir, created_at, queued_at, queue_order)
         VALUES (@id, @kind, @status, @skill_id, @engine, @request_json, @needs_upload, @run_dir, @created_at, @queued_at, @queue_order)`,
      ),
      get: db.prepare("SELECT * FROM jobs WHERE id = ?"),
      list: db.prepare("SELECT * FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ?"),
      countStatus: db.prepare("SELECT status, COUNT(*) AS n FROM jobs GROUP BY status"),
      countPending: db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('waiting_upload', 'queued')"),
      queueAhead: db.prepare(
        "SELECT COUNT(*) AS n FROM jobs WHERE status = 'queued' AND queue_order < (SELECT queue_order FROM jobs WHERE id = ?)",
      ),
      nextQueued: db.prepare("SELECT * FROM jobs WHERE status = 'queued' ORDER BY queue_order, rowid LIMIT 1"),
      maxOrder: db.prepare("SELECT COALESCE(MAX(queue_order), 0) AS m FROM jobs"),
      markQueued: db.prepare("UPDATE jobs SET status = 'queued', queued_at = @at, queue_order = @order WHERE id = @id AND status = @from"),
      markRunning: db.prepare("UPDATE jobs SET status = 'running', started_at = @at WHERE id = @id AND status = 'queued'"),
      finish: db.prepare(
        `UPDATE jobs SET status = @status, error_json = @error_json, reason = @reason, result_json = @result_json, finished_at = @at
         WHERE id = @id AND status NOT IN ('succeeded', 'failed', 'canceled')`,
      ),
      running: db.prepare("SELECT * FROM jobs WHERE status = 'running'"),
      waitingSince: db.prepare("SELECT id FROM jobs WHERE status = 'waiting_upload' AND created_at < ?"),
      insertEvent: db.prepare("INSERT INTO events (job_id, type, data_json, at) VALUES (?, ?, ?, ?)"),
      eventsAfter: db.prepare("SELECT * FROM events WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
    };
  }

  close(): void {
    this.#db.close();
  }

  /** Inserts a job in `waiting_upload` or `queued` and records its first status event. */
  create(job: NewJob): { record: JobRecord; event: StoredEvent } {
    return this.#db.transaction(() => {
      const at = new Date().toISOString();
      const status: JobStatus = job.needs_upload ? "waiting_upload" : "queued";
      const order = job.needs_upload ? null : this.#nextOrder();
      this.#statements.insert.run({
        id: job.id,
        kind: job.kind,
        status,
        skill_id: job.skill_id ?? null,
        engine: job.engine ?? null,
        request_json: JSON.stringify(job.request),
        needs_upload: job.needs_upload ? 1 : 0,
        run_dir: job.run_dir,
        created_at: at,
        queued_at: job.needs_upload ? null : at,
        queue_order: order,
      });
      const event = this.#appendEvent(job.id, "status", { status }, at);
      return { record: this.get(job.id)!, event };
    })();
  }

  get(id: string): JobRecord | undefined {
    const row = this.#statements.get.get(id) as JobRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  list(limit = 100): JobRecord[] {
    return (this.#statements.list.all(limit) as JobRow[]).map(fromRow);
  }

  /** Jobs per status (missing statuses count 0). */
  counts(): Record<JobStatus, number> {
    const out: Record<JobStatus, number> = { waiting_upload: 0, queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 0 };
    for (const row of this.#statements.countStatus.all() as Array<{ status: JobStatus; n: number }>) out[row.status] = row.n;
    return out;
  }

  /** Jobs waiting to run (`waiting_upload` + `queued`): what the queue limit counts. Uses the status index. */
  pendingCount(): number {
    return (this.#statements.countPending.get() as { n: number }).n;
  }

  /** How many queued jobs will start before this queued one. */
  queuedAhead(id: string): number {
    return (this.#statements.queueAhead.get(id) as { n: number }).n;
  }

  /** `waiting_upload` -> `queued` (or requeues a `running` job on restart). Returns the event, or undefined if the job was not in `from`. */
  markQueued(id: string, from: JobStatus): StoredEvent | undefined {
    return this.#db.transaction(() => {
      const at = new Date().toISOString();
      const changed = this.#statements.markQueued.run({ id, at, from, order: this.#nextOrder() }).changes;
      return changed === 1 ? this.#appendEvent(id, "status", { status: "queued" }, at) : undefined;
    })();
  }

  /** Takes the oldest queued job and marks it running, atomically. */
  claimNext(): { record: JobRecord; event: StoredEvent } | undefined {
    return this.#db.transaction(() => {
      const row = this.#statements.nextQueued.get() as JobRow | undefined;
      if (!row) return undefined;
      const at = new Date().toISOString();
      this.#statements.markRunning.run({ id: row.id, at });
      const event = this.#appendEvent(row.id, "status", { status: "running" }, at);
      return { record: this.get(row.id)!, event };
    })();
  }

  /** Moves a job to a terminal status; a job that is already terminal is left as it is (returns undefined). */
  finish(id: string, fields: FinishFields): StoredEvent | undefined {
    return this.#db.transaction(() => {
      const at = new Date().toISOString();
      const changed = this.#statements.finish.run({
        id,
        at,
        status: fields.status,
        error_json: fields.error ? JSON.stringify(fields.error) : null,
        reason: fields.reason ?? null,
        result_json: fields.result === undefined ? null : JSON.stringify(fields.result),
      }).changes;
      if (changed !== 1) return undefined;
      return this.#appendEvent(id, "status", finishEventData(fields), at);
    })();
  }

  /** Jobs left `running` by a server that stopped without finishing them. */
  runningJobs(): JobRecord[] {
    return (this.#statements.running.all() as JobRow[]).map(fromRow);
  }

  /** Ids of jobs that have waited for their upload since before `cutoff` (an ISO time). */
  waitingSince(cutoff: string): string[] {
    return (this.#statements.waitingSince.all(cutoff) as Array<{ id: string }>).map((r) => r.id);
  }

  appendEvent(jobId: string, type: string, data: unknown): StoredEvent {
    return this.#appendEvent(jobId, type, data, new Date().toISOString());
  }

  /** Events of a job after `afterSeq`, oldest first. */
  eventsAfter(jobId: string, afterSeq: number, limit = 1000): StoredEvent[] {
    const rows = this.#statements.eventsAfter.all(jobId, afterSeq, limit) as Array<{
      seq: number;
      job_id: string;
      type: string;
      data_json: string;
      at: string;
    }>;
    return rows.map((r) => ({ seq: r.seq, job_id: r.job_id, type: r.type, data: JSON.parse(r.data_json), at: r.at }));
  }

  #appendEvent(jobId: string, type: string, data: unknown, at: string): StoredEvent {
    const info = this.#statements.insertEvent.run(jobId, type, JSON.stringify(data), at);
    return { seq: Number(info.lastInsertRowid), job_id: jobId, type, data, at };
  }

  #nextOrder(): number {
    return (this.#statements.maxOrder.get() as { m: number }).m + 1;
  }
}
