/**
 * The embedded job store (the default backend): every job (skill job or oracle run) and every event it produced, in one SQLite
 * file. Status changes and their `status` event are written in one transaction, so the event log and the job row
 * never disagree, even after a SIGKILL (WAL mode, synchronous=NORMAL: a committed transaction survives a killed
 * process; only a power cut may lose the last one).
 *
 * Engine, log and case events are many per job and nobody waits on each one, so they are not one autocommit each
 * (that was a third of the main thread's time at 100 clients): `appendEvent` gives the event its sequence number at
 * once and keeps it in memory; every pending event is written in one transaction at the end of the event-loop turn
 * (setImmediate), or earlier by the next status change (in the same transaction, before its status event) or by a
 * read of the log. `onCommitted` listeners hear of an event only once it is committed, so nothing a client was sent
 * can vanish in a crash. Sequence numbers are handed out here, not by SQLite: one process owns the file.
 */
import { SkillrigError, type JobStatus } from "@skillrig/core";
import {
  decodeCursor,
  encodeCursor,
  finishEventData,
  type Admission,
  type FinishFields,
  type JobPage,
  type ListQuery,
  type Refusal,
  type TenantCounts,
  type JobRecord,
  type DayUsage,
  type JobStore,
  type NewJob,
  type StoredEvent,
} from "./job-store.js";
import { pickTenant, turnsAhead, type SlotReserve } from "./fair-turns.js";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-database.js";
import { openSqliteDatabase } from "./sqlite-driver.js";
import { migrate } from "./sqlite-migrations.js";
import { storedJob } from "./stored-job.js";

/** A row of `jobs` as SQLite returns it: nothing checked yet (fromRow checks it). */
interface JobRow {
  id: string;
  tenant: string;
  kind: string;
  status: string;
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

function badCursor(): SkillrigError {
  return new SkillrigError("usage", "the cursor is not one this server handed out (use next_cursor of the previous page as is)", {
    field: "cursor",
  });
}

/** The record of a row, checked (stored-job.ts): a row this server did not write is named, never run. */
function fromRow(row: JobRow, where: string): JobRecord {
  const parse = (column: string, text: string | null): unknown => {
    if (text === null) return null;
    try {
      return JSON.parse(text);
    } catch {
      throw new SkillrigError("unhandled", `the stored job "${row.id}" (${where}) has a ${column} that is not JSON`, {
        field: column,
        details: { job_id: row.id, store: where },
      });
    }
  };
  return storedJob(
    {
      id: row.id,
      tenant: row.tenant,
      kind: row.kind,
      status: row.status,
      skill_id: row.skill_id,
      engine: row.engine,
      request: parse("request_json", row.request_json),
      needs_upload: row.needs_upload === 1,
      run_dir: row.run_dir,
      reason: row.reason,
      error: parse("error_json", row.error_json),
      result: parse("result_json", row.result_json),
      created_at: row.created_at,
      queued_at: row.queued_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
    },
    where,
  );
}

type PendingEvent = StoredEvent & { data_json: string };

export class SqliteJobStore implements JobStore {
  readonly #db: SqliteDatabase;
  readonly #statements;
  /** The last sequence number handed out (events are numbered before they are written). */
  #seq: number;
  /** Events numbered but not yet committed, oldest first. */
  #pending: PendingEvent[] = [];
  #flushScheduled: NodeJS.Immediate | undefined;
  readonly #committedListeners: Array<(events: readonly StoredEvent[]) => void> = [];
  readonly #writePending: () => void;
  /** When each tenant last had a job started (a turn number): fair turns between tenants. */
  readonly #served = new Map<string, number>();
  /** GET /v1/jobs statements, one per combination of filters (a handful), prepared once. */
  readonly #listStatements = new Map<string, SqliteStatement>();
  #turn = 0;
  /** Where the records are, for the error about one that does not read as a record. */
  readonly #where: string;
  readonly #fromRow = (row: JobRow): JobRecord => fromRow(row, this.#where);

