/**
 * The real `skillrig serve` in a child process, killed with SIGKILL mid-job and started again on the same data
 * folder: every job is still there, none is lost or stuck. Running jobs end as failed with reason `interrupted`,
 * or run again with `--on-restart requeue`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { craftZip } from "./support/craft-zip.js";
import { spawnServer, type ChildServer } from "./support/child-server.js";
import { api, makeProject, readEvents, waitForStatus } from "./support/server-harness.js";

describe("a server killed with SIGKILL and restarted", () => {
  const servers: ChildServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.kill();
  });
  const start = async (dir: string, args: string[] = []) => {
    const server = await spawnServer(dir, args);
    servers.push(server);
    return server;
  };

  it("keeps every job: running ones fail as interrupted, queued and waiting ones carry on, finished ones keep their results", async () => {
    const dir = makeProject({ concurrency: 1 });
    const first = await start(dir);
    let client = api(first.url);
    const submit = (message: string, delay = 0) =>
      client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message }, parameter: { delay_ms: delay } });

    const done = await submit("done before the crash");
    await waitForStatus(client, done.body.id, ["succeeded"]);
    const running = await submit("running at the crash", 600_000);
    await waitForStatus(client, running.body.id, ["running"]);
    const queued = await submit("queued at the crash");
    const waiting = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "after" } });
    expect([queued.body.status, waiting.body.status]).toEqual(["queued", "waiting_upload"]);

    await first.kill();
    servers.splice(servers.indexOf(first), 1);

    const second = await start(dir);
    client = api(second.url);
    expect(second.recovered).toEqual({ failed: [running.body.id], requeued: [] });

    const interrupted = (await client.json("GET", `/v1/jobs/${running.body.id}`)).body;
    expect(interrupted).toMatchObject({ status: "failed", reason: "interrupted", error: { code: "interrupted" } });
    const result = await client.json("GET", `/v1/jobs/${running.body.id}/result`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: "failed", reason: "interrupted", error: { code: "interrupted" } });
    const events = await readEvents(second.url, running.body.id);
    expect(events.filter((e) => e.event === "status").map((e) => e.payload.data.status)).toEqual(["queued", "running", "failed"]);
    expect(events.at(-1)!.payload.data.reason).toBe("interrupted");

    await waitForStatus(client, queued.body.id, ["succeeded"]);
    expect((await client.json("GET", `/v1/jobs/${queued.body.id}/result`)).body.output).toEqual({ echo: "queued at the crash" });
    expect((await client.json("GET", `/v1/jobs/${done.body.id}/result`)).body.output).toEqual({ echo: "done before the crash" });

    expect((await client.json("GET", `/v1/jobs/${waiting.body.id}`)).body.status).toBe("waiting_upload");
    expect((await client.upload(`/v1/jobs/${waiting.body.id}/upload`, craftZip([{ name: "text_file", data: "still here" }]))).status).toBe(
      202,
    );
    await waitForStatus(client, waiting.body.id, ["succeeded"]);

    const all = (await client.json("GET", "/v1/jobs")).body.jobs;
    expect(all).toHaveLength(4);
    expect(all.filter((j: { status: string }) => !["succeeded", "failed"].includes(j.status))).toEqual([]);
  });

  it("with --on-restart requeue, the job that was running runs again and finishes", async () => {
    const dir = makeProject({ concurrency: 1 });
    const first = await start(dir);
    let client = api(first.url);
    const job = await client.json("POST", "/v1/jobs", {
      skill_id: "quick-echo",
      engine: "echo",
      input: { message: "again" },
      parameter: { delay_ms: 4000 },
    });
    await waitForStatus(client, job.body.id, ["running"]);
    await first.kill();
    servers.splice(servers.indexOf(first), 1);

    const second = await start(dir, ["--on-restart", "requeue"]);
    client = api(second.url);
    expect(second.recovered).toEqual({ failed: [], requeued: [job.body.id] });
    const finished = await waitForStatus(client, job.body.id, ["succeeded", "failed"]);
    expect(finished).toMatchObject({ status: "succeeded", reason: null });
    expect((await client.json("GET", `/v1/jobs/${job.body.id}/result`)).body.output).toEqual({ echo: "again" });
    const statuses = (await readEvents(second.url, job.body.id)).filter((e) => e.event === "status").map((e) => e.payload.data.status);
    expect(statuses).toEqual(["queued", "running", "queued", "running", "succeeded"]);
  });
});
