/**
 * Regression test for the race the scale benchmark found on the redis backend: a status written after a stream
 * has read the job's log (XRANGE) but whose pub/sub message has not reached that API node yet. The stream must
 * still deliver it, once, before it ends. A proxy in front of a real redis-server holds the replay's answer while
 * another API node cancels the job, and holds the live message until the stream has ended (or 3 s have passed).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { RedisProxy } from "./support/redis-proxy.js";
import { api, makeProject, openBackend, readEvents, startInProcess, type BackendUnderTest } from "./support/server-harness.js";

describe("job events over SSE on redis, with a status written between the replay and the live messages", () => {
  let under: BackendUnderTest;
  let proxy: RedisProxy;
  let streaming: RunningServer;
  let other: RunningServer;
  beforeAll(async () => {
    under = await openBackend("redis");
    proxy = await RedisProxy.start(under.redis!.port);
    const queue = under.queue() as { url: string; prefix: string };
    // Two API nodes on one Redis: the one that streams talks to Redis through the proxy, the other directly.
    streaming = await startInProcess(makeProject({ queue: { ...queue, url: proxy.url } }));
    other = await startInProcess(makeProject({ queue }));
  });
  afterAll(async () => {
    await streaming?.close();
    await other?.close();
    await proxy?.close();
    await under?.stop();
  });

  it("delivers the job's terminal status exactly once, though its live message comes after the stream read the log", async () => {
    // A job that waits for its upload: nothing runs it, so the test decides when its status changes.
    const created = await api(streaming.url).json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "x" } });
    expect(created.status).toBe(201);
    const id: string = created.body.id;

    const replayRead = proxy.holdFrom((text) => text.includes("xrange") && text.includes(`:events:${id}`));
    const stream = readEvents(streaming.url, id);
    const connection = await replayRead;
    // The stream has subscribed and asked for the log; the log it gets back is from before this cancel.
    const canceled = await api(other.url).json("POST", `/v1/jobs/${id}/cancel`);
    expect(canceled.status).toBe(202);
    proxy.release(connection);
    const late = setTimeout(() => proxy.release(), 3000);
    const events = await stream;
    clearTimeout(late);
    proxy.release();

    const log = await readEvents(other.url, id);
    expect(log.map((e) => e.payload.data.status)).toEqual(["waiting_upload", "canceled"]);
    expect(events.map((e) => e.id)).toEqual(log.map((e) => e.id));
  });
});