  constructor(file: string) {
    this.#where = `sqlite: ${file}`;
    this.#db = openSqliteDatabase(file);
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.pragma("busy_timeout = 5000");
    migrate(this.#db, file);
    const db = this.#db;
    this.#statements = {
      insert: db.prepare(
        `INSERT INTO jobs (id, tenant, kind, status, skill_id, engine, request_json, needs_upload, run_dir, created_at, queued_at, queue_order)
         VALUES (@id, @tenant, @kind, @status, @skill_id, @engine, @request_json, @needs_upload, @run_dir, @created_at, @queued_at, @queue_order)`,
      ),
      get: db.prepare("SELECT * FROM jobs WHERE id = ?"),
      tenantCounts: db.prepare(
        "SELECT status, COUNT(*) AS n FROM jobs WHERE tenant = ? AND status IN ('waiting_upload', 'queued', 'running') GROUP BY status",
      ),
      queuedTenants: db.prepare(
        "SELECT tenant, MIN(queue_order) AS first, COUNT(*) AS n FROM jobs WHERE status = 'queued' GROUP BY tenant",
      ),
      runningTenants: db.prepare("SELECT tenant, COUNT(*) AS n FROM jobs WHERE status = 'running' GROUP BY tenant"),
      nextQueuedOf: db.prepare("SELECT * FROM jobs WHERE status = 'queued' AND tenant = ? ORDER BY queue_order, rowid LIMIT 1"),
      queueAheadInTenant: db.prepare(
        "SELECT COUNT(*) AS n FROM jobs WHERE status = 'queued' AND tenant = @tenant AND queue_order < @order",
      ),
      usage: db.prepare("SELECT bytes FROM upload_usage WHERE tenant = ? AND day = ?"),
      addUsage: db.prepare(
        "INSERT INTO upload_usage (tenant, day, bytes) VALUES (@tenant, @day, @bytes) ON CONFLICT (tenant, day) DO UPDATE SET bytes = bytes + @bytes",
      ),
      dayUsage: db.prepare("SELECT day, cost_usd, tokens, jobs, unpriced_jobs FROM model_usage WHERE tenant = ? AND day = ?"),
      addDayUsage: db.prepare(
        `INSERT INTO model_usage (tenant, day, cost_usd, tokens, jobs, unpriced_jobs) VALUES (@tenant, @day, @cost_usd, @tokens, @jobs, @unpriced_jobs)
         ON CONFLICT (tenant, day) DO UPDATE SET cost_usd = cost_usd + @cost_usd, tokens = tokens + @tokens, jobs = jobs + @jobs, unpriced_jobs = unpriced_jobs + @unpriced_jobs`,
      ),
      countStatus: db.prepare("SELECT status, COUNT(*) AS n FROM jobs GROUP BY status"),
      countPending: db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('waiting_upload', 'queued')"),
      maxOrder: db.prepare("SELECT COALESCE(MAX(queue_order), 0) AS m FROM jobs"),
      markQueued: db.prepare("UPDATE jobs SET status = 'queued', queued_at = @at, queue_order = @order WHERE id = @id AND status = @from"),
      markRunning: db.prepare("UPDATE jobs SET status = 'running', started_at = @at WHERE id = @id AND status = 'queued'"),
      finish: db.prepare(
        `UPDATE jobs SET status = @status, error_json = @error_json, reason = @reason, result_json = @result_json, finished_at = @at
         WHERE id = @id AND status NOT IN ('succeeded', 'failed', 'canceled')`,
      ),
      running: db.prepare("SELECT * FROM jobs WHERE status = 'running'"),
      countCrash: db.prepare("UPDATE jobs SET worker_crashes = worker_crashes + 1 WHERE id = ? RETURNING worker_crashes"),
      waitingSince: db.prepare("SELECT id FROM jobs WHERE status = 'waiting_upload' AND created_at < ?"),
      insertEvent: db.prepare("INSERT INTO events (seq, job_id, type, data_json, at) VALUES (?, ?, ?, ?, ?)"),
      eventsAfter: db.prepare("SELECT * FROM events WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
    };
    // AUTOINCREMENT's counter (sqlite_sequence) never goes back, even when the newest events were deleted; an
    // explicit seq above it moves it on, so the two stay one counter.
    const last = db
      .prepare(
        "SELECT MAX(COALESCE((SELECT MAX(seq) FROM events), 0), COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)) AS m",
      )
      .get() as { m: number };
    this.#seq = last.m;
    const insertEvent = this.#statements.insertEvent;
    this.#writePending = () => {
      for (const e of this.#pending) insertEvent.run(e.seq, e.job_id, e.type, e.data_json, e.at);
    };
  }

  /** `listener` hears of every event written through `appendEvent`, in sequence order, once it is committed. */
  onCommitted(listener: (events: readonly StoredEvent[]) => void): void {
    this.#committedListeners.push(listener);
  }

  close(): void {
    this.flush();
    this.#db.close();
  }

  /** Commits the pending events now (one transaction). */
  flush(): void {
    if (this.#pending.length > 0) this.#write(() => undefined);
  }

  /**
   * Runs `body` in one transaction that first writes the pending events (their seqs are below anything `body`
   * numbers), then tells the listeners which of them are now committed. If the transaction fails, they stay pending.
   */
  #write<T>(body: () => T): T {
    const count = this.#pending.length;
    const value = this.#db.transaction(() => {
      if (count > 0) this.#writePending();
      return body();
    });
    if (count > 0) {
      const committed = this.#pending.splice(0, count).map(({ data_json: _, ...event }) => event);
      for (const listener of this.#committedListeners) listener(committed);
    }
    return value;
  }

