/**
 * Issue 44's trends and shareable evals in Debian's Chromium, on runs this test records itself: three `skillrig test`
 * runs of the receipt parser (correct, buggy, correct) and two iterations of `skillrig eval` on the real Gemini CLI
 * against the mock model (packages/evals' csv-total fixture: a good agent, then a worse one). A trend's points are
 * links to their runs, a rate says its n and a delta its interval; then a bundle of those runs, eval iterations
 * included, opens from file:// (an iteration, a run's output, the comparison of the two, the trends), says what it
 * left out, and holds no absolute path of this machine. Screenshots of the trends, light and dark, for docs/view.md.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Benchmark } from "@skillrig/evals/format";
import { launchChromium, OpenedPages, SCREENSHOTS } from "./support/browser.js";
import { REPO, runCli, startCli, type CliService } from "./support/cli.js";

const EVAL_FIXTURE = join(REPO, "packages/evals/test/fixtures/eval-run");
const RECEIPT = join(REPO, "examples", "oracle-receipt-parser");

/** Every file under `dir`, recursively, as text. */
function filesUnder(dir: string): Array<[string, string]> {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => [path, readFileSync(path, "latin1")]);
}

/** The trend's points as the chart draws them: each link's target, in the order drawn. */
function pointLinks(page: Page, unit: string): Promise<string[]> {
  return page
    .locator(`figure.trend-chart[data-unit="${unit}"] svg a`)
    .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? a.getAttribute("xlink:href") ?? ""));
}

/** Clicks the point that links `href` (Plot writes the link as xlink:href, which a CSS attribute selector does not match). */
async function clickPoint(page: Page, unit: string, href: string): Promise<void> {
  const links = await pointLinks(page, unit);
  expect(links).toContain(href);
  await page.locator(`figure.trend-chart[data-unit="${unit}"] svg a`).nth(links.indexOf(href)).click();
}

