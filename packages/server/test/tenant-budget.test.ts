/**
 * A tenant's daily model budget (issue 40), on each backend, with the real Gemini CLI against the mock model behind
 * the server: a finished job's cost (metered by engine-kit's proxy, priced from the table) is added to its tenant's
 * UTC day, GET /v1/tenants/{tenant}/usage shows it, and once the day's budget is spent the tenant's next job is
 * refused with 429 cost_limit before anything is stored, while another tenant's job is still accepted.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockModel, type MockModel } from "@skillrig/mock-model";
import type { RunningServer } from "@skillrig/server";
import { craftZip } from "./support/craft-zip.js";
import {
  api,
  BACKENDS,
  ECHO_ENGINE,
  makeProject,
  openBackend,
  startInProcess,
  waitForStatus,
  type Api,
  type BackendUnderTest,
} from "./support/server-harness.js";

const KEY_ENV = "SKILLRIG_BUDGET_TEST_KEY";
const ALPHA = "alpha-budget-token-0123456789";
const BETA = "beta-budget-token-0123456789";
const pluginPath = (name: string) => join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", name, "dist", "index.js");
const job = { skill_id: "word-count", engine: "gemini", input: { label: "essay" }, options: { timeout_ms: 90_000 } };

describe.each(BACKENDS)("a tenant's daily model budget (%s backend)", (backend) => {
  let under: BackendUnderTest;
  let mock: MockModel;
  let server: RunningServer;
  let alpha: Api;
  let beta: Api;

  beforeAll(async () => {
    process.env[KEY_ENV] = "budget-test-key";
    under = await openBackend(backend);
    mock = await startMockModel({
      scenario: {
        turns: [
          { write_file: { path: "report.txt", content: "essay: 5 words\n" } },
          { json: { words: 5, label: "essay", report: "report.txt" } },
        ],
        usage: { input_tokens: 1200, cached_input_tokens: 800, output_tokens: 300, reasoning_tokens: 120 },
      },
    });
    const gemini = [pluginPath("@skillrig/engine-gemini"), { base_url: mock.url, api_key_env: KEY_ENV, model: "gemini-2.5-flash" }];
    const project = makeProject(
      {
        queue: under.queue(),
        tenants: {
          // Less than one job costs: the first job runs (the budget is checked before a job starts), the next is refused.
          alpha: { tokens: [ALPHA], max_cost_usd_per_day: 0.000001 },
          beta: { tokens: [BETA], max_tokens_per_day: 1_000_000 },
        },
      },
      { plugins: [ECHO_ENGINE, gemini] },
    );
    server = await startInProcess(project);
    alpha = api(server.url, ALPHA);
    beta = api(server.url, BETA);
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await under?.stop();
    delete process.env[KEY_ENV];
  });

  it("counts a finished job's cost on its tenant's day, then refuses the tenant's next job with 429 cost_limit", async () => {
    const created = await alpha.json("POST", "/v1/jobs", job);
    expect(created.status).toBe(201);
    expect(
      (await alpha.upload(`/v1/jobs/${created.body.id}/upload`, craftZip([{ name: "text_file", data: "one two three four five" }]))).status,
    ).toBe(202);
    await waitForStatus(alpha, created.body.id, ["succeeded", "failed"], 180_000);
    const result = (await alpha.json("GET", `/v1/jobs/${created.body.id}/result`)).body;
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.usage).toMatchObject({ source: "proxy", cachedInputTokens: expect.any(Number) });
    expect(result.cost_usd).toBeGreaterThan(0);

    const today = new Date().toISOString().slice(0, 10);
    // The day's usage is written once the finish is stored: poll the route, as a client would.
    const usage = await waitForUsage(alpha, "alpha", today);
    expect(usage.body).toMatchObject({ tenant: "alpha", max_cost_usd_per_day: 0.000001 });
    expect(usage.body.days.at(-1)).toEqual({
      day: today,
      cost_usd: result.cost_usd,
      tokens: result.usage.totalTokens,
      jobs: 1,
      unpriced_jobs: 0,
    });
    expect(usage.body.days).toHaveLength(30);

    const before = (await alpha.json("GET", "/v1/jobs")).body.jobs.length;
    const refused = await alpha.json("POST", "/v1/jobs", job);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "cost_limit", field: "server.tenants.alpha.max_cost_usd_per_day" });
    expect(refused.body.error.message).toContain('tenant "alpha" has spent $');
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await alpha.json("GET", "/v1/jobs")).body.jobs).toHaveLength(before);

    // Another tenant is not affected, and cannot read alpha's usage (404, as for an unknown tenant).
    const other = await beta.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "hi" } });
    expect(other.status).toBe(201);
    expect((await beta.json("GET", "/v1/tenants/alpha/usage")).status).toBe(404);
    expect((await beta.json("GET", "/v1/tenants/nobody/usage")).status).toBe(404);
    expect((await beta.json("GET", "/v1/tenants/beta/usage?from=2026-13-01")).status).toBe(422);
  });
});

async function waitForUsage(client: Api, tenant: string, day: string) {
  for (let i = 0; i < 200; i++) {
    const res = await client.json("GET", `/v1/tenants/${tenant}/usage`);
    if (res.status === 200 && res.body.days.some((d: { day: string; jobs: number }) => d.day === day && d.jobs > 0)) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no usage recorded for ${tenant} on ${day}`);
}
