/**
 * Issue 39 in Chromium, on eval iterations `skillrig eval` records in this test (the real Gemini CLI against the mock
 * model, packages/evals' csv-total fixture): a first iteration with no gate (finished, never passed), then one whose
 * agent got worse, under `--fail-on regression`. The iteration page's delta statistics are benchmark.json's, the
 * comparison page's pass rates and statistics are the CLI's (`--json`'s comparison, comparison.json), and the runs
 * list badges the ungated iteration `finished`.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Benchmark, IterationComparison, PairedDelta } from "@skillrig/evals/format";
import { launchChromium, OpenedPages } from "./support/browser.js";
import { REPO, runCli, startCli, type CliService } from "./support/cli.js";

const fixture = join(REPO, "packages/evals/test/fixtures/eval-run");
const statsOf = (d: PairedDelta) => [JSON.stringify(d.ci95), String(d.p_value), String(d.pairs)];

/** The statistics cells of the rows of a table: `[row key, ci95, p, pairs]`. */
function statsCells(page: Page, rows: string, key: string): Promise<string[][]> {
  return page.evaluate(
    ([rows, key]) =>
      [...document.querySelectorAll<HTMLElement>(rows)].map((tr) => [
        tr.getAttribute(key) ?? "",
        tr.querySelector<HTMLElement>("[data-ci95]")!.dataset.ci95!,
        tr.querySelector<HTMLElement>("[data-p]")!.dataset.p!,
        tr.querySelector<HTMLElement>("[data-pairs]")!.dataset.pairs!,
      ]),
    [rows, key] as const,
  );
}

describe("eval statistics in Chromium agree with skillrig eval's files", () => {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-eval-stats-"));
  const runsDir = join(dir, "runs");
  let view: CliService<{ url: string }>;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);
  let comparison: IterationComparison;
  const iteration = (n: number) => join(runsDir, "eval-csv-total", `iteration-${n}`);

  beforeAll(async () => {
    cpSync(join(fixture, "csv-total"), join(dir, "skills", "csv-total"), { recursive: true });
    const config = (scenario: string) => ({
      plugins: [
        [join(REPO, "plugins/engine-gemini/dist/index.js"), { approval_mode: "yolo", mock_scenario: scenario, timeout_ms: 120000 }],
      ],
      skills: { roots: ["skills"] },
      runs_dir: "runs",
    });
    writeFileSync(join(dir, "good.json"), JSON.stringify(config(join(fixture, "scenario.json"))));
    const worse = JSON.parse(readFileSync(join(fixture, "scenario.json"), "utf8"));
    worse.branches[0].turns[1].write_file.content = "41\n";
    worse.branches[0].turns[2].text = "The total amount is 41.";
    writeFileSync(join(dir, "worse.scenario.json"), JSON.stringify(worse));
    writeFileSync(join(dir, "worse.json"), JSON.stringify(config(join(dir, "worse.scenario.json"))));
    const eval1 = await runCli(["--config", "good.json", "eval", "csv-total", "--no-triggers", "--jobs", "2"], { cwd: dir });
    expect(eval1.code, eval1.stderr).toBe(0);
    const eval2 = await runCli(
      ["--json", "--config", "worse.json", "eval", "csv-total", "--no-triggers", "--jobs", "2", "--fail-on", "regression"],
      {
        cwd: dir,
      },
    );
    expect(eval2.code, eval2.stderr).toBe(1);
    comparison = JSON.parse(eval2.stdout).comparison;
    expect(JSON.parse(readFileSync(join(iteration(2), "comparison.json"), "utf8"))).toEqual(comparison);
    view = await startCli(["view", "--port", "0", "--json"], { cwd: dir, env: { SKILLRIG_RUNS_DIR: runsDir } });
    browser = await launchChromium();
  }, 400_000);

  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  afterAll(async () => {
    await view?.stop();
    await browser?.close();
  });

  it("the runs list: the ungated iteration is finished, the gated one failed", async () => {
    const w = await pages.open(view.info.url, "#/");
    const rows = w.page.locator("tr[data-run]");
    await rows.first().waitFor();
    const status = async (id: string) => w.page.locator(`tr[data-run="${id}"] .status`).first().innerText();
    expect(await status("eval-csv-total/iteration-1")).toBe("finished");
    expect(await status("eval-csv-total/iteration-2")).toBe("failed");
  });

  it("an iteration's delta: the interval, p-value and pairs of benchmark.json", async () => {
    const benchmark = JSON.parse(readFileSync(join(iteration(1), "benchmark.json"), "utf8")) as Benchmark;
    const w = await pages.open(view.info.url, "#/eval/eval-csv-total/1");
    await w.page.locator("table[data-table=delta] tbody tr").first().waitFor();
    const seen = await statsCells(w.page, "table[data-table=delta] tbody tr", "data-scope");
    expect(seen).toEqual([
      ["all engines", ...statsOf(benchmark.run_summary.delta!.paired!.pass_rate)],
      ["gemini", ...statsOf(benchmark.by_engine.gemini!.delta!.paired!.pass_rate)],
    ]);
    await w.shot("eval-stats-iteration");
  });

  it("two iterations compared: each configuration's pass rate and statistics are the CLI's comparison", async () => {
    const w = await pages.open(view.info.url, "#/eval/eval-csv-total/compare/1/2");
    await w.page.locator("table[data-table=pass-rate-change] tbody tr").first().waitFor();
    const seen = await w.page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("table[data-table=pass-rate-change] tbody tr")].map((tr) => [
        tr.dataset.configuration!,
        tr.dataset.engine!,
        ...[...tr.querySelectorAll<HTMLElement>("[data-value], [data-delta], [data-ci95], [data-p], [data-pairs]")].map(
          (td) => td.dataset.value ?? td.dataset.delta ?? td.dataset.ci95 ?? td.dataset.p ?? td.dataset.pairs!,
        ),
      ]),
    );
    expect(seen).toEqual(
      comparison.configurations.map((r) => [
        r.configuration,
        r.engine ?? "all",
        String(r.pass_rate.before),
        String(r.pass_rate.after),
        String(r.pass_rate.delta),
        ...statsOf(r.pass_rate),
      ]),
    );
    expect(seen[0]!.slice(0, 5)).toEqual(["with_skill", "all", "0.6667", "0", "-0.6667"]);
    const verdict = w.page.locator(".compare-verdict").first();
    expect(await verdict.getAttribute("data-regression")).toBe("true");
    expect(await verdict.innerText()).toBe("a case's with_skill pass rate fell (could be noise)");
    await w.shot("eval-stats-compare");
  });
});
