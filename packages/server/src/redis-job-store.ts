/**
 * The job store of the redis backend: records in hashes, events in one Redis Stream per job, every status change
 * one Lua script (src/redis-scripts.ts). Any API node can read any job and serve (and resume) any job's events:
 * a stream entry's id is the event's sequence number, and live events come over Redis pub/sub, published by the
 * same script that stored them, so they arrive in store order.
 *
 * Durability is Redis's: with `appendonly yes` and `appendfsync always` an acknowledged write survives a Redis
 * crash; with `everysec` (Redis's default) up to a second of writes may be lost (docs/server.md).
 */
import { createHash } from "node:crypto";
import { SkillrigError, type JobStatus } from "@skillrig/core";
import { Redis } from "ioredis";
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
import { turnsAhead, type SlotReserve } from "./fair-turns.js";
import { REDIS_SCRIPTS, type RedisScriptName } from "./redis-scripts.js";
import { storedJob } from "./stored-job.js";

/** Each script's SHA1, as Redis caches it. */
const SCRIPT_SHAS = Object.fromEntries(
  Object.entries(REDIS_SCRIPTS).map(([name, lua]) => [name, createHash("sha1").update(lua).digest("hex")]),
) as Record<RedisScriptName, string>;

const STATUSES: JobStatus[] = ["waiting_upload", "queued", "running", "succeeded", "failed", "canceled"];

/**
 * The record of a job's hash, checked (stored-job.ts), or undefined when there is no such hash. A field the hash
 * lacks is null; JSON fields are parsed; a hash this server did not write is named, never run.
 */
function fromHash(hash: Record<string, string>, where: string): JobRecord | undefined {
  if (!hash.id) return undefined;
  const parse = (field: string): unknown => {
    const text = hash[field];
    if (text === undefined) return null;
    try {
      return JSON.parse(text);
    } catch {
      throw new SkillrigError("unhandled", `the stored job "${hash.id}" (${where}) has a ${field} that is not JSON`, {
        field,
        details: { job_id: hash.id, store: where },
      });
    }
  };
  return storedJob(
    {
      id: hash.id,
      // A hash written before tenants has no tenant field: it is the tenant `default`'s (redis-scripts.ts).
      tenant: hash.tenant ?? "default",
      kind: hash.kind,
      status: hash.status,
      skill_id: hash.skill_id ?? null,
      engine: hash.engine ?? null,
      request: parse("request_json"),
      needs_upload: hash.needs_upload === "1",
      run_dir: hash.run_dir,
      reason: hash.reason ?? null,
      error: parse("error_json"),
      result: parse("result_json"),
      created_at: hash.created_at,
      queued_at: hash.queued_at ?? null,
      started_at: hash.started_at ?? null,
      finished_at: hash.finished_at ?? null,
    },
    where,
  );
}

/** What a BullMQ delivery does (see the claim script): start `id`, settle `id` whose worker died, wait, or nothing. */
export type ClaimOutcome =
  | { outcome: "claimed"; id: string; event: StoredEvent }
  | { outcome: "stalled"; id: string; restarts: number }
  | { outcome: "wait" }
  | { outcome: "skip" };

/** Most records one GET /v1/jobs reads on redis while filtering; a page may hold fewer jobs than asked, with a cursor to go on. */
const LIST_SCAN_BUDGET = 5000;

function matches(record: JobRecord, query: ListQuery): boolean {
  if (query.statuses && query.statuses.length > 0 && !query.statuses.includes(record.status)) return false;
  if (query.kind !== undefined && record.kind !== query.kind) return false;
  if (query.skillId !== undefined && record.skill_id !== query.skillId) return false;
  return true;
}

export class RedisJobStore implements JobStore {
  readonly prefix: string;
  readonly #redis: Redis;
  readonly #url: string;
  #subscriber: Redis | undefined;
  /** Where the records are, for the error about one that does not read as a record. */
  readonly #where: string;
  readonly #listeners = new Map<string, { listeners: Set<(message: string) => void>; ready: Promise<void> }>();

  /** `redis` is the command connection (shared with BullMQ's queue); subscriptions get their own. */
  constructor(redis: Redis, url: string, prefix: string) {
    this.#redis = redis;
    this.#url = url;
    this.prefix = prefix;
    this.#where = `redis: prefix ${prefix}`;
  }

