/**
 * Issue 38: upload quotas count what an upload puts on disk, not the zip. Three 64 KiB zips that inflate to 64 MiB
 * each used to put 192 MiB on disk under a 1 MB/day quota (the quota counted the zip). Now the bytes are counted as
 * they are extracted: the zip bomb is refused with 429 naming the tenant's limit, nothing of it is left under the
 * data folder, and its bytes are given back (a file of 900 KB, which fits the day only if they were, is taken
 * afterwards). On both backends, over real HTTP.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { craftZip } from "./support/craft-zip.js";
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

const TOKEN = "quota-tenant-token-0123456789";
const MB = 1_000_000;

/** Every file under `dir` with its size: what is on disk. */
function diskOf(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (!path.includes("skillrig-server.sqlite")) out[path.slice(dir.length)] = statSync(path).size;
  }
  return out;
}

describe.each(BACKENDS)("upload quotas count the extracted bytes (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let server: RunningServer;
  let client: Api;
  beforeAll(async () => {
    under = await openBackend(backend);
    server = await startInProcess(makeProject({ queue: under.queue(), tenants: { team: { tokens: [TOKEN], upload_bytes_per_day: MB } } }));
    client = api(server.url, TOKEN);
  });
  afterAll(async () => {
    await server?.close();
    await under?.stop();
  });

  it("three 64 KiB zips of 64 MiB each under a 1 MB/day quota: each refused with 429 while extracting, nothing on disk, the bytes given back", async () => {
    const bomb = craftZip([{ name: "text_file", data: Buffer.alloc(64 * 1024 * 1024, 0x61), deflate: true }]);
    expect(bomb.length).toBeLessThan(128 * 1024);
    const before = diskOf(server.settings.dataDir);
    for (let i = 0; i < 3; i++) {
      const job = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: `bomb ${i}` } });
      const refused = await client.upload(`/v1/jobs/${job.body.id}/upload`, bomb);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: "quota_exceeded",
        field: "server.tenants.team.upload_bytes_per_day",
        details: { limit: "server.tenants.team.upload_bytes_per_day", tenant: "team", used: 0, max: MB },
      });
      // Stopped at the chunk that crossed the day's limit, not after inflating the whole 64 MiB.
      expect(refused.body.error.details.bytes).toBeGreaterThan(MB);
      expect(refused.body.error.details.bytes).toBeLessThan(2 * MB);
      expect(refused.body.error.message).toContain("server.tenants.team.upload_bytes_per_day");
      expect((await client.json("GET", `/v1/jobs/${job.body.id}`)).body.status).toBe("waiting_upload");
      await client.json("POST", `/v1/jobs/${job.body.id}/cancel`);
    }
    expect(diskOf(server.settings.dataDir)).toEqual(before);
    expect(readdirSync(join(server.settings.dataDir, "runs")).filter((n) => n.includes("staging"))).toEqual([]);

    // 900 KB fits the day only if every refused byte was given back.
    const job = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "fits" } });
    const fits = craftZip([{ name: "text_file", data: "word ".repeat(180_000), deflate: true }]);
    expect((await client.upload(`/v1/jobs/${job.body.id}/upload`, fits)).status).toBe(202);
    expect((await waitForStatus(client, job.body.id, ["succeeded", "failed"])).status).toBe("succeeded");
    // And now the day holds 900 KB: the next 200 KB is past it.
    const next = await client.json("POST", "/v1/jobs", { skill_id: "word-count", engine: "echo", input: { label: "over" } });
    const over = await client.upload(`/v1/jobs/${next.body.id}/upload`, craftZip([{ name: "text_file", data: "word ".repeat(40_000) }]));
    expect(over.status).toBe(429);
    expect(over.body.error.details).toMatchObject({ used: 900_000, max: MB });
    await client.json("POST", `/v1/jobs/${next.body.id}/cancel`);
  });
});