  /**
   * Inserts a job in `waiting_upload` or `queued` and records its first status event, in one transaction with the
   * check of `admission` (the tenant's limits, then the server's), so concurrent submissions cannot overshoot them.
   */
  create(job: NewJob, admission?: Admission): { record: JobRecord; event: StoredEvent } | { refused: Refusal } {
    return this.#write(() => {
      const refused = admission ? this.#refusal(job, admission) : undefined;
      if (refused) return { refused };
      const at = new Date().toISOString();
      const status: JobStatus = job.needs_upload ? "waiting_upload" : "queued";
      const order = job.needs_upload ? null : this.#nextOrder();
      this.#statements.insert.run({
        id: job.id,
        tenant: job.tenant,
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
    });
  }

  get(id: string): JobRecord | undefined {
    const row = this.#statements.get.get(id) as JobRow | undefined;
    return row ? this.#fromRow(row) : undefined;
  }

  #refusal(job: NewJob, admission: Admission): Refusal | undefined {
    const mine = this.tenantCounts(job.tenant);
    const pending = mine.waiting_upload + mine.queued;
    if (admission.tenantQueueLimit !== undefined && pending >= admission.tenantQueueLimit)
      return { limit: "queue_limit", count: pending, max: admission.tenantQueueLimit };
    if (job.needs_upload && admission.tenantWaitingUploadLimit !== undefined && mine.waiting_upload >= admission.tenantWaitingUploadLimit)
      return { limit: "waiting_upload_limit", count: mine.waiting_upload, max: admission.tenantWaitingUploadLimit };
    const all = this.pendingCount();
    if (all >= admission.queueLimit) return { limit: "server.queue_limit", count: all, max: admission.queueLimit };
    return undefined;
  }

  /** Newest first (by insertion: rowid), filtered; the cursor is the rowid the previous page ended at. */
  list(query: ListQuery): JobPage {
    const where: string[] = [];
    const params: Array<string | number> = [];
    if (query.tenant !== undefined) {
      where.push("tenant = ?");
      params.push(query.tenant);
    }
    if (query.statuses && query.statuses.length > 0) {
      where.push(`status IN (${query.statuses.map(() => "?").join(", ")})`);
      params.push(...query.statuses);
    }
    if (query.kind !== undefined) {
      where.push("kind = ?");
      params.push(query.kind);
    }
    if (query.skillId !== undefined) {
      where.push("skill_id = ?");
      params.push(query.skillId);
    }
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor);
      if (typeof after !== "number") throw badCursor();
      where.push("rowid < ?");
      params.push(after);
    }
    const sql = `SELECT rowid AS row_number, * FROM jobs ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY rowid DESC LIMIT ?`;
    let statement = this.#listStatements.get(sql);
    if (!statement) this.#listStatements.set(sql, (statement = this.#db.prepare(sql)));
    const rows = statement.all(...params, query.limit + 1) as Array<JobRow & { row_number: number }>;
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    return { jobs: page.map(this.#fromRow), next_cursor: more ? encodeCursor(page.at(-1)!.row_number) : null };
  }

  /** The tenant's jobs waiting for their upload, queued and running. */
  tenantCounts(tenant: string): TenantCounts {
    const out: TenantCounts = { waiting_upload: 0, queued: 0, running: 0 };
    for (const row of this.#statements.tenantCounts.all(tenant) as Array<{ status: keyof TenantCounts; n: number }>)
      out[row.status] = row.n;
    return out;
  }

  reserveUploadBytes(tenant: string, day: string, bytes: number, max: number): { ok: boolean; used: number } {
    return this.#write(() => {
      const used = (this.#statements.usage.get(tenant, day) as { bytes: number } | undefined)?.bytes ?? 0;
      if (used + bytes > max) return { ok: false, used };
      this.#statements.addUsage.run({ tenant, day, bytes });
      return { ok: true, used };
    });
  }

  releaseUploadBytes(tenant: string, day: string, bytes: number): void {
    this.#write(() => this.#statements.addUsage.run({ tenant, day, bytes: -bytes }));
  }

  addDayUsage(tenant: string, day: string, add: Omit<DayUsage, "day">): void {
    this.#write(() => this.#statements.addDayUsage.run({ tenant, day, ...add }));
  }

  dayUsage(tenant: string, days: string[]): DayUsage[] {
    return days.flatMap((day) => (this.#statements.dayUsage.get(tenant, day) as DayUsage | undefined) ?? []);
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

  /** How many queued jobs will start before this queued one, by fair turns (see `turnsAhead`). */
  queuedAhead(id: string): number {
    const job = this.#statements.get.get(id) as (JobRow & { queue_order: number | null }) | undefined;
    if (!job || job.queue_order === null) return 0;
    const own = (this.#statements.queueAheadInTenant.get({ tenant: job.tenant, order: job.queue_order }) as { n: number }).n;
    const queued = this.#statements.queuedTenants.all() as Array<{ tenant: string; first: number; n: number }>;
    const me = queued.find((q) => q.tenant === job.tenant);
    return turnsAhead(
      own,
      { served: this.#served.get(job.tenant) ?? 0, first: me?.first ?? job.queue_order },
      queued.filter((q) => q.tenant !== job.tenant).map((q) => ({ queued: q.n, served: this.#served.get(q.tenant) ?? 0, first: q.first })),
    );
  }

  /** `waiting_upload` -> `queued` (or requeues a `running` job on restart). Returns the event, or undefined if the job was not in `from`. */
  markQueued(id: string, from: JobStatus): StoredEvent | undefined {
    return this.#write(() => {
      const at = new Date().toISOString();
      const changed = this.#statements.markQueued.run({ id, at, from, order: this.#nextOrder() }).changes;
      return changed === 1 ? this.#appendEvent(id, "status", { status: "queued" }, at) : undefined;
    });
  }

  /**
   * Takes the next queued job by fair turns between tenants and marks it running, atomically: among tenants with
   * queued jobs and below their running limit, the one with the fewest running jobs, then the one served least
   * recently, then the one whose oldest queued job is oldest; its oldest queued job.
   */
  claimNext(
    runningLimit: (tenant: string) => number | undefined = () => undefined,
    reserve?: SlotReserve,
  ): { record: JobRecord; event: StoredEvent } | undefined {
    return this.#write(() => {
      const tenant = this.#nextTenant(runningLimit, reserve);
      if (tenant === undefined) return undefined;
      const row = this.#statements.nextQueuedOf.get(tenant) as JobRow;
      this.#served.set(tenant, ++this.#turn);
      const at = new Date().toISOString();
      this.#statements.markRunning.run({ id: row.id, at });
      const event = this.#appendEvent(row.id, "status", { status: "running" }, at);
      return { record: this.get(row.id)!, event };
    });
  }

  #nextTenant(runningLimit: (tenant: string) => number | undefined, reserve?: SlotReserve): string | undefined {
    const queued = this.#statements.queuedTenants.all() as Array<{ tenant: string; first: number }>;
    if (queued.length === 0) return undefined;
    const running = new Map(
      (this.#statements.runningTenants.all() as Array<{ tenant: string; n: number }>).map((r) => [r.tenant, r.n] as const),
    );
    return pickTenant(
      queued.map((q) => ({
        tenant: q.tenant,
        first: q.first,
        running: running.get(q.tenant) ?? 0,
        served: this.#served.get(q.tenant) ?? 0,
      })),
      runningLimit,
      reserve,
    );
  }

  /** Moves a job to a terminal status; a job that is already terminal is left as it is (returns undefined). */
  finish(id: string, fields: FinishFields): StoredEvent | undefined {
    return this.#write(() => {
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
    });
  }

  /** Jobs left `running` by a server that stopped without finishing them. */
  runningJobs(): JobRecord[] {
    return (this.#statements.running.all() as JobRow[]).map(this.#fromRow);
  }

  /** Counts one more death of the worker running `id` (durably, before anything else is done about it); returns the count. */
  countWorkerCrash(id: string): number {
    return this.#write(() => (this.#statements.countCrash.get(id) as { worker_crashes: number }).worker_crashes);
  }

  /** Ids of jobs that have waited for their upload since before `cutoff` (an ISO time). */
  waitingSince(cutoff: string): string[] {
    return (this.#statements.waitingSince.all(cutoff) as Array<{ id: string }>).map((r) => r.id);
  }

  /**
   * Numbers the event and queues it for the next commit (see the top of this file): durable at the end of this
   * event-loop turn, and in any case before the job's next status change. Listeners hear of it once committed.
   */
  appendEvent(jobId: string, type: string, data: unknown): StoredEvent {
    const event: PendingEvent = {
      seq: ++this.#seq,
      job_id: jobId,
      type,
      data,
      at: new Date().toISOString(),
      data_json: JSON.stringify(data),
    };
    this.#pending.push(event);
    this.#flushScheduled ??= setImmediate(() => {
      this.#flushScheduled = undefined;
      try {
        if (this.#db.isOpen) this.flush();
      } catch {
        // Left pending: the job's next status change writes them in its own transaction, and its caller hears the error.
      }
    });
    const { data_json: _, ...stored } = event;
    return stored;
  }

  /** Events of a job after `afterSeq`, oldest first (pending events are committed first, so none is missing). */
  eventsAfter(jobId: string, afterSeq: number, limit = 1000): StoredEvent[] {
    this.flush();
    const rows = this.#statements.eventsAfter.all(jobId, afterSeq, limit) as Array<{
      seq: number;
      job_id: string;
      type: string;
      data_json: string;
      at: string;
    }>;
    return rows.map((r) => ({ seq: r.seq, job_id: r.job_id, type: r.type, data: JSON.parse(r.data_json), at: r.at }));
  }

  /** A status event, written inside the caller's transaction (after the pending events, which have lower seqs). */
  #appendEvent(jobId: string, type: string, data: unknown, at: string): StoredEvent {
    const seq = ++this.#seq;
    this.#statements.insertEvent.run(seq, jobId, type, JSON.stringify(data), at);
    return { seq, job_id: jobId, type, data, at };
  }

  #nextOrder(): number {
    return (this.#statements.maxOrder.get() as { m: number }).m + 1;
  }
}
