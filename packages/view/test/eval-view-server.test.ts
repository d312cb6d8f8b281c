/**
 * Eval folders through the view server over real HTTP on loopback, and as records of the runs folder: what the API
 * says of two iterations written as `skillrig eval` writes them, what it says of files that break their format, and
 * what a hostile outputs/ (HTML, a link out of the runs folder, escaping paths) gets.
 */
import { request } from "node:http";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanRuns, listRunRecords, readRunRecord, startViewServer, type RunningView } from "@skillrig/view";
import { A, B, BROKEN_ID, EVAL_ID, HOSTILE_HTML, HOSTILE_RUN, writeFixtureEvals } from "./support/fixture-evals.js";
import { runCli } from "./support/cli.js";
import { writeFixtureRuns } from "./support/fixture-runs.js";

/** A raw request: the path reaches the server exactly as written (fetch would normalise dot segments). */
function raw(url: string, path: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const u = new URL(url);
  return new Promise((ok, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, headers: { host: u.host } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => ok({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("error", fail);
    req.end();
  });
}

describe("eval folders in the view server", () => {
  let view: RunningView;
  let runsDir: string;
  let outside: string;
  const it2 = `api/evals/${EVAL_ID}/iterations/2`;

  beforeAll(async () => {
    runsDir = mkdtempSync(join(tmpdir(), "skillrig-view-evals-"));
    await writeFixtureRuns(runsDir);
    const secretDir = mkdtempSync(join(tmpdir(), "skillrig-secret-"));
    outside = join(secretDir, "secret.txt");
    writeFileSync(outside, "do not serve me");
    writeFixtureEvals(runsDir, outside);
    // A run folder that is a link to a folder outside the runs folder, named as a run.
    mkdirSync(join(secretDir, "run", "outputs"), { recursive: true });
    writeFileSync(join(secretDir, "run", "grading.json"), "{}");
    symlinkSync(join(secretDir, "run"), join(runsDir, EVAL_ID, "iteration-2", "eval-1", "linked-run"));
    // An outputs file too large to show inline (2 MiB + 1).
    writeFileSync(join(runsDir, EVAL_ID, "iteration-2", HOSTILE_RUN, "outputs", "big.log"), Buffer.alloc(2 * 1024 * 1024 + 1, 97));
    // An iteration still running: iteration.json only, no benchmark.json yet.
    mkdirSync(join(runsDir, "eval-running", "iteration-1"), { recursive: true });
    writeFileSync(
      join(runsDir, "eval-running", "iteration-1", "iteration.json"),
      JSON.stringify({
        format: "skillrig-eval-iteration",
        version: 1,
        skill_name: "slow-skill",
        skill_path: "/skills/slow-skill",
        iteration: 1,
        started_at: "2026-11-26T10:00:00.000Z",
        engines: ["claude"],
        configurations: ["with_skill", "without_skill"],
        runs_per_configuration: 1,
        status: "running",
      }),
    );
    view = await startViewServer({ runsDir, port: 0 });
  });
  afterAll(() => view?.close());

  it("lists each eval folder with its iterations newest first, their status, pass rates and delta", async () => {
    const { evals } = await (await fetch(`${view.url}api/evals`)).json();
    expect(evals.map((e: { id: string }) => e.id)).toEqual([BROKEN_ID, "eval-running", EVAL_ID]);
    const top = evals[2];
    expect(top.skill_name).toBe("top-months");
    expect(top.iterations.map((i: { n: number; status: string }) => [i.n, i.status])).toEqual([
      [2, "passed"],
      [1, "failed"],
    ]);
    expect(top.iterations[1].pass_rates).toEqual({ with_skill: 0.625, without_skill: 0.125 });
    expect(top.iterations[1].delta).toMatchObject({
      of: ["with_skill", "without_skill"],
      pass_rate: 0.5,
      time_seconds: 6.25,
      tokens: 2125,
    });
    expect(top.iterations[0].problems).toEqual([]);
    expect(evals[0].iterations[0].problems).toEqual(["benchmark.json is not valid: /runs/0/result/pass_rate must be number"]);
    // Running: no benchmark.json yet is not a problem, and there is nothing to show of it.
    expect(evals[1]).toMatchObject({
      skill_name: "slow-skill",
      iterations: [{ n: 1, status: "running", pass_rates: {}, delta: null, problems: [] }],
    });
    const running = await (await fetch(`${view.url}api/evals/eval-running/iterations/1`)).json();
    expect(running).toMatchObject({ benchmark: null, benchmark_problem: null, triggers: null, triggers_problem: null });
  });

  it("lists eval iterations as records of kind eval among the other runs, newest first, and reads one back", async () => {
    const records = await listRunRecords(runsDir);
    const evalRecords = records.filter((r) => r.kind === "eval");
    expect(evalRecords.map((r) => r.id)).toEqual([
      "eval-running/iteration-1",
      `${EVAL_ID}/iteration-2`,
      `${EVAL_ID}/iteration-1`,
      `${BROKEN_ID}/iteration-1`,
    ]);
    expect(evalRecords[0]).toMatchObject({ status: "running", duration_ms: null, pass_rate: null });
    expect(evalRecords[2]).toMatchObject({
      name: "top-months",
      engines: ["gemini", "codex"],
      status: "failed",
      pass_rate: 0.625,
      duration_ms: 250_000,
      report: "benchmark.json",
    });
    // The broken iteration is listed (its iteration.json is valid); its pass rate is not taken from a broken benchmark.
    expect(evalRecords[3]!.pass_rate).toBeNull();
    // Sorted with the other kinds by start: the fixture runs started on 2026-11-20 and 21.
    expect(records.map((r) => r.kind).slice(0, 2)).toEqual(["eval", "eval"]);
    expect(await readRunRecord(runsDir, `${EVAL_ID}/iteration-2`)).toMatchObject({ kind: "eval", status: "passed", pass_rate: 0.875 });
    expect(await readRunRecord(runsDir, `${EVAL_ID}/iteration-3`)).toBeUndefined();
    expect(await readRunRecord(runsDir, `../${EVAL_ID}/iteration-2`)).toBeUndefined();
  });

  it("gives an iteration's files checked, and says which file breaks its format and where", async () => {
    const detail = await (await fetch(`${view.url}${it2}`)).json();
    expect(detail).toMatchObject({ iteration_problem: null, benchmark_problem: null, triggers_problem: null });
    expect(detail.benchmark.run_summary.delta.pass_rate).toBe(0.875);
    expect(detail.triggers.summary.gemini).toEqual({ train: { passed: 2, total: 2 }, validation: { passed: 1, total: 2 } });
    const broken = await (await fetch(`${view.url}api/evals/${BROKEN_ID}/iterations/1`)).json();
    expect(broken.benchmark).toBeNull();
    expect(broken.benchmark_problem).toBe("benchmark.json is not valid: /runs/0/result/pass_rate must be number");
    expect(broken.triggers).toBeNull();
    expect(broken.triggers_problem).toBe("triggers.json is not valid: /queries must be array");
    const missing = await fetch(`${view.url}api/evals/${EVAL_ID}/iterations/9`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("iteration_not_found");
    expect((await fetch(`${view.url}api/evals/nothing-here`)).status).toBe(404);
  });

  it("gives one run: answer, grading with evidence, timing, and outputs/ listed without following links", async () => {
    const run = await (await fetch(`${view.url}${it2}/run/${HOSTILE_RUN}`)).json();
    expect(run.answer).toMatchObject({ job_id: "job-2-1", status: "succeeded", engine: "gemini" });
    expect(run.grading.assertion_results).toEqual([
      { text: A, passed: true, evidence: "found it in the gemini run", graded_by: "judge" },
      { text: B, passed: true, evidence: "found it in the gemini run", graded_by: "json_schema" },
    ]);
    expect(run.timing).toMatchObject({ total_tokens: 4000, duration_ms: 20_000 });
    expect(run.outputs).toEqual([
      { path: "big.log", type: "file", size: 2 * 1024 * 1024 + 1 },
      { path: "data/notes.txt", type: "file", size: 17 },
      { path: "leak.txt", type: "link", size: 0 },
      { path: "report.html", type: "file", size: HOSTILE_HTML.length },
      { path: "top_months.json", type: "file", size: 32 },
    ]);
    const failed = await (await fetch(`${view.url}api/evals/${EVAL_ID}/iterations/1/run/eval-2/with_skill/codex`)).json();
    expect(failed.answer).toMatchObject({ status: "failed", error: { code: "engine_failed" } });
    expect(failed.grading.summary).toEqual({ passed: 0, failed: 1, total: 1, pass_rate: 0 });
  });

  it("serves an iteration's files as plain text or downloads, never as a page, and refuses what is too large to show", async () => {
    const html = await fetch(`${view.url}${it2}/files/${HOSTILE_RUN}/outputs/report.html`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(html.headers.get("content-security-policy")).toMatch(/^sandbox/);
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await html.text()).toBe(HOSTILE_HTML);
    const download = await fetch(`${view.url}${it2}/files/${HOSTILE_RUN}/outputs/report.html?download=1`);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="report.html"');
    const big = await fetch(`${view.url}${it2}/files/${HOSTILE_RUN}/outputs/big.log`);
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: "file_too_large", message: expect.stringContaining("download it") });
    const bigDownload = await fetch(`${view.url}${it2}/files/${HOSTILE_RUN}/outputs/big.log?download=1`);
    expect(bigDownload.status).toBe(200);
    expect((await bigDownload.arrayBuffer()).byteLength).toBe(2 * 1024 * 1024 + 1);
  });

  it("never serves or reads anything outside the iteration: links out, dot-dot, encoded, absolute, another eval", async () => {
    for (const path of [
      `/${it2}/files/${HOSTILE_RUN}/outputs/leak.txt`,
      `/${it2}/files/../../../../etc/passwd`,
      `/${it2}/files/..%2F..%2F..%2F..%2Fetc%2Fpasswd`,
      `/${it2}/files/%2Fetc%2Fpasswd`,
      `/${it2}/files/..%2F..%2F${BROKEN_ID}%2Fiteration-1%2Fbenchmark.json`,
      `/${it2}/files/eval-1/linked-run/grading.json`,
      `/${it2}/run/eval-1/linked-run`,
      `/${it2}/run/..%2Fiteration-1%2Feval-1%2Fwith_skill%2Fgemini`,
      `/${it2}/run/%2Ftmp`,
      "/api/evals/..%2F..%2Fetc/iterations/1",
      `/api/evals/${EVAL_ID}/iterations/0`,
    ]) {
      const res = await raw(view.url, path);
      expect([400, 404], `${path} -> ${res.status}`).toContain(res.status);
      expect(res.body).not.toContain("do not serve me");
      expect(res.body).not.toContain("root:");
    }
  });

  it("gives every run's assertion results for comparing iterations", async () => {
    const { runs } = await (await fetch(`${view.url}${it2}/assertions`)).json();
    expect(runs).toHaveLength(8);
    expect(runs.find((r: { path: string }) => r.path === "eval-1/with_skill/codex")).toEqual({
      eval_id: 1,
      configuration: "with_skill",
      engine: "codex",
      run_number: 1,
      path: "eval-1/with_skill/codex",
      assertions: [
        { text: A, passed: false },
        { text: B, passed: true },
      ],
      problem: null,
    });
    const broken = await fetch(`${view.url}api/evals/${BROKEN_ID}/iterations/1/assertions`);
    expect(broken.status).toBe(409);
    expect((await broken.json()).error.message).toContain("/runs/0/result/pass_rate must be number");
  });

  it("skillrig runs list --kind eval lists the iterations, and runs show shows one with its benchmark", async () => {
    const env = { SKILLRIG_RUNS_DIR: runsDir, NO_COLOR: "1" };
    const list = await runCli(["runs", "list", "--kind", "eval"], { env });
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(/^eval-running\/iteration-1\s+eval\s+slow-skill\s+claude\s+running\s+-\s+-$/);
    expect(lines[2]).toMatch(/^eval-top-months\/iteration-2\s+eval\s+top-months\s+gemini,codex\s+passed\s+87\.5%\s+180\.0 s$/);
    expect(lines[3]).toMatch(/^eval-top-months\/iteration-1\s+eval\s+top-months\s+gemini,codex\s+failed\s+62\.5%\s+250\.0 s$/);
    const show = await runCli(["runs", "show", `${EVAL_ID}/iteration-1`, "--json"], { env });
    expect(show.code, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout);
    expect(shown.record).toMatchObject({ kind: "eval", status: "failed", pass_rate: 0.625 });
    expect(shown.report.run_summary.delta.pass_rate).toBe(0.5);
    const refused = await runCli(["runs", "show", `../${EVAL_ID}/iteration-1`], { env });
    expect(refused.code).toBe(2);
  });

  it("cleans an eval folder by its newest iteration's age", async () => {
    const dry = await cleanRuns(runsDir, { olderThanMs: 86_400_000, dryRun: true, now: new Date("2026-11-25T12:00:00Z") });
    const names = dry.runs.map((p) => p.split("/").pop());
    expect(names).toContain(BROKEN_ID);
    expect(names).not.toContain(EVAL_ID);
  });
});
