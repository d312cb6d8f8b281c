/** The view server over real HTTP on loopback: its API, and what a hostile page, path or symlink gets. */
import { request } from "node:http";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, writeRunRecord, type RunningView } from "@skillrig/view";
import { suiteReport, writeFixtureRuns } from "./support/fixture-runs.js";

const validSummary = {
  tasks: 0,
  tasks_not_graded: 0,
  samples: 0,
  samples_passed: 0,
  samples_failed: 0,
  samples_invalid: 0,
  samples_errored: 0,
  cases: 0,
  cases_passed: 0,
  duration_ms: 0,
};

/** A raw request, so the Host and Origin headers can be what an attacker's page would send. */
function raw(url: string, path: string, headers: Record<string, string>, method = "GET"): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

describe("the view server", () => {
  let view: RunningView;
  let runsDir: string;
  let ids: Awaited<ReturnType<typeof writeFixtureRuns>>;
  let secret: string;

  beforeAll(async () => {
    runsDir = mkdtempSync(join(tmpdir(), "skillrig-view-"));
    ids = await writeFixtureRuns(runsDir);
    // A file outside the runs folder, and a link to it an agent could leave in its workspace.
    secret = join(mkdtempSync(join(tmpdir(), "skillrig-secret-")), "secret.txt");
    writeFileSync(secret, "do not serve me");
    symlinkSync(secret, join(runsDir, ids.job, "workspace", "leak.txt"));
    view = await startViewServer({ runsDir, port: 0 });
  });
  afterAll(() => view?.close());

  it("binds to 127.0.0.1 and serves the app with a strict content security policy", async () => {
    expect(view.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(view.url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<div id="app">');
    // Offline: nothing in the page points at another host.
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("lists the runs and gives one with its report", async () => {
    const list = await (await fetch(`${view.url}api/runs`)).json();
    expect(list.runs.map((r: { id: string }) => r.id)).toEqual([ids.test, ids.suite, ids.solve, ids.job]);
    const one = await (await fetch(`${view.url}api/runs/${ids.test}`)).json();
    expect(one.record.kind).toBe("test");
    expect(one.report.cases[2].details.traceback).toContain("ValueError");
    // A task report written before `kind` existed is known by its cases, and it is valid.
    expect(one.problem).toBeNull();
    const missing = await fetch(`${view.url}api/runs/20990101T000000Z-test-nothing-000000`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("run_not_found");
  });

  it("names a report that breaks its schema by its JSON pointers, and still gives the report", async () => {
    const suite = await (await fetch(`${view.url}api/runs/${ids.suite}`)).json();
    expect(suite.report.tasks).toHaveLength(suiteReport.tasks.length);
    expect(suite.problem).toMatch(/^report\.json is not a valid skillrig-suite-report: \/summary\/\S+ is required/);
    const id = basename(
      await writeRunRecord(
        runsDir,
        { kind: "test", name: "flat-pass-at-k", startedAt: new Date(), durationMs: 1, status: "failed", passed: 0, total: 0, engines: [] },
        { kind: "skillrig-suite-report", version: 1, summary: validSummary, pass_at_k: { "pass@1": 0.5 }, tasks: [] },
      ),
    );
    const flat = await (await fetch(`${view.url}api/runs/${id}`)).json();
    expect(flat.problem).toBe("report.json is not a valid skillrig-suite-report: /pass_at_k/pass@1 must be object");
    const unknown = basename(
      await writeRunRecord(
        runsDir,
        { kind: "test", name: "not-a-report", startedAt: new Date(), durationMs: 1, status: "failed", passed: 0, total: 0, engines: [] },
        { kind: "something-else" },
      ),
    );
    expect((await (await fetch(`${view.url}api/runs/${unknown}`)).json()).problem).toBe(
      'report.json is no report skillrig knows (kind "something-else")',
    );
  });

  it("serves a run's files as inert downloads", async () => {
    const md = await fetch(`${view.url}api/runs/${ids.job}/files/artifacts/summary.md`);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(md.headers.get("content-security-policy")).toMatch(/^sandbox/);
    expect(md.headers.get("x-content-type-options")).toBe("nosniff");
    const png = await fetch(`${view.url}api/runs/${ids.job}/files/artifacts/chart.png?download=1`);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("content-disposition")).toBe('attachment; filename="chart.png"');
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
  });

  it("never serves a file outside the run folder: dot-dot, encoded dot-dot, absolute paths, symlinks", async () => {
    for (const path of [
      `/api/runs/${ids.job}/files/../../../etc/passwd`,
      `/api/runs/${ids.job}/files/..%2F..%2F..%2Fetc%2Fpasswd`,
      `/api/runs/${ids.job}/files/%2Fetc%2Fpasswd`,
      `/api/runs/${ids.job}/files/workspace/leak.txt`,
      "/api/runs/..%2F..%2Fetc/files/passwd",
      `/api/runs/${ids.job}/files/workspace`,
    ]) {
      const res = await raw(view.url, path, { host: new URL(view.url).host });
      expect([400, 404], `${path} -> ${res.status}`).toContain(res.status);
      expect(res.body).not.toContain("do not serve me");
      expect(res.body).not.toContain("root:");
    }
  });

  it("answers only requests addressed to it, and changes nothing for another origin", async () => {
    const host = new URL(view.url).host;
    const rebound = await raw(view.url, "/api/runs", { host: "attacker.example:80" });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.code).toBe("forbidden_host");
    const crossSite = await raw(view.url, "/api/server/jobs", { host, origin: "http://attacker.example" }, "POST");
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body).error.code).toBe("forbidden_origin");
  });

  it("says so when no jobs server was given", async () => {
    const res = await fetch(`${view.url}api/server/jobs`);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: "no_server", message: expect.stringContaining("--server") });
  });
});
