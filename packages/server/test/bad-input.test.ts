/**
 * Every kind of bad input gets a clear answer with a stable code and a pointer to what was wrong, and a refused
 * upload leaves nothing behind. Real HTTP on loopback, real SQLite, real zips (crafted byte by byte).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveServerSettings, type RunningServer } from "@skillrig/server";
import { craftZip, type CraftedEntry } from "./support/craft-zip.js";
import {
  api,
  BACKENDS,
  makeProject,
  openBackend,
  startInProcess,
  waitForStatus,
  type Api,
  type BackendUnderTest,
} from "./support/server-harness.js";

describe.each(BACKENDS)("bad input (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let client: Api;
  let dataDir: string;

  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(
      makeProject({ upload_limit_bytes: 8192, upload_max_files: 3, upload_max_extracted_bytes: 10_000, queue: under.queue() }),
    );
    client = api(server.url);
    dataDir = server.settings.dataDir;
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  const waitingJob = async (): Promise<string> => {
    const created = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "x" } });
    expect(created.body.status).toBe("waiting_upload");
    return created.body.id;
  };

  /** Nothing of a refused upload exists anywhere under the data folder, and the job still waits. */
  const expectNothingWritten = async (id: string) => {
    // An upload is unzipped straight into the job's run folder: a refused one leaves no run folder at all.
    expect(existsSync(join(dataDir, "runs", id))).toBe(false);
    expect(readdirSync(join(dataDir, "runs")).filter((n) => n.includes("staging"))).toEqual([]);
    // With redis the records live in Redis, so the data folder holds only the shared files.
    const store = backend === "sqlite" ? ["skillrig-server.sqlite", "skillrig-server.sqlite-shm", "skillrig-server.sqlite-wal"] : [];
    expect(readdirSync(dataDir).sort()).toEqual(["runs", ...store]);
    expect((await client.json("GET", `/v1/jobs/${id}`)).body.status).toBe("waiting_upload");
  };

  it("unknown skill: 404 skill_not_found", async () => {
    const res = await client.json("POST", "/v1/jobs", { skill_id: "no-such-skill", engine: "echo" });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "skill_not_found", field: "skill_id" });
    expect(res.body.error.message).toContain("quick-echo, word-count");
    expect((await client.json("GET", "/v1/skills/no-such-skill")).status).toBe(404);
  });

  it("unknown engine: 400 engine_not_found naming the skill's engines, or the configured ones", async () => {
    const res = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "gemini", input: { message: "hi" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "engine_not_found", pointer: "/engine" });
    expect(res.body.error.message).toContain('supports the engines echo, not "gemini"');
    // word-count supports gemini, but no gemini plugin is configured on this server.
    const unclaimed = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "gemini", input: { label: "x" } });
    expect(unclaimed.status).toBe(400);
    expect(unclaimed.body.error).toMatchObject({ code: "engine_not_found", pointer: "/engine" });
    expect(unclaimed.body.error.message).toBe('no plugin handles engine "gemini"; available: "echo"');
  });

  it("a request body that breaks the API schema: 422 listing every violation with its pointer", async () => {
    // `files` (host paths, as `skillrig run --file` takes them) is not part of the API: a client cannot make the server read its disk.
    const res = await client.json("POST", "/v1/jobs", {
      engine: 3,
      extra: true,
      options: { timeout_ms: 0 },
      files: { text_file: "/etc/passwd" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("schema_violation");
    const pointers = res.body.error.violations.map((v: { pointer: string }) => v.pointer).sort();
    expect(pointers).toEqual(["/engine", "/extra", "/files", "/options/timeout_ms", "/skill_id"]);
  });

  it("input and parameters that break the skill's schemas: 422 listing each under /input and /parameter", async () => {
    const res = await client.json("POST", "/v1/jobs", {
      skill_id: "word-count",
      engine: "echo",
      input: { label: "", text_file: "/etc/passwd" },
      parameter: { delay_ms: -1, colour: "red" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("schema_violation");
    const byPointer = Object.fromEntries(
      res.body.error.violations.map((v: { pointer: string; message: string }) => [v.pointer, v.message]),
    );
    expect(Object.keys(byPointer).sort()).toEqual(["/input/label", "/input/text_file", "/parameter/colour", "/parameter/delay_ms"]);
    expect(byPointer["/input/text_file"]).toContain("is a file input");
    expect(byPointer["/parameter/colour"]).toBe("is not an allowed key");
    expect((await client.json("GET", "/healthz")).body.waiting_upload).toBe(0);
  });

  it("engine options only the server may set (binary, env ...): 422 naming each", async () => {
    const res = await client.json("POST", "/v1/jobs", {
      skill_id: "quick-echo",
      engine: "echo",
      input: { message: "x" },
      options: { engine: { binary: "/bin/sh", env: { X: "1" }, model: "m" } },
    });
    expect(res.status).toBe(422);
    const pointers = res.body.error.violations.map((v: { pointer: string }) => v.pointer).sort();
    expect(pointers).toEqual(["/options/engine/binary", "/options/engine/env"]);
    expect(res.body.error.violations[0].message).toContain("clients may set model, timeout_ms, idle_timeout_ms");
  });

  it("a body that is not JSON: 400", async () => {
    const res = await client.raw("/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("usage");
  });

  it("an upload larger than server.upload_limit_bytes: 413", async () => {
    const id = await waitingJob();
    const res = await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "text_file", data: Buffer.alloc(9000, 0x61) }]));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("upload_too_large");
    await expectNothingWritten(id);
  });

  it("a form upload (multipart) with a file larger than server.upload_limit_bytes: 413", async () => {
    const id = await waitingJob();
    const form = new FormData();
    form.append("file", new Blob([craftZip([{ name: "text_file", data: Buffer.alloc(9000, 0x61) }])]), "files.zip");
    const res = await client.raw(`/v1/jobs/${id}/upload`, { method: "POST", body: form });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("upload_too_large");
    await expectNothingWritten(id);
  });

  it("an upload that is not a zip: 415, by content and by content type", async () => {
    const id = await waitingJob();
    const byContent = await client.upload(`/v1/jobs/${id}/upload`, Buffer.from("plain text, not a zip"));
    expect(byContent.status).toBe(415);
    expect(byContent.body.error.code).toBe("upload_not_zip");
    const byType = await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "text_file", data: "a b" }]), "text/plain");
    expect(byType.status).toBe(415);
    expect(byType.body.error.code).toBe("upload_not_zip");
    const truncated = craftZip([{ name: "text_file", data: "a b c" }]).subarray(0, 40);
    const broken = await client.upload(`/v1/jobs/${id}/upload`, truncated);
    expect(broken.status).toBe(415);
    await expectNothingWritten(id);
  });

  // [what, entries, status, code, message]: a zip of a shape no upload needs is 400 upload_unsafe; one past a size
  // limit of the upload itself (entries, extracted bytes) is 413 upload_too_large naming its config key.
  const refusedZips: Array<[string, CraftedEntry[], number, string, RegExp]> = [
    [
      "a .. entry",
      [
        { name: "text_file", data: "a" },
        { name: "../../escaped.txt", data: "x" },
      ],
      400,
      "upload_unsafe",
      /\.\.|relative path/,
    ],
    [
      "an absolute path",
      [
        { name: "text_file", data: "a" },
        { name: "/tmp/skillrig-absolute.txt", data: "x" },
      ],
      400,
      "upload_unsafe",
      /absolute/,
    ],
    ["a symlink", [{ name: "text_file", data: "/etc/passwd", mode: 0o120777 }], 400, "upload_unsafe", /symbolic link/],
    [
      "a path 40 folders deep",
      [{ name: `${"d/".repeat(40)}text_file`, data: "x" }],
      400,
      "upload_unsafe",
      /41 levels deep.*server\.upload_max_path_depth/,
    ],
    [
      "a path of 1100 bytes",
      [
        {
          name: `${"n".repeat(200)}/${"m".repeat(200)}/${"o".repeat(200)}/${"p".repeat(200)}/${"q".repeat(200)}/${"r".repeat(95)}`,
          data: "x",
        },
      ],
      400,
      "upload_unsafe",
      /1100 bytes.*server\.upload_max_path_bytes/,
    ],
    [
      "more files than upload_max_files",
      ["text_file", "b", "c", "d"].map((name) => ({ name, data: "x" })),
      413,
      "upload_too_large",
      /more than 3 entries.*server\.upload_max_files/,
    ],
    [
      "more folders than upload_max_files (folders count)",
      [{ name: "text_file", data: "x" }, ...["a/", "b/", "c/"].map((name) => ({ name, mode: 0o40755 }))],
      413,
      "upload_too_large",
      /more than 3 entries/,
    ],
    [
      "more declared bytes than allowed",
      [{ name: "text_file", data: Buffer.alloc(20_000), deflate: true }],
      413,
      "upload_too_large",
      /more than 10000 bytes.*server\.upload_max_extracted_bytes/,
    ],
    // Claims 100 bytes, inflates to 200 000 (its deflated form fits the 8 KiB body limit): caught while extracting.
    [
      "sizes that lie (a zip bomb)",
      [{ name: "text_file", data: Buffer.alloc(200_000), deflate: true, declaredSize: 100 }],
      400,
      "upload_unsafe",
      /while extracting|extracts to more than 10000 bytes/,
    ],
  ];
  for (const [what, entries, status, code, message] of refusedZips) {
    it(`a zip with ${what}: ${status} ${code}, nothing written`, async () => {
      const id = await waitingJob();
      const zip = craftZip(entries);
      expect(zip.length).toBeLessThan(8192);
      const res = await client.upload(`/v1/jobs/${id}/upload`, zip);
      expect([res.status, res.body.error.code]).toEqual([status, code]);
      expect(res.body.error.message).toMatch(message);
      await expectNothingWritten(id);
      expect(existsSync("/tmp/skillrig-absolute.txt")).toBe(false);
      expect(existsSync(join(dataDir, "escaped.txt"))).toBe(false);
    });
  }

  it("a zip without the required file, or with a file the skill does not take: 422, nothing written", async () => {
    const id = await waitingJob();
    const missing = await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "other.txt", data: "x" }]));
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe("input_missing_file");
    const pointers = missing.body.error.violations.map((v: { pointer: string }) => v.pointer).sort();
    expect(pointers).toEqual(["/input/text_file", "/other.txt"]);
    await expectNothingWritten(id);
  });

  it("uploading to a job that is not waiting: 409; to no job: 404", async () => {
    const quick = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "x" } });
    const res = await client.upload(`/v1/jobs/${quick.body.id}/upload`, craftZip([{ name: "text_file", data: "a" }]));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("job_state_conflict");
    const none = await client.upload("/v1/jobs/no-such-job/upload", craftZip([{ name: "text_file", data: "a" }]));
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe("job_not_found");
    await waitForStatus(client, quick.body.id, ["succeeded"]);
  });

  it("downloads cannot leave the run folder", async () => {
    const id = await waitingJob();
    await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "text_file", data: "a b" }]));
    await waitForStatus(client, id, ["succeeded"]);
    for (const field of ["..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "result.json", "nope"]) {
      const res = await client.raw(`/v1/jobs/${id}/artifacts/${field}`);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe("job_not_found");
    }
    expect((await client.raw(`/v1/jobs/${id}/artifacts/report`)).status).toBe(200);
  });

  it("an invalid task for an oracle run: 422 with pointers under /task", async () => {
    const res = await client.json("POST", "/v1/oracle/runs", {
      task: { contract_version: "1.0", task_id: "t", deliverable_type: "script", tests: [{ name: "a" }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("invalid_task");
    const pointers: string[] = res.body.error.violations.map((v: { pointer: string }) => v.pointer);
    expect(pointers.length).toBeGreaterThan(0);
    expect(pointers.every((p) => p.startsWith("/task"))).toBe(true);
    expect(pointers).toContain("/task/entrypoint");
  });

  it("an unknown route: 404 in the same error shape", async () => {
    const res = await client.json("GET", "/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe("no route GET /v1/nothing-here");
  });
});

describe.each(BACKENDS)("limits and security (%s backend)", (backend) => {
  let under: BackendUnderTest;
  beforeAll(async () => {
    under = await openBackend(backend);
  });
  afterAll(async () => {
    await under?.stop();
  });
  it("a full queue answers 429 and the jobs already in it are kept", async () => {
    const server = await startInProcess(makeProject({ concurrency: 1, queue_limit: 2, queue: under.queue() }));
    const client = api(server.url);
    try {
      const submit = () =>
        client.json("POST", "/v1/jobs", {
          skill_id: "quick-echo",
          engine: "echo",
          input: { message: "x" },
          parameter: { delay_ms: 60_000 },
        });
      const running = await submit();
      await waitForStatus(client, running.body.id, ["running"]);
      const a = await submit();
      const b = await submit();
      expect([a.body.status, b.body.status]).toEqual(["queued", "queued"]);
      expect((await client.json("GET", `/v1/jobs/${a.body.id}`)).body.queue_position).toBe(0);
      expect((await client.json("GET", `/v1/jobs/${b.body.id}`)).body.queue_position).toBe(1);
      expect((await client.json("GET", `/v1/jobs/${running.body.id}`)).body.queue_position).toBeUndefined();
      const full = await submit();
      expect(full.status).toBe(429);
      expect(full.body.error).toMatchObject({ code: "queue_full", details: { waiting: 2, queue_limit: 2 } });
      expect((await client.json("GET", "/healthz")).body).toMatchObject({ running: 1, queued: 2 });
      for (const job of [a, b, running]) expect((await client.json("POST", `/v1/jobs/${job.body.id}/cancel`)).status).toBe(202);
      await waitForStatus(client, running.body.id, ["canceled"]);
      expect((await client.json("GET", `/v1/jobs/${a.body.id}`)).body.status).toBe("canceled");
    } finally {
      await server.close();
    }
  });

  it("a job whose upload never comes is canceled after server.upload_wait_ms and frees its queue place", async () => {
    const server = await startInProcess(makeProject({ upload_wait_ms: 4000, queue_limit: 1, queue: under.queue() }));
    const client = api(server.url);
    try {
      const abandoned = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "x" } });
      expect((await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "y" } })).status).toBe(429);
      const ended = await waitForStatus(client, abandoned.body.id, ["canceled"]);
      expect(ended).toMatchObject({ reason: "upload_timeout", error: { code: "timeout" } });
      const late = await client.upload(`/v1/jobs/${abandoned.body.id}/upload`, craftZip([{ name: "text_file", data: "late" }]));
      expect(late.status).toBe(409);
      expect((await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "z" } })).status).toBe(201);
    } finally {
      await server.close();
    }
  });

  it("with tokens configured, every route but /healthz needs a valid bearer token", async () => {
    const token = "s3cret-token-0123456789";
    const server = await startInProcess(makeProject({ tokens: [token], queue: under.queue() }));
    try {
      const anonymous = api(server.url);
      expect((await anonymous.json("GET", "/healthz")).status).toBe(200);
      const denied = await anonymous.json("GET", "/v1/skills");
      expect(denied.status).toBe(401);
      expect(denied.body.error.code).toBe("unauthorized");
      expect(denied.headers.get("www-authenticate")).toContain("Bearer");
      expect((await api(server.url, "wrong-token-0123456789").json("GET", "/v1/skills")).status).toBe(401);
      expect((await api(server.url, token).json("GET", "/v1/skills")).status).toBe(200);
      expect((await anonymous.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "x" } })).status).toBe(
        401,
      );
    } finally {
      await server.close();
    }
  });

  it("binds to 127.0.0.1 by default and refuses another host without tokens", async () => {
    expect(resolveServerSettings({}, "/tmp").host).toBe("127.0.0.1");
    expect(() => resolveServerSettings({ server: { host: "0.0.0.0" } }, "/tmp")).toThrowError(/without bearer tokens/);
    try {
      resolveServerSettings({ server: { host: "0.0.0.0" } }, "/tmp");
    } catch (error) {
      expect(error).toMatchObject({ code: "invalid_config", field: "server.tokens" });
    }
    expect(resolveServerSettings({ server: { host: "0.0.0.0", tokens: ["a-long-enough-token-123"] } }, "/tmp").host).toBe("0.0.0.0");
  });
});
