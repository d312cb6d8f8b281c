/**
 * Two teams on one server (issue 30), on each backend, over real HTTP with each team's own token: nothing of one
 * tenant is visible to the other (every job route with the other's job id is the same 404 as an unknown id, lists
 * and streams hold nothing of it), a tenant at its limit gets 429 with Retry-After naming the limit while the other
 * is unaffected, and one tenant's flood does not hold back the other's single job (measured as the order in which
 * jobs start, from the store's event sequence numbers: no clock is read).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveServerSettings, type RunningServer } from "@skillrig/server";
import { craftZip } from "./support/craft-zip.js";
import {
  api,
  BACKENDS,
  makeProject,
  openBackend,
  readEvents,
  startInProcess,
  waitFor,
  waitForStatus,
  type Api,
  type BackendUnderTest,
} from "./support/server-harness.js";

const ALPHA = "alpha-token-0123456789abcdef";
const BETA = "beta-token-0123456789abcdef";
const OPS = "ops-admin-token-0123456789";
const BETA_ENV = "SKILLRIG_TEST_TENANT_BETA_TOKEN";

const echo = (message: string, delay_ms = 0) => ({
  skill_id: "quick-echo",
  engine: "echo",
  input: { message },
  ...(delay_ms > 0 ? { parameter: { delay_ms } } : {}),
});
const wordCount = { skill_id: "word-count", engine: "echo", input: { label: "essay" } };
const textZip = () => craftZip([{ name: "text_file", data: "one two three", deflate: true }]);

/** The sequence number of the job's `running` status event: the order in which jobs started, across the store. */
async function startSeq(url: string, token: string, id: string): Promise<number> {
  const events = await readEvents(url, id, { token });
  const running = events.find((e) => e.event === "status" && e.payload.data.status === "running");
  if (!running) throw new Error(`job ${id} never ran: ${JSON.stringify(events.map((e) => e.payload.data))}`);
  return running.id;
}

