/** SSE: a client that drops and reconnects with Last-Event-ID gets exactly what it missed, then the live events. */
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

describe.each(BACKENDS)("job events over SSE (%s backend)", (backend) => {
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

  it("resumes after a dropped connection with Last-Event-ID: no event lost, none repeated", async () => {
    const job = await client.json("POST", "/v1/jobs", {
      skill_id: "quick-echo",
      engine: "echo",
      input: { message: "resume me" },
      parameter: { delay_ms: 3000 },
    });
    const id: string = job.body.id;

    // First connection: drop it as soon as the job is running (the engine is still waiting out its delay).
    const before = await readEvents(server.url, id, { stopWhen: (e) => e.event === "status" && e.payload.data.status === "running" });
    expect(before.map((e) => e.payload.data.status ?? e.event)).toEqual(["queued", "running"]);
    expect((await client.json("GET", `/v1/jobs/${id}`)).body.status).toBe("running");

    // Reconnect while the job still runs: the rest arrives live and the stream ends after the terminal status.
    const after = await readEvents(server.url, id, { lastEventId: before.at(-1)!.id });
    expect(after.at(-1)!.payload.data.status).toBe("succeeded");
    expect(after.some((e) => e.event === "engine" && e.payload.data.text === "resume me")).toBe(true);

    const everything = await readEvents(server.url, id);
    expect([...before, ...after].map((e) => e.id)).toEqual(everything.map((e) => e.id));
    expect(new Set(everything.map((e) => e.id)).size).toBe(everything.length);
    expect(everything.every((e) => e.payload.job_id === id && e.payload.seq === e.id)).toBe(true);
  });

  it("resumes with ?last_event_id= too, and a stream of a finished job the client has seen in full ends at once", async () => {
    const job = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "done" } });
    await waitForStatus(client, job.body.id, ["succeeded"]);
    const all = await readEvents(server.url, job.body.id);
    const third = all[2]!;
    const response = await fetch(`${server.url}/v1/jobs/${job.body.id}/events?last_event_id=${third.id}`);
    const text = await response.text();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(all.slice(3).map((e) => e.id));
    expect(await readEvents(server.url, job.body.id, { lastEventId: all.at(-1)!.id })).toEqual([]);
  });

  it("answers 404 for the events of no job", async () => {
    const res = await client.json("GET", "/v1/jobs/no-such-job/events");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("job_not_found");
  });

  it("ends open streams when the server closes, so it can stop", async () => {
    const other = await startInProcess(makeProject({ queue: under.queue() }));
    const waiting = await api(other.url).json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "x" } });
    const stream = readEvents(other.url, waiting.body.id);
    await new Promise((r) => setTimeout(r, 200));
    await other.close();
    const events = await stream;
    expect(events.map((e) => e.payload.data.status)).toEqual(["waiting_upload"]);
  });
});
