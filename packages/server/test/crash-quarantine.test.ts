/**
 * A job that crashes its worker is quarantined, not requeued forever (issue 24, class 4). With on_restart: requeue
 * a job whose worker dies while running it runs again; before, a job that killed the server did so again at every
 * start. Now the deaths are counted in the store (durable across restarts), and at MAX_WORKER_CRASHES (3) the job
 * is failed with reason `quarantined` and a message saying so.
 *
 * The crash is a SIGKILL of the real `skillrig serve` (sqlite) or of the real worker process (redis) while the job
 * runs: what the job's worker dying looks like from the store, whatever killed it.
 *
 * Verdict: after the third death the job is `failed`, reason `quarantined`, error "crashed its worker 3 times;
 * quarantined", and it does not run a fourth time; the server keeps running other jobs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "./support/child-server.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { api, makeProject, readEvents, waitFor, waitForStatus } from "./support/server-harness.js";

const LONG_JOB = { skill_id: "quick-echo", engine: "echo", input: { message: "crashes" }, parameter: { delay_ms: 600_000 } };

describe("a job whose worker dies while running it (on_restart: requeue)", { timeout: 600_000 }, () => {
  const servers: ChildServer[] = [];
  let redis: TestRedis | undefined;
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.kill();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  const start = async (dir: string, args: string[] = []) => {
    const server = await spawnServer(dir, args);
    servers.push(server);
    return server;
  };
  const kill = async (server: ChildServer) => {
    await server.kill();
    servers.splice(servers.indexOf(server), 1);
  };

  it("sqlite: runs again twice, then is failed and quarantined at the third death, counted across restarts", async () => {
    const dir = makeProject({ concurrency: 1, on_restart: "requeue" });
    let server = await start(dir);
    let client = api(server.url);
    const id = (await client.json("POST", "/v1/jobs", LONG_JOB)).body.id as string;
    for (let death = 1; death <= 3; death++) {
      await waitForStatus(client, id, ["running"], 120_000);
      await kill(server);
      server = await start(dir);
      client = api(server.url);
      if (death < 3) expect(server.recovered).toEqual({ failed: [], requeued: [id] });
      else expect(server.recovered).toEqual({ failed: [id], requeued: [] });
    }
    const job = (await client.json("GET", `/v1/jobs/${id}`)).body;
    expect(job).toMatchObject({ status: "failed", reason: "quarantined", error: { code: "interrupted" } });
    expect(job.error.message).toContain("crashed its worker 3 times; quarantined");
    const statuses = (await readEvents(server.url, id)).filter((e) => e.event === "status").map((e) => e.payload.data.status);
    expect(statuses).toEqual(["queued", "running", "queued", "running", "queued", "running", "failed"]);
    // The server carries on with other work.
    const next = (await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "after" } })).body;
    expect((await waitForStatus(client, next.id, ["succeeded", "failed"])).status).toBe("succeeded");
  });

  beforeAll(async () => {
    redis = await startRedis();
  });

  it("redis: the job is quarantined at its worker's third death, counted in Redis", async () => {
    const dir = makeProject({
      concurrency: 1,
      on_restart: "requeue",
      queue: { backend: "redis", url: redis!.url, prefix: "quarantine", lock_ms: 2000, stalled_check_ms: 1000 },
    });
    const apiNode = await start(dir, ["--role", "api"]);
    const client = api(apiNode.url);
    const id = (await client.json("POST", "/v1/jobs", LONG_JOB)).body.id as string;
    let startedAt: string | null = null;
    for (let death = 1; death <= 3; death++) {
      const worker = await start(dir, ["--role", "worker"]);
      // A new run of the job (the worker before this one left it `running` in the store when it died).
      const run = await waitFor(
        `run ${death} of job ${id}`,
        async () => {
          const body = (await client.json("GET", `/v1/jobs/${id}`)).body;
          return body.status === "running" && body.started_at !== startedAt ? body : undefined;
        },
        120_000,
      );
      startedAt = run.started_at;
      await kill(worker);
    }
    // The next worker's stalled check finds the third death and quarantines the job.
    await start(dir, ["--role", "worker"]);
    const job = await waitForStatus(client, id, ["failed", "succeeded", "canceled"], 120_000);
    expect(job).toMatchObject({ status: "failed", reason: "quarantined", error: { code: "interrupted" } });
    expect(job.error.message).toContain("crashed its worker 3 times; quarantined");
  });
});
