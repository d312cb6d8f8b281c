/**
 * Comparing runs, and bundles, in Debian's Chromium, over runs this test records itself: the receipt parser's
 * correct script then its buggy one (`skillrig test`), suite-mini graded from its solutions then from its samples,
 * and two `skillrig run` jobs of a skill on the server tests' echo engine (different inputs, so the output differs).
 * The compare page and `skillrig runs diff --json` must agree (same cases and changes, same deltas, same cost and
 * tokens: two `skillrig solve` batches on the real Gemini CLI against the mock model, priced, the second stopped by
 * its `--max-tokens` budget with cost_limit and its attempt not started shown as not_run); then a bundle of
 * those runs opens from file:// with no server running and shows a run, a job's artifact and a comparison, and
 * from a plain static server.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import sirv from "sirv";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PairedDelta, RunComparison } from "../src/compare-runs.js";
import { launchChromium, OpenedPages, SCREENSHOTS } from "./support/browser.js";
import { REPO, runCli, startCli, type CliService } from "./support/cli.js";

const RECEIPT = join(REPO, "examples", "oracle-receipt-parser");
const SUITE = join(REPO, "examples", "suite-mini");
const SOLVE = join(REPO, "examples", "solve-run-length");
/** The pinned Gemini CLI's models (the shipped table has no gemini-3 row): every solve attempt has a cost. */
const PRICES = {
  "gemini-3.1-pro": { input: 2, output: 12 },
  "gemini-3.5-flash-lite": { input: 0.1, output: 0.4 },
  "gemini-2.5-pro": { input: 1.25, output: 10 },
};

type Seen = {
  cases: string[][];
  rates: string[][];
  /** Tasks that fell: the task, its rate's numbers and statistics, the samples named as causes. */
  tasks: string[][];
  times: string[][];
  outputs: string[][];
  /** The cost table's rows: what, before, after, delta (raw numbers). */
  cost: string[][];
  regression: string | null;
};

/** What the compare page shows, in the order it shows it: each case's key, change and statuses, each delta's raw value. */
async function shown(page: Page): Promise<Seen> {
  await page.locator(".compare-verdict").waitFor();
  return page.evaluate(() => {
    const rows = (selector: string, read: (tr: HTMLElement) => string[]) => [...document.querySelectorAll<HTMLElement>(selector)].map(read);
    const cell = (tr: HTMLElement, n: number) => tr.children[n]?.textContent ?? "";
    return {
      cases: rows(".compare-cases tbody tr", (tr) => [
        tr.dataset.task!,
        tr.dataset.sample!,
        tr.dataset.case!,
        tr.dataset.change!,
        cell(tr, 4),
        cell(tr, 5),
        tr.querySelector<HTMLElement>("[data-delta]")!.dataset.delta!,
      ]),
      rates: rows(".compare-rates tbody tr", (tr) => [
        tr.dataset.measure!,
        tr.dataset.scope ?? "",
        ...[...tr.querySelectorAll<HTMLElement>("[data-value], [data-delta], [data-ci95], [data-p], [data-pairs]")].map(
          (td) => td.dataset.value ?? td.dataset.delta ?? td.dataset.ci95 ?? td.dataset.p ?? td.dataset.pairs!,
        ),
      ]),
      tasks: rows(".compare-tasks tbody tr", (tr) => [
        tr.dataset.task!,
        ...[...tr.querySelectorAll<HTMLElement>("[data-value], [data-delta], [data-ci95], [data-p], [data-pairs]")].map(
          (td) => td.dataset.value ?? td.dataset.delta ?? td.dataset.ci95 ?? td.dataset.p ?? td.dataset.pairs!,
        ),
        ...[...tr.querySelectorAll<HTMLElement>("li[data-change]")].map((li) => `${li.dataset.sample} ${li.dataset.change}`),
      ]),
      times: rows(".compare-times tbody tr", (tr) => [
        tr.dataset.time!,
        tr.dataset.task ?? "",
        tr.querySelector<HTMLElement>("[data-delta]")!.dataset.delta!,
      ]),
      outputs: rows(".compare-outputs tbody tr", (tr) => [tr.dataset.field!, tr.dataset.changed!]),
      cost: rows(".compare-cost tbody tr", (tr) => [
        tr.dataset.spend!,
        ...[...tr.querySelectorAll<HTMLElement>("[data-value], [data-delta]")].map((td) => td.dataset.value ?? td.dataset.delta!),
      ]),
      regression: document.querySelector<HTMLElement>(".compare-verdict")!.dataset.regression ?? null,
    };
  });
}

