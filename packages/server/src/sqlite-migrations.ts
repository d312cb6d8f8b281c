/**
 * The SQLite store's schema versions. SQLite's `user_version` says which migrations a file has had; each
 * migration runs once, in order, in one transaction with the version bump, so a data folder made by an older
 * skillrig opens after an upgrade and a half-applied migration cannot exist. A file from a newer skillrig (a
 * version this one does not know) is refused rather than guessed at.
 *
 * Version 0 is a file made before versions existed (skillrig 0.1: the `jobs` and `events` tables, user_version 0)
 * or a new, empty file; migration 1 creates that schema where it is missing, so both end up the same.
 */
import { SkillrigError } from "@skillrig/core";
import type { SqliteDatabase } from "./sqlite-database.js";

export const MIGRATIONS: ReadonlyArray<{ version: number; why: string; sql: string }> = [
  {
    version: 1,
    why: "the jobs and events tables of skillrig 0.1 (files made by 0.1 already have them)",
    sql: `
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  skill_id TEXT,
  engine TEXT,
  request_json TEXT NOT NULL,
  needs_upload INTEGER NOT NULL,
  run_dir TEXT NOT NULL,
  reason TEXT,
  error_json TEXT,
  result_json TEXT,
  created_at TEXT NOT NULL,
  queued_at TEXT,
  started_at TEXT,
  finished_at TEXT,
  queue_order INTEGER
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, queue_order);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  type TEXT NOT NULL,
  data_json TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_job ON events (job_id, seq);
`,
  },
  {
    version: 2,
    why: "GET /v1/jobs (newest first) and the upload-wait sweep read by creation time: index it instead of scanning every job",
    sql: `
CREATE INDEX jobs_created ON jobs (created_at);
CREATE INDEX jobs_status_created ON jobs (status, created_at);
`,
  },
  {
    version: 3,
    why: "how many times a job's worker died while running it, so a job that crashes its worker is quarantined instead of requeued forever",
    sql: `
ALTER TABLE jobs ADD COLUMN worker_crashes INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 4,
    why: "tenants: each job belongs to the tenant that submitted it (jobs stored before belong to 'default', the tenant of server.tokens), listed and counted per tenant; each tenant's upload bytes per day",
    sql: `
ALTER TABLE jobs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
CREATE INDEX jobs_tenant ON jobs (tenant);
CREATE INDEX jobs_tenant_status ON jobs (tenant, status, queue_order);
CREATE TABLE upload_usage (
  tenant TEXT NOT NULL,
  day TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  PRIMARY KEY (tenant, day)
);
`,
  },
  {
    version: 5,
    why: "what each tenant's jobs cost per UTC day (cost_usd, tokens, jobs, unpriced jobs): GET /v1/tenants/{tenant}/usage and the daily budgets",
    sql: `
CREATE TABLE model_usage (
  tenant TEXT NOT NULL,
  day TEXT NOT NULL,
  cost_usd REAL NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  jobs INTEGER NOT NULL DEFAULT 0,
  unpriced_jobs INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, day)
);
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Brings `db` to SCHEMA_VERSION. Returns the version it had. */
export function migrate(db: SqliteDatabase, file: string): number {
  const from = db.pragma("user_version") as number;
  if (from > SCHEMA_VERSION) {
    throw new SkillrigError(
      "invalid_config",
      `the jobs database ${file} has schema version ${from}, newer than this skillrig knows (${SCHEMA_VERSION})`,
      { field: "server.data_dir", hint: "run the skillrig version that wrote it, or point server.data_dir at another folder" },
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= from) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    });
  }
  return from;
}
