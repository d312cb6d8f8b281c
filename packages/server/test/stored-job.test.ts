/**
 * What comes back from the store is checked before the server uses it (src/stored-job.ts), on both backends: a job
 * record changed in the store behind the server's back (a request with a host path in `files`, which POST refuses;
 * an unknown kind; a column that is not JSON) is refused naming the job and the field, over real HTTP, and a record
 * the server wrote reads back typed and whole.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, api, makeProject, openBackend, startInProcess, type Api, type BackendUnderTest } from "./support/server-harness.js";

describe.each(BACKENDS)("stored job records (%s)", (backend) => {
  let under: BackendUnderTest;
  let stop: () => Promise<void>;
  let client: Api;
  /** Sets fields of a stored job, as someone with access to the store could. */
  let tamper: (id: string, fields: Record<string, string>) => Promise<void>;

  beforeAll(async () => {
    under = await openBackend(backend);
    const queue = under.queue();
    const project = makeProject({ queue });
    const server = await startInProcess(project);
    stop = server.close;
    client = api(server.url);
    if (backend === "sqlite") {
      const db = new Database(join(project, "data", "skillrig-server.sqlite"));
      tamper = async (id, fields) => {
        const columns = Object.keys(fields).map((name) => `${name} = @${name}`);
        db.prepare(`UPDATE jobs SET ${columns.join(", ")} WHERE id = @id`).run({ ...fields, id });
      };
    } else {
      const redis = new Redis(under.redis!.url);
      const prefix = (queue as { prefix: string }).prefix;
      tamper = async (id, fields) => {
        await redis.hset(`${prefix}:job:${id}`, fields);
      };
      const close = stop;
      stop = async () => {
        redis.disconnect();
        await close();
      };
    }
  }, 120_000);

  afterAll(async () => {
    await stop?.();
    await under?.stop();
  });

  /** A skill job waiting for its upload: stored, and left alone by the workers. */
  async function waitingJob(): Promise<string> {
    const created = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "essay" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  }

  it("reads back a record it wrote, with its request as accepted", async () => {
    const id = await waitingJob();
    const job = await client.json("GET", `/v1/jobs/${id}`);
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ id, kind: "skill", status: "waiting_upload", skill_id: "word-count", engine: "echo" });
  });

  it("refuses a request the API would have refused (a host path in files), naming the job and the field", async () => {
    const id = await waitingJob();
    const request = { skill_id: "word-count", engine: "echo", files: { text: "/etc/passwd" } };
    await tamper(id, { request_json: JSON.stringify(request) });
    const job = await client.json("GET", `/v1/jobs/${id}`);
    expect(job.status).toBe(500);
    expect(job.body.error.code).toBe("unhandled");
    expect(job.body.error.message).toContain(`the stored job "${id}"`);
    expect(job.body.error.message).toContain("/request");
    expect(job.body.error.message).toContain("is not a job record this server wrote");
    expect(JSON.stringify(job.body)).not.toContain("/etc/passwd");
  });

  it("refuses an unknown kind and a request that is not JSON, each by its field", async () => {
    const kind = await waitingJob();
    await tamper(kind, { kind: "shell" });
    const badKind = await client.json("GET", `/v1/jobs/${kind}`);
    expect(badKind.status).toBe(500);
    expect(badKind.body.error.message).toContain('/kind: must be skill, oracle or solve, not "shell"');

    const text = await waitingJob();
    await tamper(text, { request_json: "{not json" });
    const badText = await client.json("GET", `/v1/jobs/${text}`);
    expect(badText.status).toBe(500);
    expect(badText.body.error.message).toContain(`the stored job "${text}"`);
    expect(badText.body.error.message).toContain("request_json that is not JSON");
  });
});
