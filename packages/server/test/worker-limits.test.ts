/**
 * Issue 38: a job's worker thread has a heap of its own (`server.worker_heap_mb`). A job that grows it past the
 * limit ends `failed` with error `memory_limit` naming the key, its worker is replaced, and the server goes on.
 * The memory grows on a real path: an oracle run of a task of 5,000 cases with 1 KB values (9 MB of JSON, within
 * the body limit), which the worker parses and holds; a small task runs in the same 64 MiB worker before and after.
 * Through the real `skillrig serve` (worker threads are its default), so the limit is the one the CLI sets up.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { craftZip } from "./support/craft-zip.js";
import { spawnServer, type ChildServer } from "./support/child-server.js";
import { api, makeProject, waitForStatus, type Api } from "./support/server-harness.js";

const value = "v".repeat(900);
const task = (cases: number) => ({
  contract_version: "1.0",
  task_id: "heavy",
  deliverable_type: "function",
  entrypoint: "echo",
  limits: { timeout_ms: 1000 },
  tests: Array.from({ length: cases }, (_, i) => ({ name: `c${i}`, input: [`${value}${i}`], expected: `${value}${i}` })),
});
const solution = craftZip([{ name: "solution.py", data: "def echo(x):\n    return x\n" }]);

describe("a job worker's heap (server.worker_heap_mb)", () => {
  let server: ChildServer;
  let client: Api;
  beforeAll(async () => {
    server = await spawnServer(makeProject({ concurrency: 1, worker_heap_mb: 64 }, { oracle: { jobs: 1 } }));
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.kill();
  });

  const grade = async (cases: number) => {
    const created = await client.json("POST", "/v1/oracle/runs", { task: task(cases) });
    expect(created.status).toBe(201);
    expect((await client.upload(`/v1/jobs/${created.body.id}/upload`, solution)).status).toBe(202);
    return waitForStatus(client, created.body.id, ["succeeded", "failed", "canceled"], 300_000);
  };

  it("a job past it fails with memory_limit naming the key; the worker is replaced and the next job runs", async () => {
    expect((await grade(2)).status).toBe("succeeded");
    const heavy = await grade(5000);
    expect(heavy).toMatchObject({
      status: "failed",
      error: { code: "memory_limit", field: "server.worker_heap_mb", details: { limit: "server.worker_heap_mb", max_mb: 64 } },
    });
    expect(heavy.error.message).toContain("server.worker_heap_mb: 64 MiB");
    expect((await grade(2)).status).toBe("succeeded");
    expect((await client.json("GET", "/healthz")).status).toBe(200);
  }, 600_000);
});

describe("a job that ignores its stop (server.job_stop_grace_ms)", () => {
  let server: ChildServer;
  let client: Api;
  beforeAll(async () => {
    server = await spawnServer(makeProject({ concurrency: 1, job_max_running_ms: 60_000, job_stop_grace_ms: 1000 }));
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.kill();
  });

  it("a job blocking its worker thread past the time cap has the thread ended: failed, time_limit; the next job runs in a new worker", async () => {
    // The echo engine blocks its thread in Atomics.wait for 10 minutes and never looks at its abort signal. The cap is
    // generous (a minute) because it also counts a new worker thread starting up, which a loaded machine slows.
    const stuck = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "block the worker" } });
    expect(stuck.status).toBe(201);
    const next = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "after" } });
    expect(await waitForStatus(client, stuck.body.id, ["succeeded", "failed", "canceled"], 300_000)).toMatchObject({
      status: "failed",
      reason: "time_limit",
      error: { code: "timeout", field: "server.job_max_running_ms" },
    });
    const after = await waitForStatus(client, next.body.id, ["succeeded", "failed"], 300_000);
    expect([after.status, after.error]).toEqual(["succeeded", null]);
  }, 600_000);
});
