/**
 * `skillrig serve` runs jobs in worker threads by default: the same lifecycle, events, cancel and oracle runs as
 * in-process, through the real CLI in a child process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { craftZip } from "./support/craft-zip.js";
import { spawnServer, type ChildServer } from "./support/child-server.js";
import { api, makeProject, readEvents, waitForStatus, type Api } from "./support/server-harness.js";

describe("jobs in worker threads (skillrig serve's default)", () => {
  let server: ChildServer;
  let client: Api;
  beforeAll(async () => {
    server = await spawnServer(makeProject({ concurrency: 2 }));
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.kill();
  });

  it("runs a job with an upload and streams the engine's events from the worker", async () => {
    const created = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "w" } });
    const streamed = readEvents(server.url, created.body.id);
    expect((await client.upload(`/v1/jobs/${created.body.id}/upload`, craftZip([{ name: "text_file", data: "a b c" }]))).status).toBe(202);
    const events = await streamed;
    expect(events.filter((e) => e.event === "status").map((e) => e.payload.data.status)).toEqual([
      "waiting_upload",
      "queued",
      "running",
      "succeeded",
    ]);
    expect(events.some((e) => e.event === "engine" && e.payload.data.text === "counted 3 words")).toBe(true);
    expect((await client.json("GET", `/v1/jobs/${created.body.id}/result`)).body.output).toMatchObject({ words: 3, label: "w" });
    expect(await (await client.raw(`/v1/jobs/${created.body.id}/artifacts/report`)).text()).toBe("w: 3 words\n");
  });

  it("cancels a job running in a worker, and the worker takes the next job", async () => {
    const slow = await client.json("POST", "/v1/jobs", {
      skill_id: "quick-echo",
      engine: "echo",
      input: { message: "slow" },
      parameter: { delay_ms: 600_000 },
    });
    await waitForStatus(client, slow.body.id, ["running"]);
    expect((await client.json("POST", `/v1/jobs/${slow.body.id}/cancel`)).status).toBe(202);
    expect(await waitForStatus(client, slow.body.id, ["canceled", "failed", "succeeded"])).toMatchObject({ status: "canceled" });
    const jobs = await Promise.all(
      ["a", "b", "c"].map((m) => client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: m } })),
    );
    for (const job of jobs) expect((await waitForStatus(client, job.body.id, ["succeeded", "failed"])).status).toBe("succeeded");
  });

  it("fails the job of a worker that dies, and replaces the worker", async () => {
    const doomed = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "exit the worker" } });
    const ended = await waitForStatus(client, doomed.body.id, ["failed", "succeeded"]);
    expect(ended).toMatchObject({
      status: "failed",
      error: {
        code: "unhandled",
        message: "the job crashed its worker thread (it exited with code 3); quarantined (it will not run again)",
      },
    });
    const after = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "still serving" } });
    expect((await waitForStatus(client, after.body.id, ["succeeded", "failed"])).status).toBe("succeeded");
    expect((await client.json("GET", "/healthz")).body.ok).toBe(true);
  });

  it("runs an oracle task in a worker, with live case verdicts", async () => {
    const task = {
      contract_version: "1.0",
      task_id: "echo-upper",
      deliverable_type: "script",
      entrypoint: "upper.py",
      tests: [{ name: "hi", input: { stdin: "hi\n" }, expected: { stdout: "HI\n" } }],
    };
    const created = await client.json("POST", "/v1/oracle/runs", { task });
    await client.upload(`/v1/jobs/${created.body.id}/upload`, craftZip([{ name: "upper.py", data: "print(input().upper())\n" }]));
    const events = await readEvents(server.url, created.body.id);
    expect(events.filter((e) => e.event === "case").map((e) => e.payload.data.status)).toEqual(["passed"]);
    expect((await client.json("GET", `/v1/jobs/${created.body.id}/result`)).body.summary).toMatchObject({ total: 1, passed: 1 });
  });
});
