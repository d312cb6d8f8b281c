/**
 * Issue 38: one tenant cannot hold the server's worker time or slots. On each backend, over real HTTP:
 * - a request that asks more worker time than the server gives (a task of 10,000 cases of a day each, an engine
 *   timeout of a week) is a 422 at POST naming the config key, the numbers and the pointer at fault;
 * - a job past `server.job_max_running_ms` is stopped and ends failed, error `timeout`, reason `time_limit`, its run
 *   folder kept;
 * - tenant A floods long jobs, tenant B's job starts within the bound docs/server.md states: at once in the slot kept
 *   for tenants with no job running (two slots), or as soon as A's running job is stopped by the time cap (one
 *   slot), before A's queued jobs. Checked as the order of the store's events (sequence numbers), never the clock.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import {
  api,
  BACKENDS,
  makeProject,
  openBackend,
  readEvents,
  startInProcess,
  waitForStatus,
  type Api,
  type BackendUnderTest,
} from "./support/server-harness.js";

const A = "tenant-a-token-0123456789abcdef";
const B = "tenant-b-token-0123456789abcdef";
const DAY_MS = 86_400_000;

const echo = (message: string, delay_ms = 0) => ({
  skill_id: "quick-echo",
  engine: "echo",
  input: { message },
  ...(delay_ms > 0 ? { parameter: { delay_ms } } : {}),
});

const dayLongTask = (cases: number, where: "case" | "task") => ({
  contract_version: "1.0",
  task_id: "day-long-cases",
  deliverable_type: "function",
  entrypoint: "f",
  ...(where === "task" ? { limits: { timeout_ms: DAY_MS } } : {}),
  tests: Array.from({ length: cases }, (_, i) => ({
    name: `c${i}`,
    input: [i],
    expected: i,
    ...(where === "case" ? { timeout_ms: DAY_MS } : {}),
  })),
});

/** The sequence number of a job's `status` event (read until it arrives: the job may still be running). */
async function seqOf(url: string, token: string, id: string, status: string): Promise<number> {
  const events = await readEvents(url, id, { token, stopWhen: (e) => e.event === "status" && e.payload.data.status === status });
  const found = events.find((e) => e.event === "status" && e.payload.data.status === status);
  if (!found) throw new Error(`job ${id} has no ${status} event`);
  return found.id;
}

describe.each(BACKENDS)("caps on a job's time, checked at POST (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let client: Api;
  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(makeProject({ queue: under.queue(), job_max_running_ms: 1500 }));
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  it("refuses a task of 10,000 cases of a day each with 422 naming server.task_max_case_time_ms, the numbers and the pointer", async () => {
    for (const [where, pointer] of [
      ["task", "/task/limits/timeout_ms"],
      ["case", "/task/tests/0/timeout_ms"],
    ] as const) {
      const answer = await client.json("POST", "/v1/oracle/runs", { task: dayLongTask(10_000, where) });
      expect([where, answer.status]).toEqual([where, 422]);
      expect(answer.body.error).toMatchObject({
        code: "invalid_task",
        pointer,
        field: "server.task_max_case_time_ms",
        details: { limit: "server.task_max_case_time_ms", max_ms: 1500, case_time_ms: 10_000 * DAY_MS, cases: 10_000 },
      });
      expect(answer.body.error.message).toContain("server.task_max_case_time_ms");
      expect(answer.body.error.message).toContain(String(10_000 * DAY_MS));
      expect(answer.body.error.violations[0]).toMatchObject({ pointer, rule: "server.task_max_case_time_ms" });
    }
    // Nothing was stored.
    expect((await client.json("GET", "/v1/jobs?kind=oracle")).body.jobs).toEqual([]);
    // A task within the cap is taken.
    const small = dayLongTask(1, "task");
    small.limits = { timeout_ms: 1000 };
    expect((await client.json("POST", "/v1/oracle/runs", { task: small })).status).toBe(201);
  });

  it("refuses a skill job or a solve attempt that asks for more time than server.job_max_running_ms", async () => {
    const skill = await client.json("POST", "/v1/jobs", { ...echo("slow"), options: { timeout_ms: 7 * DAY_MS } });
    expect(skill.status).toBe(422);
    expect(skill.body.error).toMatchObject({
      code: "schema_violation",
      pointer: "/options/timeout_ms",
      details: { limit: "server.job_max_running_ms", max_ms: 1500 },
    });
    expect(skill.body.error.message).toContain(`${7 * DAY_MS} ms`);
    const attempt = await client.json("POST", "/v1/solve/attempts", {
      task: { ...dayLongTask(1, "task"), limits: { timeout_ms: 100 } },
      engine: { name: "echo" },
      attempt: 1,
      timeout_ms: DAY_MS,
    });
    expect(attempt.status).toBe(422);
    expect(attempt.body.error).toMatchObject({ pointer: "/timeout_ms", violations: [{ rule: "server.job_max_running_ms" }] });
  });

  it("stops a job past server.job_max_running_ms: failed, error timeout, reason time_limit, its run folder kept", async () => {
    const long = await client.json("POST", "/v1/jobs", echo("sleeps a day", DAY_MS));
    expect(long.status).toBe(201);
    const ended = await waitForStatus(client, long.body.id, ["succeeded", "failed", "canceled"]);
    expect(ended).toMatchObject({
      status: "failed",
      reason: "time_limit",
      error: { code: "timeout", field: "server.job_max_running_ms", details: { limit: "server.job_max_running_ms", max_ms: 1500 } },
    });
    expect(existsSync(join(server.settings.dataDir, "runs", long.body.id, "run.json"))).toBe(true);
    // The server goes on.
    const next = await client.json("POST", "/v1/jobs", echo("after"));
    expect((await waitForStatus(client, next.body.id, ["succeeded", "failed"])).status).toBe("succeeded");
  });
});