  /**
   * Runs one of the scripts by its SHA1; a Redis that does not have it cached yet (just started, or flushed) gets
   * its text once with EVAL, which caches it (what ioredis's defineCommand does, without an untyped command).
   */
  async #run(name: RedisScriptName, ...args: Array<string | number>): Promise<unknown> {
    try {
      return await this.#redis.evalsha(SCRIPT_SHAS[name], 0, this.prefix, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return this.#redis.eval(REDIS_SCRIPTS[name], 0, this.prefix, ...args);
    }
  }

  #key(...parts: string[]): string {
    return [this.prefix, ...parts].join(":");
  }

  /** Gives the data of a store made before tenants to the tenant `default` (once; see the tenancy script). */
  async migrate(): Promise<void> {
    await this.#run("tenancy");
  }

  async create(job: NewJob, admission?: Admission): Promise<{ record: JobRecord; event: StoredEvent } | { refused: Refusal }> {
    const at = new Date().toISOString();
    const status: JobStatus = job.needs_upload ? "waiting_upload" : "queued";
    const fields: string[] = [
      "id",
      job.id,
      "tenant",
      job.tenant,
      "kind",
      job.kind,
      "status",
      status,
      "request_json",
      JSON.stringify(job.request),
      "needs_upload",
      job.needs_upload ? "1" : "0",
      "run_dir",
      job.run_dir,
      "created_at",
      at,
    ];
    if (job.skill_id !== undefined) fields.push("skill_id", job.skill_id);
    if (job.engine !== undefined) fields.push("engine", job.engine);
    const data = { status };
    const limit = (n: number | undefined) => (n === undefined ? -1 : n);
    const answer = (await this.#run(
      "create",
      job.id,
      status,
      at,
      Date.parse(at),
      JSON.stringify(data),
      job.tenant,
      limit(admission?.tenantQueueLimit),
      limit(admission?.tenantWaitingUploadLimit),
      limit(admission?.queueLimit),
      ...fields,
    )) as [string, number | string, number?, number?];
    if (answer[0] === "refused") {
      return { refused: { limit: answer[1] as Refusal["limit"], count: Number(answer[2]), max: Number(answer[3]) } };
    }
    const record = (await this.get(job.id))!;
    return { record, event: { seq: Number(answer[1]), job_id: job.id, type: "status", data, at } };
  }

  async get(id: string): Promise<JobRecord | undefined> {
    return fromHash(await this.#redis.hgetall(this.#key("job", id)), this.#where);
  }

  /** The raw flag a cancel sets on a running job, for the worker that claims it. */
  async cancelRequested(id: string): Promise<boolean> {
    return (await this.#redis.hget(this.#key("job", id), "cancel_requested")) === "1";
  }

  /**
   * Newest first from the tenant's creation index (every job's for an admin), filtered here, reading at most
   * LIST_SCAN_BUDGET records: a page cut short by it still has a cursor. The cursor is the creation score the page ended at.
   */
  async list(query: ListQuery): Promise<JobPage> {
    const key = query.tenant === undefined ? this.#key("all") : this.#key("all", query.tenant);
    let max = "+inf";
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor);
      if (typeof after !== "number") {
        throw new SkillrigError("usage", "the cursor is not one this server handed out (use next_cursor of the previous page as is)", {
          field: "cursor",
        });
      }
      max = `(${after}`;
    }
    const jobs: JobRecord[] = [];
    let lastScore: number | undefined;
    let scanned = 0;
    const chunk = Math.min(500, Math.max(50, query.limit * 2));
    while (scanned < LIST_SCAN_BUDGET) {
      const entries = await this.#redis.zrevrangebyscore(key, max, "-inf", "WITHSCORES", "LIMIT", 0, chunk);
      if (entries.length === 0) return { jobs, next_cursor: null };
      const pipeline = this.#redis.pipeline();
      for (let i = 0; i < entries.length; i += 2) pipeline.hgetall(this.#key("job", entries[i]!));
      const hashes = (await pipeline.exec()) ?? [];
      for (let i = 0; i < hashes.length; i++) {
        const score = Number(entries[2 * i + 1]);
        const record = fromHash(hashes[i]![1] as Record<string, string>, this.#where);
        scanned++;
        if (record && matches(record, query)) {
          if (jobs.length === query.limit) return { jobs, next_cursor: encodeCursor(lastScore!) };
          jobs.push(record);
        }
        lastScore = score;
        max = `(${score}`;
      }
      if (entries.length < chunk * 2) return { jobs, next_cursor: null };
    }
    return { jobs, next_cursor: lastScore === undefined ? null : encodeCursor(lastScore) };
  }

  async tenantCounts(tenant: string): Promise<TenantCounts> {
    const [waiting, queued, running] = await this.#redis.hmget(this.#key("tcounts", tenant), "waiting_upload", "queued", "running");
    return { waiting_upload: Number(waiting ?? 0), queued: Number(queued ?? 0), running: Number(running ?? 0) };
  }

  async reserveUploadBytes(tenant: string, day: string, bytes: number, max: number): Promise<{ ok: boolean; used: number }> {
    const [ok, used] = (await this.#run("reserveUpload", tenant, day, bytes, max)) as [number, number];
    return { ok: Number(ok) === 1, used: Number(used) };
  }

  async releaseUploadBytes(tenant: string, day: string, bytes: number): Promise<void> {
    await this.#run("releaseUpload", tenant, day, bytes);
  }

  async addDayUsage(tenant: string, day: string, add: Omit<DayUsage, "day">): Promise<void> {
    const key = this.#key("cost", tenant, day);
    await this.#redis
      .multi()
      .hincrbyfloat(key, "cost_usd", add.cost_usd)
      .hincrby(key, "tokens", add.tokens)
      .hincrby(key, "jobs", add.jobs)
      .hincrby(key, "unpriced_jobs", add.unpriced_jobs)
      // Kept 400 days: a year of GET /v1/tenants/{tenant}/usage.
      .expire(key, 400 * 86_400)
      .exec();
  }

  async dayUsage(tenant: string, days: string[]): Promise<DayUsage[]> {
    const out: DayUsage[] = [];
    for (const day of days) {
      const [cost, tokens, jobs, unpriced] = await this.#redis.hmget(
        this.#key("cost", tenant, day),
        "cost_usd",
        "tokens",
        "jobs",
        "unpriced_jobs",
      );
      if (jobs === null) continue;
      out.push({
        day,
        cost_usd: Math.round(Number(cost ?? 0) * 1e6) / 1e6,
        tokens: Number(tokens ?? 0),
        jobs: Number(jobs),
        unpriced_jobs: Number(unpriced ?? 0),
      });
    }
    return out;
  }

  async counts(): Promise<Record<JobStatus, number>> {
    const raw = await this.#redis.hgetall(this.#key("counts"));
    return Object.fromEntries(STATUSES.map((s) => [s, Number(raw[s] ?? 0)])) as Record<JobStatus, number>;
  }

  async pendingCount(): Promise<number> {
    const [waiting, queued] = await this.#redis.hmget(this.#key("counts"), "waiting_upload", "queued");
    return Number(waiting ?? 0) + Number(queued ?? 0);
  }

  /** As SqliteJobStore.queuedAhead: by fair turns between tenants (fair-turns.ts, `turnsAhead`). */
  async queuedAhead(id: string): Promise<number> {
    const tenant = (await this.#redis.hget(this.#key("job", id), "tenant")) ?? "default";
    const own = await this.#redis.zrank(this.#key("queued", tenant), id);
    if (own === null) return 0;
    const tenants = await this.#redis.smembers(this.#key("qtenants"));
    const pipeline = this.#redis.pipeline();
    for (const t of tenants) {
      pipeline.zcard(this.#key("queued", t));
      pipeline.zrange(this.#key("queued", t), "0", "0", "WITHSCORES");
      pipeline.hget(this.#key("served"), t);
    }
    const replies = ((await pipeline.exec()) ?? []).map(([, value]) => value);
    const turns = tenants.map((t, i) => ({
      tenant: t,
      queued: Number(replies[3 * i]),
      first: Number((replies[3 * i + 1] as string[])[1] ?? 0),
      served: Number(replies[3 * i + 2] ?? 0),
    }));
    const mine = turns.find((t) => t.tenant === tenant) ?? { served: 0, first: 0 };
    return turnsAhead(
      own,
      mine,
      turns.filter((t) => t.tenant !== tenant),
    );
  }

  /** The oldest queued jobs (at most `limit`) with when they were queued. */
  async oldestQueued(limit: number): Promise<Array<{ id: string; queued_at: string | null }>> {
    const ids = await this.#redis.zrange(this.#key("queued"), "0", String(limit - 1));
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hget(this.#key("job", id), "queued_at");
    const results = (await pipeline.exec()) ?? [];
    return ids.map((id, i) => ({ id, queued_at: (results[i]?.[1] as string | null) ?? null }));
  }

  async markQueued(id: string, from: JobStatus): Promise<StoredEvent | undefined> {
    const at = new Date().toISOString();
    const seq = Number(await this.#run("markQueued", id, from, at));
    return seq === 0 ? undefined : { seq, job_id: id, type: "status", data: { status: "queued" }, at };
  }

  /**
   * A BullMQ delivery's turn: starts the queued job fair turns pick (queued -> running for `worker`), or says the
   * job this delivery had started is still running (its worker died), or that every tenant with queued jobs is at
   * its running limit.
   */
  async claim(
    delivery: string,
    worker: string,
    runningLimits: Record<string, number>,
    reserve: SlotReserve = { freeAfter: 0, reserved: 0 },
  ): Promise<ClaimOutcome> {
    const at = new Date().toISOString();
    const args = [delivery, at, worker, JSON.stringify(runningLimits), reserve.freeAfter, reserve.reserved];
    const [outcome, id, value] = (await this.#run("claim", ...args)) as [string, string, number | string];
    if (outcome === "claimed") {
      return { outcome, id, event: { seq: Number(value), job_id: id, type: "status", data: { status: "running" }, at } };
    }
    if (outcome === "stalled") return { outcome, id, restarts: Number(value) };
    if (outcome === "wait") return { outcome };
    return { outcome: "skip" };
  }

  async finish(id: string, fields: FinishFields): Promise<StoredEvent | undefined> {
    const at = new Date().toISOString();
    const data = finishEventData(fields);
    const extra: string[] = [];
    if (fields.error) extra.push("error_json", JSON.stringify(fields.error));
    if (fields.reason) extra.push("reason", fields.reason);
    if (fields.result !== undefined) extra.push("result_json", JSON.stringify(fields.result));
    const seq = Number(await this.#run("finish", id, fields.status, at, JSON.stringify(data), ...extra));
    return seq === 0 ? undefined : { seq, job_id: id, type: "status", data, at };
  }

  /** Cancel: ends a job that has not started, or flags a running one and tells its worker over P:cancel. */
  async requestCancel(
    id: string,
    fields: FinishFields,
  ): Promise<{ outcome: "canceled"; event: StoredEvent } | { outcome: "stopping" } | { outcome: "final" }> {
    const at = new Date().toISOString();
    const data = finishEventData(fields);
    const [outcome, seq] = (await this.#run(
      "requestCancel",
      id,
      at,
      JSON.stringify(data),
      JSON.stringify(fields.error ?? null),
      fields.reason ?? "",
    )) as [string, number];
    if (outcome === "canceled") return { outcome, event: { seq: Number(seq), job_id: id, type: "status", data, at } };
    return { outcome: outcome === "stopping" ? "stopping" : "final" };
  }

  async waitingSince(cutoff: string): Promise<string[]> {
    return this.#redis.zrangebyscore(this.#key("waiting"), "-inf", String(Date.parse(cutoff) - 1));
  }

  async appendEvent(jobId: string, type: string, data: unknown): Promise<StoredEvent> {
    const at = new Date().toISOString();
    const seq = Number(await this.#run("appendEvent", jobId, type, JSON.stringify(data), at));
    return { seq, job_id: jobId, type, data, at };
  }

  async eventsAfter(jobId: string, afterSeq: number, limit = 1000): Promise<StoredEvent[]> {
    const start = afterSeq > 0 ? `${afterSeq + 1}-0` : "-";
    const entries = await this.#redis.xrange(this.#key("events", jobId), start, "+", "COUNT", limit);
    return entries.map(([id, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      return { seq: Number.parseInt(id, 10), job_id: jobId, type: f.t!, data: JSON.parse(f.d!), at: f.a! };
    });
  }

  /** Live events of one job, through this node's one subscriber connection. Resolves once Redis confirms. */
  async subscribe(jobId: string, listener: (event: StoredEvent) => void): Promise<() => void> {
    return this.#listen(this.#key("live", jobId), (message) => listener(JSON.parse(message) as StoredEvent));
  }

  /** Ids of running jobs clients canceled, as they come (workers listen). */
  async onCancel(listener: (jobId: string) => void): Promise<() => void> {
    return this.#listen(this.#key("cancel"), listener);
  }

  async #listen(channel: string, listener: (message: string) => void): Promise<() => void> {
    if (!this.#subscriber) {
      this.#subscriber = new Redis(this.#url, { maxRetriesPerRequest: null, lazyConnect: false });
      this.#subscriber.on("error", () => undefined); // reconnects on its own; commands wait meanwhile
      this.#subscriber.on("message", (ch: string, message: string) => {
        for (const l of this.#listeners.get(ch)?.listeners ?? []) l(message);
      });
    }
    let entry = this.#listeners.get(channel);
    if (!entry) {
      const subscriber = this.#subscriber;
      entry = { listeners: new Set(), ready: subscriber.subscribe(channel).then(() => undefined) };
      this.#listeners.set(channel, entry);
    }
    entry.listeners.add(listener);
    await entry.ready;
    return () => {
      const current = this.#listeners.get(channel);
      if (!current?.listeners.delete(listener) || current.listeners.size > 0) return;
      this.#listeners.delete(channel);
      void this.#subscriber?.unsubscribe(channel).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
  }
}
