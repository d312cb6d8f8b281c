/**
 * The iteration page in Debian's Chromium for an iteration with the third arm and neighbours: benchmark.json built by
 * @skillrig/evals' buildBenchmark over with_skill, without_skill and inline_skill runs, triggers.json with a
 * confusion table built by confusionTables. The page shows the third arm, each pair's delta with its interval, what
 * the inline prompt carried, and the confusion table with n.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBenchmark, confusionTables } from "@skillrig/evals";
import type { BenchmarkRun, Configuration, IterationRecord, TriggerReport } from "@skillrig/evals/format";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, type RunningView } from "@skillrig/view";
import { launchChromium, OpenedPages } from "./support/browser.js";

const CONFIGURATIONS: Configuration[] = ["with_skill", "without_skill", "inline_skill"];
// Per case: with_skill and inline_skill pass, without_skill fails; on case 2 inline_skill fails too.
const PASS: Record<Configuration, [number, number]> = {
  with_skill: [1, 1],
  without_skill: [0, 0],
  inline_skill: [1, 0],
  old_skill: [0, 0],
};

function writeIteration(runsDir: string): void {
  const dir = join(runsDir, "eval-csv-total", "iteration-1");
  mkdirSync(dir, { recursive: true });
  const runs: BenchmarkRun[] = [1, 2].flatMap((id) =>
    CONFIGURATIONS.map((configuration) => {
      const pass = PASS[configuration][id - 1]!;
      return {
        eval_id: id,
        configuration,
        engine: "gemini",
        run_number: 1,
        path: `eval-${id}/${configuration}`,
        result: {
          status: "succeeded",
          pass_rate: pass,
          passed: pass,
          failed: 1 - pass,
          total: 1,
          time_seconds: 2,
          tokens: 100,
          cost_usd: null,
        },
      };
    }),
  );
  const metadata = {
    skill_name: "csv-total",
    skill_path: "/skills/csv-total",
    iteration: 1,
    timestamp: "2026-12-02T07:00:00Z",
    engines: ["gemini"],
    configurations: CONFIGURATIONS,
    evals_run: [1, 2],
    runs_per_configuration: 1,
  };
  const record: IterationRecord = {
    format: "skillrig-eval-iteration",
    version: 1,
    skill_name: "csv-total",
    skill_path: "/skills/csv-total",
    iteration: 1,
    started_at: metadata.timestamp,
    finished_at: "2026-12-02T07:05:00Z",
    engines: ["gemini"],
    configurations: CONFIGURATIONS,
    runs_per_configuration: 1,
    status: "finished",
    inline_skill: {
      files: [
        { path: "SKILL.md", bytes: 400 },
        { path: "references/format.md", bytes: 120 },
      ],
      bytes: 520,
      max_bytes: 262144,
      left_out: [{ path: "evals/evals.json", reason: "in the skill's evals/ folder, which the agent never sees" }],
    },
    distractors_path: "/skills/neighbours",
  };
  const own = { engine: "gemini", fired: ["csv-total", "csv-total", "csv-average"] };
  const theirs = { owner: "csv-average", engine: "gemini", fired: ["csv-average", "csv-total", null] };
  const triggers: TriggerReport = {
    format: "skillrig-trigger-report",
    version: 1,
    skill_name: "csv-total",
    runs_per_query: 3,
    threshold: 0.5,
    queries: [
      {
        query: "add up the amounts",
        should_trigger: true,
        split: "train",
        engine: "gemini",
        triggers: 2,
        runs: 3,
        trigger_rate: 0.6667,
        trigger_rate_ci95: [0.2077, 0.9385],
        passed: true,
        jobs: ["j1", "j2", "j3"],
        fired: own.fired,
      },
    ],
    summary: { gemini: { train: { passed: 1, total: 1 }, validation: { passed: 0, total: 0 } } },
    distractors: {
      skills: [{ name: "csv-average", path: "/skills/neighbours/csv-average", queries: 1 }],
      queries: [{ query: "the mean amount?", runs: 3, jobs: ["j4", "j5", "j6"], ...theirs }],
      confusion: confusionTables({
        skillName: "csv-total",
        neighbours: ["csv-average"],
        engines: ["gemini"],
        own: [own],
        neighbourQueries: [theirs],
      }),
    },
  };
  writeFileSync(join(dir, "iteration.json"), JSON.stringify(record));
  writeFileSync(join(dir, "benchmark.json"), JSON.stringify(buildBenchmark({ metadata, runs })));
  writeFileSync(join(dir, "triggers.json"), JSON.stringify(triggers));
}

describe("skillrig view: the third arm and neighbours on an iteration page", () => {
  let view: RunningView;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);

  beforeAll(async () => {
    const runsDir = mkdtempSync(join(tmpdir(), "skillrig-view-inline-"));
    writeIteration(runsDir);
    view = await startViewServer({ runsDir, port: 0 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    expect(await pages.closeAll()).toEqual([]);
    await browser?.close();
    await view?.close();
  });

  it("shows inline_skill in the matrix, what its prompt carried, each pair's delta and the confusion table", async () => {
    const w = await pages.open(view.url, "#/eval/eval-csv-total/1");
    const { page } = w;
    const pairs = page.locator('table[data-table="pair-deltas"] tbody tr[data-scope="all engines"]');
    await pairs.first().waitFor();
    expect(await pairs.evaluateAll((trs) => trs.map((t) => t.getAttribute("data-pair")))).toEqual([
      "with_skill - inline_skill",
      "with_skill - without_skill",
      "inline_skill - without_skill",
    ]);
    // with_skill - inline_skill: +50 pts over 2 paired cases; inline_skill - without_skill: +50 pts.
    const first = pairs.first();
    expect(await first.locator('[data-delta="pass_rate"]').innerText()).toMatch(/\+50/);
    expect(await first.locator("[data-pairs]").getAttribute("data-pairs")).toBe("2");
    expect(await page.locator('[data-field="inline-skill"]').innerText()).toMatch(
      /SKILL\.md \(400 B\), references\/format\.md \(120 B\) · 520 of at most 262144 bytes · left out: evals\/evals\.json/,
    );
    expect(await page.locator("main").innerText()).toContain("inline_skill");
    const rows = page.locator('table[data-table="confusion"] tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((t) => t.getAttribute("data-owner")))).toEqual(["csv-total", "csv-average"]);
    const cells = (owner: string) =>
      page
        .locator(`table[data-table="confusion"] tr[data-owner="${owner}"] td.num`)
        .evaluateAll((tds) => tds.map((td) => (td as HTMLElement).innerText.trim()));
    expect(await cells("csv-total")).toEqual(["2", "1", "0", "3"]);
    expect(await cells("csv-average")).toEqual(["1", "1", "1", "3"]);
    expect(await page.locator('[data-count="picked"]').innerText()).toMatch(/^2\/3/);
    expect(await page.locator('[data-count="fired_on_neighbours"]').innerText()).toMatch(/^1\/3/);
    await w.shot("eval-inline-distractors");
  });
});