describe.each(BACKENDS)("a tenant's long jobs cannot hold every slot (%s backend)", (backend) => {
  let under: BackendUnderTest;
  beforeAll(async () => {
    under = await openBackend(backend);
  });
  afterAll(async () => {
    await under?.stop();
  });

  it("two slots: A floods day-long jobs, B's job starts at once in the slot kept for tenants with nothing running", async () => {
    const server = await startInProcess(
      makeProject({ queue: under.queue(), concurrency: 2, tenants: { a: { tokens: [A] }, b: { tokens: [B] } } }),
    );
    try {
      const a = api(server.url, A);
      const b = api(server.url, B);
      const flood = [];
      for (let i = 0; i < 3; i++) flood.push((await a.json("POST", "/v1/jobs", echo(`flood ${i}`, DAY_MS))).body.id as string);
      await waitForStatus(a, flood[0]!, ["running"]);
      const single = await b.json("POST", "/v1/jobs", echo("b's single job"));
      // B's job runs to its end while A's first job still runs and A's others still wait: it took the kept slot.
      expect((await waitForStatus(b, single.body.id, ["succeeded", "failed"])).status).toBe("succeeded");
      const states = await Promise.all(flood.map(async (id) => (await a.json("GET", `/v1/jobs/${id}`)).body.status));
      expect(states).toEqual(["running", "queued", "queued"]);
      expect(await seqOf(server.url, A, flood[0]!, "running")).toBeLessThan(await seqOf(server.url, B, single.body.id, "running"));
      for (const id of flood) await a.json("POST", `/v1/jobs/${id}/cancel`);
    } finally {
      await server.close();
    }
  });

  it("one slot: A's running job is stopped by server.job_max_running_ms and B's job starts next, before A's queued one", async () => {
    const server = await startInProcess(
      makeProject({
        queue: under.queue(),
        concurrency: 1,
        job_max_running_ms: 2000,
        tenants: { a: { tokens: [A] }, b: { tokens: [B] } },
      }),
    );
    try {
      const a = api(server.url, A);
      const b = api(server.url, B);
      const first = await a.json("POST", "/v1/jobs", echo("a holds the slot", DAY_MS));
      await waitForStatus(a, first.body.id, ["running"]);
      const second = await a.json("POST", "/v1/jobs", echo("a waits", DAY_MS));
      const single = await b.json("POST", "/v1/jobs", echo("b's single job"));
      expect((await waitForStatus(b, single.body.id, ["succeeded", "failed"])).status).toBe("succeeded");
      expect(await waitForStatus(a, first.body.id, ["failed", "succeeded", "canceled"])).toMatchObject({ reason: "time_limit" });
      await waitForStatus(a, second.body.id, ["running", "failed"]);
      const bStart = await seqOf(server.url, B, single.body.id, "running");
      // The bound: B waited for A's running job to reach the cap, no longer; A's queued job came after B's.
      expect(await seqOf(server.url, A, first.body.id, "failed")).toBeLessThan(bStart);
      expect(bStart).toBeLessThan(await seqOf(server.url, A, second.body.id, "running"));
      await a.json("POST", `/v1/jobs/${second.body.id}/cancel`);
    } finally {
      await server.close();
    }
  });
});