/** A paired delta's numbers as the page's data attributes hold them. */
const statsOf = (d: PairedDelta) => [
  String(d.before),
  String(d.after),
  String(d.delta),
  JSON.stringify(d.ci95),
  String(d.p_value),
  String(d.pairs),
];

/** The same, from `runs diff --json`. */
function expected(c: RunComparison): Seen {
  return {
    cases: c.cases.map((x) => [
      x.task_id,
      x.sample ?? "",
      x.case,
      x.change,
      x.before?.status ?? "–",
      x.after?.status ?? "–",
      String(x.duration_delta_ms),
    ]),
    rates: [["pass_rate", "", ...statsOf(c.pass_rate)], ...c.pass_at_k.map((p) => [`pass@${p.k}`, p.scope, ...statsOf(p)])],
    tasks: c.task_changes
      .filter((t) => t.regression)
      .map((t) => [t.task_id, ...statsOf(t.pass_rate), ...t.causes.map((s) => `${s.sample ?? ""} ${s.change}`)]),
    times: [
      ["run", "", String(c.duration_ms.delta)],
      ...(c.kind === "suite" || c.kind === "solve" ? c.task_durations.map((t) => ["task", t.task_id, String(t.delta)]) : []),
    ],
    outputs: c.outputs.map((o) => [o.field, String(o.changed)]),
    cost: [c.cost_usd.before, c.cost_usd.after, c.tokens.before, c.tokens.after].some((v) => v !== null)
      ? [
          ["cost_usd", String(c.cost_usd.before), String(c.cost_usd.after), String(c.cost_usd.delta)],
          ["tokens", String(c.tokens.before), String(c.tokens.after), String(c.tokens.delta)],
        ]
      : [],
    regression: String(c.regression),
  };
}