describe.each(BACKENDS)("tenants on one server (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let alpha: Api;
  let beta: Api;
  let ops: Api;

  beforeAll(async () => {
    under = await openBackend(backend);
    process.env[BETA_ENV] = BETA;
    server = await startInProcess(
      makeProject({
        queue: under.queue(),
        concurrency: 1,
        tenants: {
          alpha: { tokens: [ALPHA], queue_limit: 4 },
          beta: { tokens: [{ env: BETA_ENV }] },
          ops: { tokens: [OPS], role: "admin" },
        },
      }),
    );
    alpha = api(server.url, ALPHA);
    beta = api(server.url, BETA);
    ops = api(server.url, OPS);
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
    delete process.env[BETA_ENV];
  });

  it("another tenant's job is a 404 on every route, exactly like an unknown id, finished or not; its own tenant and an admin see it", async () => {
    const done = await alpha.json("POST", "/v1/jobs", wordCount);
    expect((await alpha.upload(`/v1/jobs/${done.body.id}/upload`, textZip())).status).toBe(202);
    await waitForStatus(alpha, done.body.id, ["succeeded"]);
    const waiting = await alpha.json("POST", "/v1/jobs", wordCount);
    expect(waiting.body.status).toBe("waiting_upload");

    const unknown = "00000000-0000-4000-8000-000000000000";
    const routes = (id: string): Array<[string, string]> => [
      ["GET", `/v1/jobs/${id}`],
      ["GET", `/v1/jobs/${id}/result`],
      ["GET", `/v1/jobs/${id}/artifacts`],
      ["GET", `/v1/jobs/${id}/artifacts/report`],
      ["GET", `/v1/jobs/${id}/bundle`],
      ["GET", `/v1/jobs/${id}/events`],
      ["POST", `/v1/jobs/${id}/cancel`],
    ];
    for (const id of [done.body.id, waiting.body.id]) {
      const theirs = routes(id);
      const nobodys = routes(unknown);
      for (let i = 0; i < theirs.length; i++) {
        const [method, path] = theirs[i]!;
        const answer = await beta.json(method, path);
        const baseline = await beta.json(method, nobodys[i]![1]);
        expect([path, answer.status]).toEqual([path, 404]);
        expect(answer.body.error).toEqual({ ...baseline.body.error, message: baseline.body.error.message.replace(unknown, id) });
      }
      const upload = await beta.upload(`/v1/jobs/${id}/upload`, textZip());
      expect(upload.status).toBe(404);
      expect(upload.body.error.code).toBe("job_not_found");
    }
    // Nothing the other tenant tried changed anything: the waiting job still waits, the finished one is as it was.
    expect((await alpha.json("GET", `/v1/jobs/${waiting.body.id}`)).body.status).toBe("waiting_upload");
    expect((await alpha.raw(`/v1/jobs/${done.body.id}/artifacts/report`)).status).toBe(200);
    // The admin sees (and may cancel) every tenant's jobs.
    expect((await ops.json("GET", `/v1/jobs/${done.body.id}/result`)).body.status).toBe("succeeded");
    expect((await ops.json("POST", `/v1/jobs/${waiting.body.id}/cancel`)).status).toBe(202);
    expect((await alpha.json("GET", `/v1/jobs/${waiting.body.id}`)).body.status).toBe("canceled");
  });

  it("lists and streams hold nothing of another tenant; an admin lists every tenant's; filters, cursor and bad values", async () => {
    const mine = await beta.json("POST", "/v1/jobs", echo("beta's own"));
    expect(mine.status).toBe(201);
    await waitForStatus(beta, mine.body.id, ["succeeded"]);
    const theirs = await alpha.json("POST", "/v1/jobs", echo("alpha's own"));
    await waitForStatus(alpha, theirs.body.id, ["succeeded"]);

    const betaList = await beta.json("GET", "/v1/jobs");
    expect(betaList.status).toBe(200);
    expect(betaList.body.jobs.map((j: { id: string }) => j.id)).toEqual([mine.body.id]);
    expect(betaList.body.next_cursor).toBeNull();
    const alphaIds = (await alpha.json("GET", "/v1/jobs")).body.jobs.map((j: { id: string }) => j.id);
    expect(alphaIds).toContain(theirs.body.id);
    expect(alphaIds).not.toContain(mine.body.id);
    const all = (await ops.json("GET", "/v1/jobs?limit=1000")).body.jobs.map((j: { id: string }) => j.id);
    expect(all).toEqual(expect.arrayContaining([mine.body.id, ...alphaIds]));
    expect(all).toHaveLength(alphaIds.length + 1);

    // A stream is of one job; beta's own holds only its own job's events.
    const events = await readEvents(server.url, mine.body.id, { token: BETA });
    expect(new Set(events.map((e) => e.payload.job_id))).toEqual(new Set([mine.body.id]));

    // Filters and pages: alpha has a succeeded word-count job, a canceled one and a succeeded quick-echo job, newest first.
    const succeeded = await alpha.json("GET", "/v1/jobs?status=succeeded&kind=skill");
    expect(succeeded.body.jobs.every((j: { status: string }) => j.status === "succeeded")).toBe(true);
    const wordCounts = await alpha.json("GET", "/v1/jobs?skill=word-count&status=succeeded,canceled");
    expect(wordCounts.body.jobs.map((j: { skill_id: string; status: string }) => [j.skill_id, j.status])).toEqual([
      ["word-count", "canceled"],
      ["word-count", "succeeded"],
    ]);
    expect((await alpha.json("GET", "/v1/jobs?kind=oracle")).body).toEqual({ jobs: [], next_cursor: null });
    const pages: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: { status: number; body: { jobs: Array<{ id: string }>; next_cursor: string | null } } = await alpha.json(
        "GET",
        `/v1/jobs?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.jobs.length).toBeLessThanOrEqual(1);
      pages.push(...page.body.jobs.map((j) => j.id));
      cursor = page.body.next_cursor;
    }
    expect(pages).toEqual(alphaIds);

    for (const [query, parameter] of [
      ["status=done", "status"],
      ["status=queued,nope", "status"],
      ["kind=batch", "kind"],
      ["limit=0", "limit"],
      ["limit=ten", "limit"],
      ["limit=1001", "limit"],
      ["cursor=not-a-cursor", "cursor"],
    ] as const) {
      const bad = await alpha.json("GET", `/v1/jobs?${query}`);
      expect([query, bad.status, bad.body.error.code, bad.body.error.field]).toEqual([query, 400, "usage", parameter]);
      expect(bad.body.error.message).toContain(parameter);
    }
  });

  it("a tenant at its queue_limit gets 429 with Retry-After naming the limit; the other tenant's single job starts before the flood's queued jobs", async () => {
    // Alpha holds the one slot with a job that runs until it is canceled, then fills its own queue.
    const holder = await alpha.json("POST", "/v1/jobs", echo("hold the slot", 600_000));
    await waitForStatus(alpha, holder.body.id, ["running"]);
    // Ten submissions at once: the limit is checked where the job is stored, so exactly four get in.
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => alpha.json("POST", "/v1/jobs", echo(`flood ${i}`))));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 429, 429, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429);
    // Oldest first, as the store queued them.
    const flood: string[] = (await alpha.json("GET", "/v1/jobs?status=queued")).body.jobs.map((j: { id: string }) => j.id).reverse();
    expect(new Set(flood)).toEqual(new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id)));
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused!.body.error).toMatchObject({
      code: "quota_exceeded",
      field: "server.tenants.alpha.queue_limit",
      details: { limit: "server.tenants.alpha.queue_limit", tenant: "alpha", count: 4, max: 4 },
    });
    expect(refused!.body.error.message).toContain("server.tenants.alpha.queue_limit");

    // Beta is not affected by alpha's limit, and its job waits behind alpha's running one only.
    const single = await beta.json("POST", "/v1/jobs", echo("beta's single job"));
    expect(single.status).toBe(201);
    const queued = await beta.json("GET", `/v1/jobs/${single.body.id}`);
    expect(queued.body).toMatchObject({ status: "queued", queue_position: 0 });

    expect((await alpha.json("POST", `/v1/jobs/${holder.body.id}/cancel`)).status).toBe(202);
    for (const id of flood) await waitForStatus(alpha, id, ["succeeded"]);
    await waitForStatus(beta, single.body.id, ["succeeded"]);
    const betaStart = await startSeq(server.url, BETA, single.body.id);
    const floodStarts = await Promise.all(flood.map((id) => startSeq(server.url, ALPHA, id)));
    // Under first-come-first-served beta's job would start after all four; with fair turns it starts first.
    for (const seq of floodStarts) expect(betaStart).toBeLessThan(seq);
    // The flood's own jobs keep their order.
    expect([...floodStarts].sort((a, b) => a - b)).toEqual(floodStarts);
  });

  it("the old single-token config keeps working as the tenant `default`, which sees no other tenant's jobs", async () => {
    const token = "single-team-token-0123456789";
    const single = await startInProcess(makeProject({ tokens: [token], queue: under.queue() }));
    try {
      const client = api(single.url, token);
      const created = await client.json("POST", "/v1/jobs", echo("one team"));
      expect(created.status).toBe(201);
      expect((await waitForStatus(client, created.body.id, ["succeeded"])).status).toBe("succeeded");
      expect((await client.json("GET", "/v1/jobs")).body.jobs.map((j: { id: string }) => j.id)).toEqual([created.body.id]);
    } finally {
      await single.close();
    }
  });
});

describe.each(BACKENDS)("a tenant's own limits (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let gamma: Api;
  let delta: Api;
  const GAMMA = "gamma-token-0123456789abcdef";
  const DELTA = "delta-token-0123456789abcdef";

  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(
      makeProject({
        queue: under.queue(),
        // Long enough that two requests in a row on a loaded machine fall inside it (400 ms did not, under load).
        upload_wait_ms: 5000,
        tenants: {
          gamma: { tokens: [GAMMA], waiting_upload_limit: 1, upload_bytes_per_day: 400 },
          delta: { tokens: [DELTA] },
        },
      }),
    );
    gamma = api(server.url, GAMMA);
    delta = api(server.url, DELTA);
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  it("a job waiting for its upload counts against waiting_upload_limit until it expires, which frees its place", async () => {
    const abandoned = await gamma.json("POST", "/v1/jobs", wordCount);
    expect(abandoned.body.status).toBe("waiting_upload");
    const refused = await gamma.json("POST", "/v1/jobs", wordCount);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    expect(refused.body.error).toMatchObject({ code: "quota_exceeded", details: { limit: "server.tenants.gamma.waiting_upload_limit" } });
    // Another tenant is not held back by gamma's limit; a job that needs no upload is not either.
    const other = await delta.json("POST", "/v1/jobs", wordCount);
    expect(other.status).toBe(201);
    expect((await gamma.json("POST", "/v1/jobs", echo("no upload needed"))).status).toBe(201);

    expect(await waitForStatus(gamma, abandoned.body.id, ["canceled"])).toMatchObject({ reason: "upload_timeout" });
    const again = await gamma.json("POST", "/v1/jobs", wordCount);
    expect(again.status).toBe(201);
    await waitForStatus(gamma, again.body.id, ["canceled"]);
  });

  it("uploads count against upload_bytes_per_day: past it 429 until the next UTC day, nothing written, the job still waits", async () => {
    // Counted as extracted (250 bytes), not as the zip.
    const zip = craftZip([{ name: "text_file", data: "x".repeat(250) }]);
    // A refused upload gives its bytes back: a zip that is not a zip does not count.
    const first = await gamma.json("POST", "/v1/jobs", wordCount);
    expect((await gamma.upload(`/v1/jobs/${first.body.id}/upload`, Buffer.from("not a zip"))).status).toBe(415);
    expect((await gamma.upload(`/v1/jobs/${first.body.id}/upload`, zip)).status).toBe(202);
    await waitForStatus(gamma, first.body.id, ["succeeded"]);

    const second = await gamma.json("POST", "/v1/jobs", wordCount);
    const over = await gamma.upload(`/v1/jobs/${second.body.id}/upload`, zip);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({
      code: "quota_exceeded",
      field: "server.tenants.gamma.upload_bytes_per_day",
      details: { limit: "server.tenants.gamma.upload_bytes_per_day", used: 250, bytes: 250, max: 400 },
    });
    const retryAfter = over.body.error.details.retry_after_s;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect((await gamma.json("GET", `/v1/jobs/${second.body.id}`)).body.status).toBe("waiting_upload");
    // Delta's uploads are its own.
    const theirs = await delta.json("POST", "/v1/jobs", wordCount);
    expect((await delta.upload(`/v1/jobs/${theirs.body.id}/upload`, zip)).status).toBe(202);
    await waitFor("the refused job to expire", async () =>
      (await gamma.json("GET", `/v1/jobs/${second.body.id}`)).body.status === "canceled" ? true : undefined,
    );
  });
});

describe.each(BACKENDS)("a tenant's running_limit (%s backend)", (backend) => {
  it("holds the tenant's next job queued while a slot is free, which another tenant's job takes; it runs once its first ends", async () => {
    const under = await openBackend(backend);
    const EPS = "epsilon-token-0123456789abcdef";
    const ZETA = "zeta-token-0123456789abcdef";
    const server = await startInProcess(
      makeProject({
        queue: under.queue(),
        concurrency: 2,
        tenants: { epsilon: { tokens: [EPS], running_limit: 1 }, zeta: { tokens: [ZETA] } },
      }),
    );
    try {
      const epsilon = api(server.url, EPS);
      const zeta = api(server.url, ZETA);
      const first = await epsilon.json("POST", "/v1/jobs", echo("first", 600_000));
      await waitForStatus(epsilon, first.body.id, ["running"]);
      const second = await epsilon.json("POST", "/v1/jobs", echo("second"));
      const other = await zeta.json("POST", "/v1/jobs", echo("other"));
      // The second slot was free all along: zeta's job ran in it while epsilon's second stayed queued.
      await waitForStatus(zeta, other.body.id, ["succeeded"]);
      expect((await epsilon.json("GET", `/v1/jobs/${second.body.id}`)).body.status).toBe("queued");
      expect((await epsilon.json("POST", `/v1/jobs/${first.body.id}/cancel`)).status).toBe(202);
      expect((await waitForStatus(epsilon, second.body.id, ["succeeded", "failed"])).status).toBe("succeeded");
    } finally {
      await server.close();
      await under.stop();
    }
  });
});

describe("a redis store made before tenants", () => {
  it("gives its jobs to the tenant `default`: listed and served to server.tokens, not to another tenant; its queued job runs", async () => {
    const under = await openBackend("redis");
    const queue = under.queue() as { prefix: string; url: string };
    const P = queue.prefix;
    const { Redis } = await import("ioredis");
    const redis = new Redis(queue.url);
    const dir = makeProject({
      queue,
      tokens: ["single-team-token-0123456789"],
      tenants: { other: { tokens: ["other-team-token-0123456789"] } },
    });
    // The keys a store of the previous release held for one finished and one queued job (no tenant anywhere).
    const old = "0b7f4c52-0000-4000-8000-00000000000a";
    const queued = "0b7f4c52-0000-4000-8000-00000000000b";
    const request = JSON.stringify({ skill_id: "quick-echo", engine: "echo", input: { message: "from before tenants" } });
    const record = (id: string, status: string) => [
      "id",
      id,
      "kind",
      "skill",
      "status",
      status,
      "skill_id",
      "quick-echo",
      "engine",
      "echo",
      "request_json",
      request,
      "needs_upload",
      "0",
      "run_dir",
      join(dir, "data", "runs", id),
      "created_at",
      "2026-01-01T00:00:00.000Z",
      "queued_at",
      "2026-01-01T00:00:00.000Z",
    ];
    await redis.hset(`${P}:job:${old}`, ...record(old, "succeeded"), "finished_at", "2026-01-01T00:00:01.000Z");
    await redis.hset(`${P}:job:${queued}`, ...record(queued, "queued"), "queue_order", "1");
    await redis.zadd(`${P}:all`, 1, old, 2, queued);
    await redis.set(`${P}:created`, 2);
    await redis.set(`${P}:order`, 1);
    await redis.zadd(`${P}:queued`, 1, queued);
    await redis.hset(`${P}:counts`, "succeeded", 1, "queued", 1);
    const server = await startInProcess(dir);
    try {
      const team = api(server.url, "single-team-token-0123456789");
      expect((await team.json("GET", "/v1/jobs")).body.jobs.map((j: { id: string }) => j.id)).toEqual([queued, old]);
      expect((await team.json("GET", `/v1/jobs/${old}`)).body.status).toBe("succeeded");
      const other = api(server.url, "other-team-token-0123456789");
      expect((await other.json("GET", `/v1/jobs/${old}`)).status).toBe(404);
      expect((await other.json("GET", "/v1/jobs")).body.jobs).toEqual([]);
      // It had no BullMQ entry of its own: the workers' sweep adds one for a job queued this long.
      expect((await waitForStatus(team, queued, ["succeeded", "failed"])).status).toBe("succeeded");
      expect(await redis.hgetall(`${P}:tcounts:default`)).toMatchObject({ succeeded: "2", queued: "0", running: "0" });
    } finally {
      await server.close();
      redis.disconnect();
      await under.stop();
    }
  });
});

describe("tenant config errors", () => {
  it("a token from a missing environment variable, a short token and a token in two tenants are config errors naming the pointer", () => {
    const missing = "SKILLRIG_TEST_TENANT_UNSET_TOKEN";
    delete process.env[missing];
    const attempt = (server: object) => {
      try {
        resolveServerSettings({ server } as never, "/tmp", {}, "/tmp/skillrig.config.json");
        return undefined;
      } catch (error) {
        return error as { code: string; pointer: string; message: string; file: string };
      }
    };
    expect(attempt({ tenants: { a: { tokens: ["a-fine-token-0123456789", { env: missing }] } } })).toMatchObject({
      code: "invalid_config",
      pointer: "/server/tenants/a/tokens/1",
      file: "/tmp/skillrig.config.json",
      message: expect.stringContaining(missing),
    });
    process.env[missing] = "short";
    try {
      expect(attempt({ tenants: { a: { tokens: [{ env: missing }] } } })).toMatchObject({ pointer: "/server/tenants/a/tokens/0" });
    } finally {
      delete process.env[missing];
    }
    expect(attempt({ tokens: ["the-same-token-0123456789"], tenants: { b: { tokens: ["the-same-token-0123456789"] } } })).toMatchObject({
      code: "invalid_config",
      pointer: "/server/tenants/b/tokens/0",
      message: expect.stringContaining('tenant "default"'),
    });
    const settings = resolveServerSettings(
      {
        server: {
          tokens: ["default-token-0123456789"],
          tenants: { ops: { tokens: ["ops-token-0123456789"], role: "admin", running_limit: 2 } },
        },
      },
      "/tmp",
    );
    expect(settings.tenants.map((t) => [t.name, t.admin, t.tokens.length, t.limits.runningLimit])).toEqual([
      ["default", false, 1, undefined],
      ["ops", true, 1, 2],
    ]);
    expect(settings.tokens).toHaveLength(2);
  });
});
