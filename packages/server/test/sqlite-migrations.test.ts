/**
 * The SQLite store's schema versions: a data folder made by skillrig 0.1 (no version, user_version 0) opens after
 * the upgrade with every job and event, and its queued job runs; a file from a newer skillrig is refused clearly.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../src/sqlite-driver.js";
import { FIXTURES, api, makeProject, readEvents, startInProcess, waitForStatus } from "./support/server-harness.js";

const OLD_SCHEMA = readFileSync(join(FIXTURES, "data-0.1", "schema.sql"), "utf8");

function dataFolderOf(projectDir: string, sql: string, userVersion = 0): string {
  const dataDir = join(projectDir, "data");
  mkdirSync(dataDir, { recursive: true });
  const db = openSqliteDatabase(join(dataDir, "skillrig-server.sqlite"));
  db.exec(sql);
  db.pragma(`user_version = ${userVersion}`);
  db.close();
  return dataDir;
}

describe("the SQLite store's migrations", () => {
  it("opens a data folder made by skillrig 0.1: old jobs and events are served, the queued one runs, the file is at the new version", async () => {
    const dir = makeProject();
    const dataDir = dataFolderOf(dir, OLD_SCHEMA);
    const server = await startInProcess(dir);
    try {
      const client = api(server.url);
      const done = await client.json("GET", "/v1/jobs/0b7f4c52-0000-4000-8000-000000000001");
      expect(done.body).toMatchObject({ status: "succeeded", skill_id: "quick-echo" });
      expect((await client.json("GET", "/v1/jobs/0b7f4c52-0000-4000-8000-000000000001/result")).body.output).toEqual({ echo: "from 0.1" });
      const events = await readEvents(server.url, "0b7f4c52-0000-4000-8000-000000000001");
      expect(events.map((e) => [e.id, e.payload.data.status])).toEqual([
        [1, "queued"],
        [2, "running"],
        [3, "succeeded"],
      ]);
      const queued = await waitForStatus(client, "0b7f4c52-0000-4000-8000-000000000002", ["succeeded", "failed"]);
      expect(queued.status).toBe("succeeded");
      // New events continue the old sequence, so Last-Event-ID of a 0.1 client still means the same thing.
      const fresh = await readEvents(server.url, "0b7f4c52-0000-4000-8000-000000000002");
      expect(fresh[0]!.id).toBe(4);
      expect(fresh.at(-1)!.id).toBeGreaterThan(4);
    } finally {
      await server.close();
    }
    const db = openSqliteDatabase(join(dataDir, "skillrig-server.sqlite"));
    expect(db.pragma("user_version")).toBe(5);
    // Version 3: every old job starts with no worker deaths counted.
    expect(db.prepare("SELECT DISTINCT worker_crashes AS n FROM jobs").all()).toEqual([{ n: 0 }]);
    // Version 4: every old job belongs to the tenant `default`.
    expect(db.prepare("SELECT DISTINCT tenant FROM jobs").all()).toEqual([{ tenant: "default" }]);
    const indexes = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'jobs_%'").all() as Array<{ name: string }>
    )
      .map((r) => r.name)
      .sort();
    expect(indexes).toEqual(["jobs_created", "jobs_status", "jobs_status_created", "jobs_tenant", "jobs_tenant_status"]);
    db.close();
  });

  it("after tenants: the old jobs belong to the tenant `default` (server.tokens), another tenant gets 404 and an empty list, an admin sees them", async () => {
    const dir = makeProject({
      tokens: ["single-team-token-0123456789"],
      tenants: { other: { tokens: ["other-team-token-0123456789"] }, ops: { tokens: ["ops-admin-token-0123456789"], role: "admin" } },
    });
    dataFolderOf(dir, OLD_SCHEMA);
    const server = await startInProcess(dir);
    try {
      const id = "0b7f4c52-0000-4000-8000-000000000001";
      const team = api(server.url, "single-team-token-0123456789");
      expect((await team.json("GET", `/v1/jobs/${id}`)).body.status).toBe("succeeded");
      const listed = (await team.json("GET", "/v1/jobs")).body.jobs.map((j: { id: string }) => j.id);
      expect(listed).toContain(id);
      const other = api(server.url, "other-team-token-0123456789");
      expect((await other.json("GET", `/v1/jobs/${id}`)).status).toBe(404);
      expect((await other.json("GET", "/v1/jobs")).body.jobs).toEqual([]);
      const ops = api(server.url, "ops-admin-token-0123456789");
      expect((await ops.json("GET", "/v1/jobs")).body.jobs.map((j: { id: string }) => j.id).sort()).toEqual([...listed].sort());
      await waitForStatus(team, "0b7f4c52-0000-4000-8000-000000000002", ["succeeded"]);
    } finally {
      await server.close();
    }
  });

  it("refuses a jobs database from a newer skillrig, naming the file, its version and server.data_dir", async () => {
    const dir = makeProject();
    dataFolderOf(dir, OLD_SCHEMA, 99);
    const error = await startInProcess(dir).then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string; field: string },
    );
    expect(error).toMatchObject({ code: "invalid_config", field: "server.data_dir" });
    expect(error!.message).toContain("has schema version 99, newer than this skillrig knows (5)");
    expect(error!.message).toContain("skillrig-server.sqlite");
  });
});