async function shootTrend(page: Page, name: string): Promise<void> {
  const trend = page.locator("details.trend");
  await trend.locator("svg").first().waitFor();
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await trend.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

describe("trends and a bundle with evals, in Chromium", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillrig-trends-")));
  const runsDir = join(dir, "runs");
  const env = { SKILLRIG_RUNS_DIR: runsDir, NO_COLOR: "1" };
  const tests: string[] = [];
  let view: CliService<{ url: string }>;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);

  async function recordTest(deliverable: string, code: number): Promise<void> {
    const r = await runCli(["test", "task.json", "--deliverable", deliverable], { cwd: join(dir, "receipt"), env });
    expect(r.code, r.stderr).toBe(code);
    tests.push(/recorded in \S+\/([^/\s]+) /.exec(r.stderr)![1]!);
  }

  async function recordEvals(): Promise<void> {
    const config = (scenario: string) => ({
      plugins: [
        [join(REPO, "plugins/engine-gemini/dist/index.js"), { approval_mode: "yolo", mock_scenario: scenario, timeout_ms: 120000 }],
      ],
      skills: { roots: ["skills"] },
      runs_dir: "runs",
    });
    writeFileSync(join(dir, "good.json"), JSON.stringify(config(join(EVAL_FIXTURE, "scenario.json"))));
    const worse = JSON.parse(readFileSync(join(EVAL_FIXTURE, "scenario.json"), "utf8"));
    worse.branches[0].turns[1].write_file.content = "41\n";
    worse.branches[0].turns[2].text = "The total amount is 41.";
    writeFileSync(join(dir, "worse.scenario.json"), JSON.stringify(worse));
    writeFileSync(join(dir, "worse.json"), JSON.stringify(config(join(dir, "worse.scenario.json"))));
    for (const [file, code] of [
      ["good.json", 0],
      ["worse.json", 0],
    ] as const) {
      const r = await runCli(["--config", file, "eval", "csv-total", "--no-triggers", "--jobs", "2"], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(code);
    }
  }

  beforeAll(async () => {
    cpSync(join(EVAL_FIXTURE, "csv-total"), join(dir, "skills", "csv-total"), { recursive: true });
    cpSync(RECEIPT, join(dir, "receipt"), { recursive: true });
    await Promise.all([
      (async () => {
        await recordTest("correct", 0);
        await recordTest("buggy", 1);
        await recordTest("correct", 0);
      })(),
      recordEvals(),
    ]);
    view = await startCli(["view", "--port", "0", "--json"], { cwd: dir, env });
    browser = await launchChromium();
  }, 600_000);

  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  afterAll(async () => {
    await view?.stop();
    await browser?.close();
  });

  it("a task's trend: a point per run, each a link to its run, each rate with its n", async () => {
    const w = await pages.open(view.info.url, `#/run/${tests[1]}`);
    const { page } = w;
    await page.locator("details.trend svg").first().waitFor();
    expect(await pointLinks(page, "rate")).toEqual(tests.map((id) => `#/run/${id}`));
    const rows = page.locator('table[data-table="trend"] tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((t) => t.getAttribute("data-run")))).toEqual(tests);
    const cells = await page.locator('table[data-table="trend"] td[data-series="pass_rate"]').allInnerTexts();
    expect(cells[0]).toMatch(/^100% \(n = \d+ cases\)$/);
    expect(cells[1]).toMatch(/^\d+(\.\d)?% \(n = \d+ cases\)$/);
    expect(cells[1]).not.toMatch(/^100%/);
    await shootTrend(page, "trend-task");
    // A point opens its run.
    await clickPoint(page, "rate", `#/run/${tests[0]}`);
    await page.waitForURL(new RegExp(`#/run/${tests[0]}$`));
    await page.getByRole("heading", { name: /test/ }).waitFor();
  });

  it("an eval's trend: each configuration's pass rate with its runs, the delta with its interval, points opening iterations", async () => {
    const benchmark = (n: number) =>
      JSON.parse(readFileSync(join(runsDir, "eval-csv-total", `iteration-${n}`, "benchmark.json"), "utf8")) as Benchmark;
    const w = await pages.open(view.info.url, "#/eval/eval-csv-total");
    const { page } = w;
    await page.locator("details.trend svg").first().waitFor();
    expect(await pointLinks(page, "delta")).toEqual(["#/eval/eval-csv-total/1", "#/eval/eval-csv-total/2"]);
    for (const n of [1, 2]) {
      const delta = benchmark(n).run_summary.delta!;
      const ci = delta.paired!.pass_rate.ci95;
      const cell = await page
        .locator(`table[data-table="trend"] tr[data-run="eval-csv-total/iteration-${n}"] td[data-series="delta"]`)
        .innerText();
      expect(cell).toContain(ci ? "95% CI" : "n =");
      expect(cell).toContain(`n = ${delta.paired!.pass_rate.pairs} eval cases`);
      const rate = await page
        .locator(`table[data-table="trend"] tr[data-run="eval-csv-total/iteration-${n}"] td[data-series="with_skill"]`)
        .innerText();
      const runs = (benchmark(n).run_summary.with_skill as { runs: number }).runs;
      expect(rate).toMatch(new RegExp(`\\(n = ${runs} runs\\)$`));
    }
    await shootTrend(page, "trend-eval");
    await clickPoint(page, "delta", "#/eval/eval-csv-total/2");
    await page.waitForURL(/#\/eval\/eval-csv-total\/2$/);
    await page.locator("table[data-table=delta] tbody tr").first().waitFor();
  });

  it("a bundle with the eval iterations opens from file://, says what it left out, and holds no absolute path of this machine", async () => {
    await view.stop();
    // The recorded runs do name this machine's folders (tracebacks, the skill's path): the bundle must not.
    const raw = filesUnder(runsDir).filter(([, text]) => text.includes(dir));
    expect(raw.length).toBeGreaterThan(0);

    const out = join(mkdtempSync(join(tmpdir(), "skillrig-trends-bundle-")), "site");
    const written = await runCli(["view", "--bundle", out, "--json"], { cwd: dir, env });
    expect(written.code, written.stderr).toBe(0);
    const result = JSON.parse(written.stdout) as { index: string; runs: string[]; left_out: unknown[] };
    expect(result.runs).toEqual(expect.arrayContaining([...tests, "eval-csv-total/iteration-1", "eval-csv-total/iteration-2"]));
    expect(result.left_out).toEqual([]);
    for (const [path, text] of filesUnder(out)) {
      for (const machine of [dir, runsDir, REPO, `${tmpdir()}/`, `${realpathSync(tmpdir())}/`])
        expect(text.includes(machine), `${path} holds ${machine}`).toBe(false);
      if (path.endsWith("data.js")) expect(text.includes(`${homedir()}/`), `${path} holds the home folder`).toBe(false);
    }

    // Chromium on the file itself: nothing may be requested but the bundle's files and data: URLs.
    const site = pathToFileURL(out).href;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("request", (r) => {
      if (!r.url().startsWith(site) && !r.url().startsWith("data:")) problems.push(`request: ${r.url()}`);
    });
    try {
      await page.goto(`${site}/index.html#/eval/eval-csv-total/2`);
      await page.locator("table[data-table=delta] tbody tr").first().waitFor();
      // A run of the iteration, and its output file, from the bundle.
      await page.click('td[data-cell="1/with_skill/gemini"] button');
      const run = page.locator("section[data-run]");
      await run.locator('table[data-table="assertions"] tbody tr').first().waitFor();
      await run.locator('li[data-output="total.txt"] button').click();
      const shown = run.locator('li[data-output="total.txt"] [data-field="output-text"]');
      await shown.waitFor();
      expect((await shown.innerText()).trim()).toBe("41");
      await page.screenshot({ path: join(SCREENSHOTS, "bundle-eval-iteration.png"), fullPage: true });

      // The two iterations compared, and the eval's trend, from the bundle.
      await page.goto(`${site}/index.html#/eval/eval-csv-total/compare/1/2`);
      await page.locator("table[data-table=pass-rate-change] tbody tr").first().waitFor();
      await page.goto(`${site}/index.html#/eval/eval-csv-total`);
      await page.locator("details.trend svg").first().waitFor();
      expect(await pointLinks(page, "delta")).toEqual(["#/eval/eval-csv-total/1", "#/eval/eval-csv-total/2"]);
      // A task's trend from the bundle too, over the bundled runs.
      await page.goto(`${site}/index.html#/run/${tests[2]}`);
      await page.locator("details.trend svg").first().waitFor();
      expect(await pointLinks(page, "rate")).toEqual(tests.map((id) => `#/run/${id}`));
    } finally {
      await context.close();
    }
    expect(problems).toEqual([]);
  });
});
