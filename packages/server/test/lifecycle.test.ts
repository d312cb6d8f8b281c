/**
 * A skill job from submission to artifacts, over real HTTP on loopback, with a real SQLite file, the real
 * runJob of @skillrig/skills and a real (small) engine plugin loaded from the config.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { craftZip, zipEntries } from "./support/craft-zip.js";
import {
  DOUBLE_TASK,
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

describe.each(BACKENDS)("a skill job over HTTP (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let client: Api;

  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(makeProject({ queue: under.queue() }));
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  it("answers healthz and lists engines and skills with their schemas", async () => {
    const health = await client.json("GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ ok: true, running: 0, concurrency: 2 });

    const engines = await client.json("GET", "/v1/engines");
    expect(engines.body.engines).toEqual([
      { name: "echo", plugin: "test-echo-engine", info: { description: "answers from the test fixtures, at once" } },
    ]);

    const skills = await client.json("GET", "/v1/skills");
    expect(skills.body.skills.map((s: { id: string }) => s.id)).toEqual(["quick-echo", "word-count"]);
    const wordCount = await client.json("GET", "/v1/skills/word-count");
    expect(wordCount.status).toBe(200);
    expect(wordCount.body).toMatchObject({
      id: "word-count",
      // The skill names gemini and codex too, but this server has no plugin for them: only what it can run is listed.
      engines: ["echo"],
      file_inputs: ["text_file"],
      inline_inputs: ["label"],
    });
    expect(wordCount.body.schemas.input.properties.text_file["x-input-source"]).toBe("file");
    expect(wordCount.body.schemas.parameter.properties.delay_ms).toMatchObject({ type: "integer", minimum: 0 });
    expect(wordCount.body.artifacts).toEqual([{ field: "report", role: "report", filename: "report.txt", required: true }]);
  });

  it("waits for the upload, runs, streams events, and serves the result, each artifact and a bundle", async () => {
    const created = await client.json("POST", "/v1/jobs", {
      skill_id: "word-count",
      engine: "echo",
      input: { label: "essay" },
      parameter: { uppercase: true },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: "skill", status: "waiting_upload", skill_id: "word-count", engine: "echo" });
    expect(created.headers.get("location")).toBe(`/v1/jobs/${created.body.id}`);
    const id: string = created.body.id;

    const early = await client.json("GET", `/v1/jobs/${id}/result`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("job_state_conflict");

    const streamed = readEvents(server.url, id);
    const upload = await client.upload(
      `/v1/jobs/${id}/upload`,
      craftZip([{ name: "text_file", data: "one two three four five", deflate: true }]),
    );
    expect(upload.status).toBe(202);
    expect(upload.body).toEqual({
      id,
      status: expect.stringMatching(/^(queued|running|succeeded)$/),
      files: [{ path: "text_file", bytes: 23 }],
    });

    const events = await streamed;
    const statuses = events.filter((e) => e.event === "status").map((e) => e.payload.data.status);
    expect(statuses).toEqual(["waiting_upload", "queued", "running", "succeeded"]);
    expect(events.some((e) => e.event === "engine" && e.payload.data.type === "message" && e.payload.data.text === "counted 5 words")).toBe(
      true,
    );
    expect(events.some((e) => e.event === "log" && /upload extracted: text_file/.test(e.payload.data.line))).toBe(true);
    expect(events.some((e) => e.event === "log" && e.payload.data.stream === "stdout")).toBe(true);
    const ids = events.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    const job = await client.json("GET", `/v1/jobs/${id}`);
    expect(job.body).toMatchObject({ status: "succeeded", error: null, reason: null, summary: null });
    expect(Date.parse(job.body.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.body.started_at));
    expect(job.body.duration_ms).toBeGreaterThanOrEqual(0);

    const result = await client.json("GET", `/v1/jobs/${id}/result`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ job_id: id, status: "succeeded", output: { words: 5, label: "ESSAY" } });
    // The result names no server folder: its run folder is "." (itself), its artifacts relative to it.
    expect(result.body.run_dir).toBe(".");
    expect(result.body.artifacts[0].path).toBe("artifacts/report.txt");
    const runDir = join(server.settings.dataDir, "runs", id);
    expect(readFileSync(join(runDir, "uploads", "text_file"), "utf8")).toBe("one two three four five");
    // Unzipped straight into the run folder: no staged copy anywhere else.
    expect(existsSync(join(server.settings.dataDir, "uploads"))).toBe(false);

    const artifacts = await client.json("GET", `/v1/jobs/${id}/artifacts`);
    expect(artifacts.body.artifacts).toEqual([
      {
        field: "report",
        role: "report",
        filename: "report.txt",
        path: "artifacts/report.txt",
        bytes: 15,
        url: `/v1/jobs/${id}/artifacts/report`,
      },
    ]);
    const download = await client.raw(`/v1/jobs/${id}/artifacts/report`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toContain('filename="report.txt"');
    expect(await download.text()).toBe("ESSAY: 5 words\n");

    const bundle = await client.raw(`/v1/jobs/${id}/bundle`);
    expect(bundle.headers.get("content-type")).toBe("application/zip");
    const entries = await zipEntries(Buffer.from(await bundle.arrayBuffer()));
    expect(Object.keys(entries).sort()).toEqual(["artifacts/report.txt", "result.json"]);
    expect(entries["artifacts/report.txt"]).toBe("ESSAY: 5 words\n");
    expect(JSON.parse(entries["result.json"]!).output.words).toBe(5);
  });

  it("queues a job without file inputs at once and cancels a running one", async () => {
    const quick = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "hi" } });
    expect(["queued", "running"]).toContain(quick.body.status);
    await waitForStatus(client, quick.body.id, ["succeeded"]);
    expect((await client.json("GET", `/v1/jobs/${quick.body.id}/result`)).body.output).toEqual({ echo: "hi" });

    const slow = await client.json("POST", "/v1/jobs", {
      skill_id: "quick-echo",
      engine: "echo",
      input: { message: "slow" },
      parameter: { delay_ms: 60_000 },
    });
    await waitForStatus(client, slow.body.id, ["running"]);
    const cancel = await client.json("POST", `/v1/jobs/${slow.body.id}/cancel`);
    expect(cancel.status).toBe(202);
    const ended = await waitForStatus(client, slow.body.id, ["canceled", "failed", "succeeded"]);
    expect(ended).toMatchObject({ status: "canceled", reason: "canceled_by_client" });
    const again = await client.json("POST", `/v1/jobs/${slow.body.id}/cancel`);
    expect(again.status).toBe(409);
    expect((await client.json("GET", `/v1/jobs/${slow.body.id}/result`)).body.status).toBe("canceled");
  });

  it("runs an oracle task against an uploaded deliverable and returns the report", async () => {
    const task = DOUBLE_TASK;
    const created = await client.json("POST", "/v1/oracle/runs", { task });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: "oracle", status: "waiting_upload" });
    // As a browser form sends it: multipart/form-data with the zip as its one file.
    const form = new FormData();
    form.append(
      "file",
      new Blob([craftZip([{ name: "double.py", data: "print(int(input()) * 2)\n" }])], { type: "application/zip" }),
      "deliverable.zip",
    );
    const upload = await client.raw(`/v1/jobs/${created.body.id}/upload`, { method: "POST", body: form });
    expect(upload.status).toBe(202);
    expect((await upload.json()).files).toEqual([{ path: "double.py", bytes: 24 }]);
    const events = await readEvents(server.url, created.body.id);
    const cases = events.filter((e) => e.event === "case").map((e) => e.payload.data);
    expect(cases.map((c) => [c.name, c.status]).sort()).toEqual([
      ["five", "failed"],
      ["two", "passed"],
    ]);
    expect(events.at(-1)!.payload.data.status).toBe("succeeded");
    const report = await client.json("GET", `/v1/jobs/${created.body.id}/result`);
    expect(report.body).toMatchObject({ task_id: "double", summary: { total: 2, passed: 1, failed: 1 } });
    expect(report.body.cases.map((c: { status: string }) => c.status)).toEqual(["passed", "failed"]);
    // The machinery worked (succeeded); the verdict, one case of two failed, is the job's summary.
    const job = await client.json("GET", `/v1/jobs/${created.body.id}`);
    expect(job.body).toMatchObject({ status: "succeeded", summary: { total: 2, passed: 1, failed: 1, errored: 0, invalid: 0 } });
  });
});
