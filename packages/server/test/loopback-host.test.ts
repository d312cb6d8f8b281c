/**
 * A loopback server answers only requests addressed to it (issue 24, class 5). A web page that rebinds its own
 * name to 127.0.0.1 makes the browser send `Host: evil.example:<port>`; another site's form or script sends its own
 * `Origin`. Both are refused with 403 on every route: health, the API, SSE event streams, uploads, the OpenAPI
 * document, unknown paths. Real HTTP on loopback (node:http, which lets a test set Host as a browser would).
 *
 * Verdicts: Host evil.example:<port> -> 403 forbidden_host; Origin http://evil.example -> 403 forbidden_origin;
 * Host 127.0.0.1:<port> or localhost:<port> (with no Origin or the server's own) -> answered as before.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { craftZip } from "./support/craft-zip.js";
import { api, BACKENDS, makeProject, openBackend, startInProcess, type BackendUnderTest } from "./support/server-harness.js";

interface Raw {
  status: number;
  body: string;
  contentType: string;
}

/** One request with exactly these headers; an event stream is read only up to its first bytes. */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, setHost: false }, (res) => {
      const contentType = String(res.headers["content-type"] ?? "");
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        // An accepted event stream stays open: its first frame is enough.
        if (contentType.startsWith("text/event-stream") && text.includes("\n\n")) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: text, contentType });
        }
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, contentType }));
    });
    req.on("error", (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(body);
  });
}

describe.each(BACKENDS)("a token-less loopback server checks Host and Origin (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let port: number;
  let jobId: string;
  let oracleId: string;
  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(makeProject({ queue: under.queue() }));
    port = Number(new URL(server.url).port);
    const client = api(server.url);
    jobId = (await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "hi" } })).body.id;
    const task = {
      contract_version: "1.0",
      task_id: "t",
      deliverable_type: "script",
      entrypoint: "main.py",
      tests: [{ name: "a", input: { stdin: "" }, expected: { stdout: "" } }],
    };
    oracleId = (await client.json("POST", "/v1/oracle/runs", { task })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  const routes = () => [
    { method: "GET", path: "/healthz" },
    { method: "GET", path: "/v1/jobs" },
    { method: "GET", path: "/v1/skills" },
    { method: "GET", path: "/v1/openapi.json" },
    { method: "GET", path: `/v1/jobs/${jobId}` },
    { method: "GET", path: `/v1/jobs/${jobId}/events`, headers: { accept: "text/event-stream" } },
    {
      method: "POST",
      path: "/v1/jobs",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ skill_id: "quick-echo", engine: "echo", input: { message: "x" } }),
    },
    {
      method: "POST",
      path: `/v1/jobs/${oracleId}/upload`,
      headers: { "content-type": "application/zip" },
      body: craftZip([{ name: "main.py", data: "pass\n" }]),
    },
    { method: "GET", path: "/no/such/route" },
  ];

  it("refuses Host: evil.example on every route with 403 forbidden_host, before the route does anything", async () => {
    for (const route of routes()) {
      for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`, `127.0.0.1:${port + 1}`]) {
        const answer = await raw(port, route.method, route.path, { ...route.headers, host }, route.body);
        expect(answer.status, `${route.method} ${route.path} Host ${host}`).toBe(403);
        expect(JSON.parse(answer.body).error.code).toBe("forbidden_host");
      }
    }
    // The refused upload did not reach the job: it still waits for one.
    expect((await api(server.url).json("GET", `/v1/jobs/${oracleId}`)).body.status).toBe("waiting_upload");
  });

  it("refuses a cross-origin Origin on every route with 403 forbidden_origin", async () => {
    for (const route of routes()) {
      for (const origin of ["http://evil.example", `http://localhost:${port}`, "null"]) {
        const answer = await raw(port, route.method, route.path, { ...route.headers, host: `127.0.0.1:${port}`, origin }, route.body);
        expect(answer.status, `${route.method} ${route.path} Origin ${origin}`).toBe(403);
        expect(JSON.parse(answer.body).error.code).toBe("forbidden_origin");
      }
    }
  });

  it("answers Host 127.0.0.1:<port> and localhost:<port>, with no Origin or its own, on every route", async () => {
    for (const route of routes()) {
      // The upload is accepted once; later ones find the job no longer waiting (409): answered, not refused.
      for (const headers of [
        { host: `127.0.0.1:${port}` },
        { host: `localhost:${port}` },
        { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` },
      ]) {
        const answer = await raw(port, route.method, route.path, { ...route.headers, ...headers }, route.body);
        expect(answer.status, `${route.method} ${route.path} ${JSON.stringify(headers)}: ${answer.body.slice(0, 200)}`).not.toBe(403);
        if (route.path === "/no/such/route") expect(answer.status).toBe(404);
        else if (route.path.endsWith("/upload")) expect([202, 409]).toContain(answer.status);
        else if (route.method === "POST") expect(answer.status).toBe(201);
        else expect(answer.status).toBe(200);
        if (route.path.endsWith("/events")) expect(answer.contentType).toContain("text/event-stream");
      }
    }
  });
});
