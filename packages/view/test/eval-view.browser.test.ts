/**
 * The eval pages of `skillrig view` in Debian's Chromium, over eval folders written as `skillrig eval` writes them
 * (test/support/fixture-evals.ts: two iterations, two engines, with and without the skill, a failed run, trigger
 * results, a hostile outputs/ file, a broken benchmark.json). The numbers asserted are the ones worked out by hand
 * in the fixture's comments. Every page is checked for console errors and off-host requests.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, type RunningView } from "@skillrig/view";
import { launchChromium, OpenedPages, type WatchedPage } from "./support/browser.js";
import { A, B, BROKEN_ID, C, EVAL_ID, HOSTILE_HTML, HOSTILE_RUN, Q1, Q2, Q4, writeFixtureEvals } from "./support/fixture-evals.js";

describe("skillrig view's eval pages in Chromium", () => {
  let view: RunningView;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);

  const open = (hash: string) => pages.open(view.url, hash);
  const text = (w: WatchedPage, selector: string) => w.page.locator(selector).first().innerText();

  beforeAll(async () => {
    const runsDir = mkdtempSync(join(tmpdir(), "skillrig-view-eval-pages-"));
    const outside = join(mkdtempSync(join(tmpdir(), "skillrig-secret-")), "secret.txt");
    writeFileSync(outside, "do not serve me");
    writeFixtureEvals(runsDir, outside);
    view = await startViewServer({ runsDir, port: 0 });
    browser = await launchChromium();
  });

  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await view?.close();
  });

  it("lists eval iterations as their own kind, newest first, each linking to its iteration page", async () => {
    const w = await open("#/");
    const { page } = w;
    await page.selectOption("select[name=kind]", "eval");
    const rows = page.locator("table.runs tbody tr");
    await expect
      .poll(() => rows.evaluateAll((trs) => trs.map((t) => t.getAttribute("data-run"))))
      .toEqual([`${EVAL_ID}/iteration-2`, `${EVAL_ID}/iteration-1`, `${BROKEN_ID}/iteration-1`]);
    expect(await rows.first().innerText()).toMatch(/eval\s+top-months iteration-2\s+gemini, codex[\s\S]*passed\s+87\.5%/);
    await w.shot("eval-runs-list");
    await rows.first().locator("a").click();
    await page.waitForURL(new RegExp(`#/eval/${EVAL_ID}/2$`));
    await page.getByRole("heading", { name: /top-months · iteration 2/ }).waitFor();
  });

  it("shows an iteration: the delta per engine, the case matrix, a run's assertions and outputs, trigger rates", async () => {
    const w = await open(`#/eval/${EVAL_ID}/2`);
    const { page } = w;
    await page.locator('table[data-table="delta"] tr[data-scope="all engines"]').waitFor();
    const all = 'table[data-table="delta"] tr[data-scope="all engines"]';
    expect(await text(w, `${all} td[data-configuration="with_skill"]`)).toMatch(/^87\.5% ± 25\.0%/);
    expect(await text(w, `${all} td[data-configuration="without_skill"]`)).toMatch(/^0% ± 0%/);
    expect(await text(w, `${all} td[data-delta="pass_rate"]`)).toBe("+87.5 pp");
    expect(await text(w, `${all} td[data-delta="time"]`)).toBe("+10.0 s");
    expect(await text(w, `${all} td[data-delta="tokens"]`)).toBe("+3000");
    // Cost per configuration (a dollar per million tokens in the fixture) and its delta per run.
    expect(await text(w, `${all} [data-cost="with_skill"]`)).toBe("$0.0160 ($0.0040 / run)");
    expect(await text(w, `${all} td[data-delta="cost"]`)).toBe("+$0.0030");
    expect(await text(w, 'table[data-table="delta"] tr[data-scope="gemini"] td[data-delta="pass_rate"]')).toBe("+100.0 pp");
    expect(await text(w, 'table[data-table="delta"] tr[data-scope="codex"] td[data-delta="pass_rate"]')).toBe("+75.0 pp");

    expect(await text(w, 'td[data-cell="1/with_skill/codex"]')).toMatch(/^50\.0% \(1\/2\)\s+1 run\(s\) · 20\.0 s · 4000 tokens$/);
    expect(await text(w, 'td[data-cell="1/with_skill/all"]')).toBe("75.0%");
    expect(await text(w, 'td[data-cell="1/without_skill/all"]')).toBe("0%");
    expect(await text(w, 'td[data-cell="2/with_skill/all"]')).toBe("100%");

    // Triggers: per query and engine, and per engine and split.
    expect(await text(w, `table[data-table="triggers"] tr[data-query="${Q2}"] td[data-engine="gemini"]`)).toMatch(
      /^33\.3% \(1\/3\) failed$/,
    );
    expect(await text(w, `table[data-table="triggers"] tr[data-query="${Q2}"]`)).toMatch(/yes\s+validation/);
    expect(await text(w, `table[data-table="triggers"] tr[data-query="${Q4}"] td[data-engine="gemini"]`)).toMatch(
      /^33\.3% \(1\/3\) passed$/,
    );
    expect(await text(w, `table[data-table="triggers"] tr[data-query="${Q1}"] td[data-engine="codex"]`)).toMatch(/^100% \(3\/3\) passed$/);
    expect(await text(w, 'table[data-table="trigger-splits"] tr[data-engine="gemini"] td[data-split="train"]')).toBe("2/2");
    expect(await text(w, 'table[data-table="trigger-splits"] tr[data-engine="gemini"] td[data-split="validation"]')).toBe("1/2");
    expect(await text(w, 'table[data-table="trigger-splits"] tr[data-engine="codex"] td[data-split="validation"]')).toBe("2/2");

    // A cell opens its run; the hostile one (HTML with a script, a link out of the runs folder).
    await page.click('td[data-cell="1/with_skill/gemini"] button');
    const run = page.locator(`section[data-run="${HOSTILE_RUN}"]`);
    await run.locator('table[data-table="assertions"] tbody tr').first().waitFor();
    expect(await run.locator('[data-field="job-id"]').innerText()).toBe("job-2-1");
    expect(
      await run.locator('table[data-table="assertions"] tbody tr').evaluateAll((trs) => trs.map((t) => (t as HTMLElement).innerText)),
    ).toEqual([`${A}\tpassed\tjudge\tfound it in the gemini run`, `${B}\tpassed\tjson_schema\tfound it in the gemini run`]);
    expect(await run.locator('[data-field="answer"]').innerText()).toBe("The best month was July 2025 (gemini, with_skill).");
    expect(await run.locator('li[data-output="leak.txt"]').innerText()).toContain("a link: not followed");
    await run.locator('li[data-output="report.html"] button').click();
    const shown = run.locator('li[data-output="report.html"] [data-field="output-text"]');
    await shown.waitFor();
    // Shown as its text, escaped: the script is characters on the page, never an element, and it never ran.
    expect(await shown.innerText()).toBe(HOSTILE_HTML);
    expect(await shown.locator("script, img").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.title()).not.toBe("pwned");
    await w.shot("eval-iteration-2");

    // The failed job of iteration 1: its error and its all-failed grading.
    await page.goto(`${view.url}#/eval/${EVAL_ID}/1`);
    await page.click('td[data-cell="2/with_skill/codex"] button');
    const failed = page.locator('section[data-run="eval-2/with_skill/codex"]');
    await failed.locator('[data-field="run-error"]').waitFor();
    expect(await failed.locator('[data-field="run-error"]').innerText()).toBe("engine_failed: codex exited with code 1");
    expect(await failed.locator('table[data-table="assertions"] tbody tr').innerText()).toBe(
      `${C}\tfailed\toracle\tthe run failed: engine_failed`,
    );
    expect(await text(w, 'td[data-cell="2/with_skill/codex"] button')).toBe("0% (0/1) failed");
  });

  it("compares two iterations: better and worse per case, the assertions that flipped, the delta, trigger rates", async () => {
    const w = await open(`#/eval/${EVAL_ID}`);
    const { page } = w;
    // The eval's page: its iterations newest first, the newest two picked to compare.
    await page.locator('table[data-table="iterations"] tbody tr').first().waitFor();
    expect(
      await page.locator('table[data-table="iterations"] tbody tr').evaluateAll((trs) => trs.map((t) => t.getAttribute("data-iteration"))),
    ).toEqual(["2", "1"]);
    expect(await page.locator('tr[data-iteration="1"]').innerText()).toMatch(
      /failed[\s\S]*with_skill 62\.5% · without_skill 12\.5%\s+\+50\.0 pp/,
    );
    expect(await page.getByRole("link", { name: "compare" }).getAttribute("href")).toBe(`#/eval/${EVAL_ID}/compare/1/2`);
    // Reached from the iteration page: the other iteration is picked.
    await page.goto(`${view.url}#/eval/${EVAL_ID}/2`);
    await page.locator('a[data-link="compare"]').click();
    await page.waitForURL(new RegExp(`#/eval/${EVAL_ID}/compare/1/2$`));
    await page.getByRole("heading", { name: "top-months: iteration 1 → iteration 2" }).waitFor();
    const caseRow = (key: string) => page.locator(`table[data-table="case-change"] tr[data-case="${key}"]`);
    await caseRow("1/with_skill").waitFor();
    expect(await caseRow("1/with_skill").innerText()).toMatch(/75\.0% → 75\.0%\s+= same/);
    expect(await caseRow("1/without_skill").innerText()).toMatch(/25\.0% → 0%\s+▼ worse/);
    expect(await caseRow("2/with_skill").innerText()).toMatch(/50\.0% → 100%\s+▲ better/);
    expect(await caseRow("2/without_skill").locator("[data-change]").getAttribute("data-change")).toBe("same");

    const flips = page.locator('table[data-table="flips"] tbody tr');
    await flips.first().waitFor();
    expect(
      await flips.evaluateAll((trs) =>
        trs.map((t) => [t.getAttribute("data-flip"), t.getAttribute("data-change"), t.children[4]!.textContent]),
      ),
    ).toEqual([
      ["1/with_skill/gemini", "better", B],
      ["1/with_skill/codex", "worse", A],
      ["1/without_skill/codex", "worse", A],
      ["2/with_skill/codex", "better", C],
    ]);
    expect(await flips.nth(1).innerText()).toContain("passed → failed");

    const delta = (scope: string) => page.locator(`table[data-table="delta-change"] tr[data-scope="${scope}"]`);
    expect(await delta("all engines").locator('[data-delta="pass_rate"]').innerText()).toBe("+50.0 pp → +87.5 pp");
    expect(await delta("all engines").locator('[data-delta="time"]').innerText()).toBe("+6.3 s → +10.0 s");
    expect(await delta("all engines").locator('[data-delta="tokens"]').innerText()).toBe("+2125 → +3000");
    expect(await delta("all engines").locator("[data-change]").getAttribute("data-change")).toBe("better");
    expect(await delta("codex").locator('[data-delta="pass_rate"]').innerText()).toBe("+25.0 pp → +75.0 pp");

    const trigger = (query: string, engine: string) =>
      page.locator(`table[data-table="trigger-change"] tr[data-trigger="${query}/${engine}"]`);
    expect(await trigger(Q1, "codex").innerText()).toMatch(/33\.3% → 100%\s+▲ better/);
    expect(await trigger(Q2, "gemini").innerText()).toMatch(/66\.7% → 33\.3%\s+▼ worse/);
    // A near miss triggering less is better.
    expect(await trigger(Q4, "gemini").innerText()).toMatch(/no\s+validation\s+66\.7% → 33\.3%\s+▲ better/);
    expect(await trigger(Q1, "gemini").locator("[data-change]").getAttribute("data-change")).toBe("same");
    await w.shot("eval-compare-1-2");
  });

  it("says which file is not valid and where, and still shows the rest of the iteration", async () => {
    const w = await open(`#/eval/${BROKEN_ID}/1`);
    const { page } = w;
    await page.getByRole("heading", { name: /top-months · iteration 1/ }).waitFor();
    const alerts = page.getByRole("alert");
    await expect
      .poll(() => alerts.allInnerTexts())
      .toEqual([
        "benchmark.json is not valid: /runs/0/result/pass_rate must be number",
        "triggers.json is not valid: /queries must be array",
      ]);
    expect(await page.locator('table[data-table="delta"]').count()).toBe(0);
    await page.goto(`${view.url}#/eval/${BROKEN_ID}`);
    await page.locator('tr[data-iteration="1"]').waitFor();
    expect(await page.locator('tr[data-iteration="1"]').innerText()).toContain(
      "benchmark.json is not valid: /runs/0/result/pass_rate must be number",
    );
    await w.shot("eval-broken");
  });
});