describe("comparing runs in Chromium, and a bundle opened from disk", () => {
  const runsDir = mkdtempSync(join(tmpdir(), "skillrig-compare-runs-"));
  const env = { SKILLRIG_RUNS_DIR: runsDir, NO_COLOR: "1" };
  let view: CliService<{ url: string }>;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);
  let stoppedStderr = "";
  const ids: Record<"correct" | "buggy" | "solutions" | "samples" | "jobA" | "jobB" | "solveA" | "solveStopped", string> = {
    solveA: "",
    solveStopped: "",
    correct: "",
    buggy: "",
    solutions: "",
    samples: "",
    jobA: "",
    jobB: "",
  };

  /** Runs a recording command and returns the id of the run it recorded. */
  async function record(args: string[], cwd: string, code: number): Promise<string> {
    const r = await runCli(args, { cwd, env });
    expect(r.code, r.stderr).toBe(code);
    return /recorded in \S+\/([^/\s]+) /.exec(r.stderr)![1]!;
  }

  /** `runs diff --json`: the comparison, or (exit 2) the error's message. */
  async function diff(before: string, after: string): Promise<{ code: number | null; json: RunComparison; error?: string }> {
    const r = await runCli(["runs", "diff", before, after, "--json"], { env });
    const out = JSON.parse(r.stdout);
    return { code: r.code, json: out, error: out.error?.message };
  }

  /** The page at `page` (already on the comparison) against `runs diff --json` of the same runs: they must agree. */
  async function agree(page: Page, before: string, after: string, code: number): Promise<{ seen: Seen; cli: RunComparison }> {
    const cli = await diff(before, after);
    expect(cli.code).toBe(code);
    const seen = await shown(page);
    expect(seen).toEqual(expected(cli.json));
    return { seen, cli: cli.json };
  }

  beforeAll(async () => {
    const project = mkdtempSync(join(tmpdir(), "skillrig-compare-job-"));
    writeFileSync(
      join(project, "skillrig.config.json"),
      JSON.stringify({
        plugins: [join(REPO, "packages/server/test/fixtures/echo-engine.mjs")],
        skills: { roots: [join(REPO, "packages/view/test/fixtures/skills")] },
      }),
    );
    writeFileSync(join(project, "short.txt"), "one two three\n");
    writeFileSync(join(project, "long.txt"), "one two three four five\n");
    const job = (file: string) => ["run", "word-count", "--engine", "echo", "--file", `text_file=${file}`, "--input", "label=text"];
    const solveConfig = join(project, "solve.config.json");
    writeFileSync(
      solveConfig,
      JSON.stringify({
        plugins: [join(REPO, "plugins", "engine-gemini", "dist", "index.js")],
        cost: { prices: PRICES },
        solve: { variants: [{ label: "agent", engine: "gemini", options: { mock_scenario: join(SOLVE, "scenarios", "correct.json") } }] },
      }),
    );
    const solveArgs = ["--config", solveConfig, "solve", "task.json", "--engine", "agent", "--jobs", "1"];
    // Each pair one after the other (the second is the newer run); the three pairs side by side.
    await Promise.all([
      (async () => {
        ids.correct = await record(["test", "task.json", "--deliverable", "correct"], RECEIPT, 0);
        ids.buggy = await record(["test", "task.json", "--deliverable", "buggy"], RECEIPT, 1);
      })(),
      (async () => {
        ids.solutions = await record(["test", "tasks", "--deliverable", "solutions"], SUITE, 0);
        ids.samples = await record(["test", "tasks", "--samples", "samples.jsonl"], SUITE, 1);
      })(),
      (async () => {
        ids.jobA = await record(job("short.txt"), project, 0);
        ids.jobB = await record(job("long.txt"), project, 0);
      })(),
      (async () => {
        ids.solveA = await record(solveArgs, SOLVE, 0);
        // A budget of one token for the batch: the first attempt is capped to it and stopped, the second never starts.
        const stopped = await runCli([...solveArgs, "--attempts", "2", "--max-tokens", "1"], { cwd: SOLVE, env });
        expect(stopped.code, stopped.stderr).toBe(1);
        stoppedStderr = stopped.stderr;
        ids.solveStopped = /recorded in \S+\/([^/\s]+) /.exec(stopped.stderr)![1]!;
      })(),
    ]);
    view = await startCli(["view", "--port", "0", "--json"], { env });
    browser = await launchChromium();
  }, 300_000);

  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  afterAll(async () => {
    await view?.stop();
    await browser?.close();
  });

  it("picks two runs in the runs list; the page and runs diff agree on a deliverable that broke cases", async () => {
    const w = await pages.open(view.info.url, "#/");
    const { page } = w;
    await page.locator(`tr[data-run="${ids.buggy}"]`).waitFor();
    await expect(page.locator(".compare-bar a").count()).resolves.toBe(0);
    // Newer first in the list; the page puts the older one before.
    await page.locator(`input[name=compare][value="${ids.buggy}"]`).check();
    await page.locator(`input[name=compare][value="${ids.correct}"]`).check();
    await page.locator(".compare-bar a", { hasText: "Compare" }).click();
    await page.waitForURL(`**#/compare/${ids.correct}/${ids.buggy}`);
    const { seen, cli } = await agree(page, ids.correct, ids.buggy, 1);
    expect(seen.regression).toBe("true");
    expect(seen.cases.filter((c) => c[3] === "regression").length).toBeGreaterThan(0);
    // Changed cases first: every regression before the first unchanged case.
    expect(seen.cases.findIndex((c) => c[3] === "same")).toBe(cli.counts.regressions);
    await w.shot("compare-test");

    // "changed only": the unchanged cases go.
    await page.locator("input[name=changed-only]").check();
    const changed = await shown(page);
    expect(changed.cases).toEqual(expected(cli).cases.filter((c) => c[3] !== "same"));
    expect(changed.cases).toHaveLength(cli.counts.changed);
  });

  it("a suite graded twice with different samples: samples, pass@k per task and over the suite, task times", async () => {
    const w = await pages.open(view.info.url, `#/compare/${ids.solutions}/${ids.samples}`);
    // any-int's new sample is wrong: the task fell, so runs diff exits 1 and the page names the task and the sample.
    const { seen } = await agree(w.page, ids.solutions, ids.samples, 1);
    expect(seen.regression).toBe("true");
    expect(seen.tasks.map((t) => [t[0], t.at(-1)])).toEqual([["any-int", "2 new"]]);
    expect(seen.rates.map((r) => `${r[0]} ${r[1]}`)).toEqual([
      "pass_rate ",
      "pass@1 all",
      "pass@1 any-int",
      "pass@1 big-sum",
      "pass@1 run-length",
    ]);
    expect(seen.rates.find((r) => r[1] === "any-int")).toEqual(["pass@1", "any-int", "1", "0.5", "-0.5", "null", "null", "0"]);
    // Over the suite the interval and p-value are paired by task (3 tasks).
    expect(seen.rates.find((r) => r[1] === "all")!.at(-1)).toBe("3");
    expect(seen.cases.some((c) => c[3] === "added" && c[1] === "2")).toBe(true);
    await w.shot("compare-suite");
  });

  it("two jobs of a skill: status and output fields; runs of different kinds are refused with the CLI's reason", async () => {
    const w = await pages.open(view.info.url, `#/compare/${ids.jobA}/${ids.jobB}`);
    const { seen } = await agree(w.page, ids.jobA, ids.jobB, 0);
    expect(seen.outputs).toContainEqual(["words", "true"]);
    expect(seen.outputs).toContainEqual(["label", "false"]);

    const refused = await diff(ids.correct, ids.samples);
    expect(refused.code).toBe(2);
    const other = await pages.open(view.info.url, `#/compare/${ids.correct}/${ids.samples}`);
    const problem = other.page.locator(".compare-problem");
    await problem.waitFor();
    const message = "cannot compare a one-task test report (before) with a suite report (after)";
    expect(refused.error).toBe(message);
    expect(await problem.textContent()).toBe(`these runs cannot be compared: ${message}`);
  });

  it("two solve batches' cost and tokens: the page and runs diff agree; the budget-stopped batch shows its not_run attempt", async () => {
    expect(stoppedStderr).toContain("error[cost_limit]: the solve batch stopped: the invocation's token budget is spent");
    const w = await pages.open(view.info.url, `#/compare/${ids.solveA}/${ids.solveStopped}`);
    const { seen, cli } = await agree(w.page, ids.solveA, ids.solveStopped, 1);
    expect(cli.cost_usd.before).toBeGreaterThan(0);
    expect(cli.tokens.before).toBeGreaterThan(0);
    // The stopped batch's one attempt ran until its first model call: it used fewer tokens, and cost less.
    expect(cli.tokens.delta).toBeLessThan(0);
    expect(cli.cost_usd.delta).toBeLessThan(0);
    expect(seen.cost.map((r) => r[0])).toEqual(["cost_usd", "tokens"]);
    await w.shot("compare-cost");

    // A test report has no cost: no cost table.
    const tests = await pages.open(view.info.url, `#/compare/${ids.correct}/${ids.buggy}`);
    expect((await shown(tests.page)).cost).toEqual([]);

    // The stopped batch's own page: attempt 2 not run, for cost_limit.
    const run = await pages.open(view.info.url, `#/run/${ids.solveStopped}`);
    const notRun = run.page.locator("button.cell.s-not_run");
    await notRun.waitFor();
    expect(await notRun.textContent()).toContain("#2 not_run");
    expect(await notRun.getAttribute("title")).toMatch(/^not run: the invocation's token budget is spent/);
  });

  it("a bundle of the runs opens from file:// with no server: the runs, a run, a job's artifact, a comparison", async () => {
    await view.stop();
    const out = join(mkdtempSync(join(tmpdir(), "skillrig-bundle-")), "site");
    const chosen = Object.values(ids);
    const args = ["view", "--bundle", out, ...chosen.flatMap((id) => ["--run", id]), "--json"];
    const written = await runCli(args, { env });
    expect(written.code, written.stderr).toBe(0);
    const result = JSON.parse(written.stdout) as { index: string; runs: string[]; url: string; left_out: unknown[] };
    expect(result.runs).toEqual(chosen);
    expect(result.left_out).toEqual([]);
    expect(readdirSync(out).sort()).toEqual(["assets", "data.js", "index.html"]);

    // A folder that is not empty is refused unless --force; --force writes over what a bundle writes only.
    const again = await runCli(args, { env });
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout).error).toMatchObject({ code: "usage", message: `--bundle "${out}" exists and is not empty` });
    mkdirSync(join(out, "mine"));
    expect((await runCli([...args, "--force"], { env })).code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["assets", "data.js", "index.html", "mine"]);
    const unknown = await runCli(["view", "--bundle", join(out, "..", "other"), "--run", "nope"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--run "nope": no recorded run with that id');

    // Chromium on the file itself: nothing may be requested but the bundle's files and data: URLs.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("request", (r) => {
      if (!r.url().startsWith(pathToFileURL(out).href) && !r.url().startsWith("data:")) problems.push(`request: ${r.url()}`);
    });
    page.on("requestfailed", (r) => problems.push(`failed request: ${r.url()} ${r.failure()?.errorText}`));
    const index = pathToFileURL(result.index).href;
    expect(result.url).toBe(index);
    try {
      await page.goto(`${index}#/`);
      await page.locator(`tr[data-run="${ids.correct}"]`).waitFor();
      expect(await page.locator("tr[data-run]").count()).toBe(chosen.length);
      await expect(page.locator("nav a", { hasText: "jobs server" }).count()).resolves.toBe(0);

      // A test run's page: the case table from the embedded report.
      await page.locator(`tr[data-run="${ids.buggy}"] a`).click();
      const failed = page.locator('tr.case-row[data-status="failed"]', { hasText: "contract example" });
      await failed.waitFor();
      // Its detail opens, from the embedded report.
      await failed.locator("button").click();
      await page.locator(".case-detail-row").waitFor();

      // A job's page: its inputs from run.json and its artifact, both embedded.
      await page.goto(`${index}#/run/${ids.jobB}`);
      const artifact = page.locator('[data-artifact="report.txt"]');
      await artifact.locator("button", { hasText: "preview" }).click();
      await artifact.locator("pre").waitFor();
      expect(await artifact.locator("pre").textContent()).toBe("text: 5 words\n");
      await page.getByText('"label": "text"').first().waitFor();

      // The comparison, as runs diff says it.
      await page.goto(`${index}#/compare/${ids.correct}/${ids.buggy}`);
      await agree(page, ids.correct, ids.buggy, 1);
      await page.screenshot({ path: join(SCREENSHOTS, "bundle-compare.png"), fullPage: true });

      // Pages that need a server say so.
      await page.goto(`${index}#/server`);
      await page.getByText("it is not part of a bundle").waitFor();
    } finally {
      await context.close();
    }
    expect(problems).toEqual([]);

    // The same files from a plain static server (sirv, what the view server serves its assets with; no CSP header).
    const host = createServer(sirv(out, { dev: true }));
    await new Promise<void>((ok) => host.listen(0, "127.0.0.1", ok));
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}/`;
    try {
      const w = await pages.open(base, `index.html#/compare/${ids.solutions}/${ids.samples}`);
      await agree(w.page, ids.solutions, ids.samples, 1);
    } finally {
      host.closeAllConnections();
      await new Promise((ok) => host.close(ok));
    }
  });
});
