/**
 * The view's look in Debian's Chromium, over runs this test records itself: a failing `skillrig test` (a wrong answer
 * and an exception) and the same task fixed (a comparison), a suite whose samples pass, fail and raise, a plain
 * skill's job, and a `skillrig eval` iteration whose case is named (`"id": "accent"`). It checks the one status
 * palette (a symbol beside every colour, a dark theme that follows the system), the layout (names on one line at
 * 1400 px, short ids with a copy button, one date format, tables that scroll in their box on a phone) and the small
 * truths, and takes the screenshots docs/view.md shows, light and dark (test-output/screenshots/look-*.png).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, OpenedPages, SCREENSHOTS } from "./support/browser.js";
import { REPO, runCli, startCli, type CliService } from "./support/cli.js";
import { FIXTURES, writeEvalProject, writeParseNumbers, writeSuiteSamples } from "./support/recorded-projects.js";

/** parse-numbers' deliverable with every case right: the "after" of the comparison. */
const FIXED_PARSE =
  "def parse(text):\n    if ' ' in text:\n        return text.replace('brown', 'red')\n    return int(text) if text.isdigit() else 0\n";

/** The palette's symbol a status word carries, once CSS draws it before the word (generated content, not text). */
const symbolOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const drawn = getComputedStyle(el, "::before").content;
      return drawn === "none" || drawn === "normal" ? `nothing drawn (${drawn})` : el.getAttribute("data-symbol");
    });

const colourOf = (page: Page, selector: string, property: "color" | "backgroundColor") =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el)[p as "color"], property);

describe("the view's look in Chromium", () => {
  let runsDir: string;
  let view: CliService<{ url: string }>;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);
  const ids = { failing: "", fixed: "", suite: "", job: "" };
  const open = (hash: string, viewport?: { width: number; height: number }) => pages.open(view.info.url, hash, viewport);

  /** The page in light and in dark, each a full-page screenshot docs/view.md uses. */
  const shotBoth = async (page: Page, name: string) => {
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(SCREENSHOTS, `look-${name}-${scheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: "light" });
  };

  beforeAll(async () => {
    runsDir = mkdtempSync(join(tmpdir(), "skillrig-look-runs-"));
    const env = { SKILLRIG_RUNS_DIR: runsDir, NO_COLOR: "1" };
    const work = mkdtempSync(join(tmpdir(), "skillrig-look-work-"));
    writeParseNumbers(work);
    writeFileSync(join(work, "parse/fixed.py"), FIXED_PARSE);
    const samples = writeSuiteSamples(work, [
      ["any-int", ["right", "wrong", "raises"]],
      ["big-sum", ["raises", "right", "right"]],
      ["run-length", ["right", "wrong", "wrong"]],
    ]);
    const project = mkdtempSync(join(tmpdir(), "skillrig-look-project-"));
    const config = {
      plugins: [join(REPO, "packages/server/test/fixtures/echo-engine.mjs")],
      skills: { roots: [join(FIXTURES, "skills")] },
    };
    writeFileSync(join(project, "skillrig.config.json"), JSON.stringify(config));
    const evalProject = writeEvalProject(runsDir, { evalId: "accent" });
    const test = (deliverable: string) => runCli(["test", join(work, "parse/task.json"), "--deliverable", deliverable], { env });
    // The failing run first, so the comparison's "before" is the older one.
    const failing = await test(join(work, "parse/parse.py"));
    const [fixed, suite, job, evaluation] = await Promise.all([
      test(join(work, "parse/fixed.py")),
      runCli(["test", "examples/suite-mini/tasks", "--samples", samples, "--k", "2"], { env }),
      runCli(["run", "plain-notes", "--engine", "echo", "--prompt", "how many notes are there?"], { cwd: project, env }),
      runCli(["eval", "csv-total", "--no-triggers", "--jobs", "2"], { cwd: evalProject, env }),
    ]);
    const recorded = (run: { code: number | null; stderr: string; stdout: string }, code: number) => {
      expect(run.code, run.stderr).toBe(code);
      return /recorded in \S+\/([^/\s]+)/.exec(run.stderr + run.stdout)![1]!;
    };
    ids.failing = recorded(failing, 1);
    ids.fixed = recorded(fixed, 0);
    ids.suite = recorded(suite, 1);
    ids.job = recorded(job, 0);
    expect(evaluation.code, evaluation.stderr).toBe(0);
    view = await startCli(["view", "--port", "0", "--json"], { env });
    browser = await launchChromium();
    // A safety net, not a speed bound: six real runs (one a Gemini CLI eval) on a machine others load too.
  }, 600_000);

  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await view?.stop();
  });

  it("one palette: every status has its symbol beside its word and colour; the dark theme follows the system", async () => {
    const { page } = await open("#/", { width: 1400, height: 900 });
    await page.locator(`tr[data-run="${ids.job}"]`).waitFor();
    // The word is the badge's text (what tests, exports and screen readers read); the symbol is drawn beside it.
    expect(await page.locator(`tr[data-run="${ids.failing}"] .status`).innerText()).toBe("failed");
    expect(await symbolOf(page, `tr[data-run="${ids.failing}"] .status`)).toBe("✗");
    expect(await symbolOf(page, `tr[data-run="${ids.fixed}"] .status`)).toBe("✓");
    const passedLight = await colourOf(page, `tr[data-run="${ids.fixed}"] .status`, "color");
    const failedLight = await colourOf(page, `tr[data-run="${ids.failing}"] .status`, "color");
    expect(passedLight).not.toBe(failedLight);
    const bodyLight = await colourOf(page, "html", "backgroundColor");
    await page.emulateMedia({ colorScheme: "dark" });
    // Dark: a dark page, and the badges take the dark palette (never the light one on a dark page).
    await expect.poll(() => colourOf(page, "html", "backgroundColor")).not.toBe(bodyLight);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toContain("dark");
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    expect(luminance(await colourOf(page, "html", "backgroundColor"))).toBeLessThan(60);
    expect(await colourOf(page, `tr[data-run="${ids.fixed}"] .status`, "color")).not.toBe(passedLight);
    await page.emulateMedia({ colorScheme: "light" });
    await shotBoth(page, "runs-list");
  });

  it("a suite's cell says what its counts count: a sample whose cases all raised reads '0/N passed · N error'", async () => {
    const { page } = await open(`#/run/${encodeURIComponent(ids.suite)}`, { width: 1400, height: 900 });
    const raised = page.locator('tr[data-task="big-sum"] button.cell').first();
    await raised.waitFor();
    const text = await raised.innerText();
    expect(text).toMatch(/^(failed|error)\s+0\/(\d+) passed · \2 error$/);
    // A sample with right and wrong answers says both, and no cell anywhere reads a bare "failed 0/3".
    const cells = await page.locator("button.cell").allInnerTexts();
    for (const cell of cells) expect(cell).toMatch(/\d+\/\d+ passed/);
    expect(cells.join("\n")).not.toMatch(/failed \d+\/\d+$/m);
    await raised.click();
    const row = page.locator('section[aria-label="selected sample"] tr.case-row').first();
    await row.locator("button.link").click();
    // The case that raised shows the exception, not `actual: null`.
    const stopped = page.locator('section[aria-label="selected sample"] [data-field="stopped-by"]').first();
    expect(await stopped.innerText()).toContain("ValueError: no idea how to big-sum");
    await shotBoth(page, "suite");
  });

  it("a failing case: the wrong answer as a diff, the exception as an error (never 'actual: null')", async () => {
    const { page } = await open(`#/run/${encodeURIComponent(ids.failing)}`, { width: 1400, height: 900 });
    const bad = page.locator('tr.case-row[data-case="bad digit"]');
    await bad.locator("button.link").click();
    const detail = page.locator("tr.case-detail-row").first();
    expect(await detail.locator('[data-field="stopped-by"]').innerText()).toMatch(/^ValueError: invalid literal for int\(\)/);
    expect(await detail.locator("h4", { hasText: /^actual$/ }).count()).toBe(0);
    expect(await detail.locator("h4", { hasText: "traceback" }).count()).toBe(1);
    await page.locator('tr.case-row[data-case="sentence"] button.link').click();
    expect(await page.locator("h4", { hasText: /^actual$/ }).count()).toBe(1);
    await shotBoth(page, "failing-case");
  });

  it("holds at 1400 px: names on one line, a short id with the full one on hover and a copy button, one date format", async () => {
    const { page } = await open("#/", { width: 1400, height: 900 });
    const row = page.locator(`tr[data-run="${ids.suite}"]`);
    await row.waitFor();
    // One line each: what the name cell, the date cell and the id cell hold is less than two lines of text tall.
    for (const column of [2, 4, 8]) {
      const cell = row.locator("td").nth(column);
      const lines = await cell.evaluate((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        return range.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(td).lineHeight);
      });
      expect(lines, `column ${column}: ${await cell.innerText()}`).toBeLessThan(1.5);
    }
    const id = row.locator(".short-id");
    expect(await id.locator("code").innerText()).toBe(`…${ids.suite.slice(-6)}`);
    expect(await id.locator("code").getAttribute("title")).toBe(ids.suite);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(view.info.url).origin });
    await id.locator("button.copy").click();
    await expect.poll(() => id.locator("button.copy").innerText()).toBe("copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ids.suite);
    // Every date of the page in the one local format, the exact time on hover.
    const dates = await page.locator("time.when").evaluateAll((ts) => ts.map((t) => [t.textContent, t.getAttribute("datetime")]));
    expect(dates.length).toBeGreaterThan(3);
    const expected = await page.evaluate(
      (isos) => {
        const f = new Intl.DateTimeFormat(undefined, {
          year: "numeric",
          month: "short",
          day: "numeric",
          hour: "2-digit",
          minute: "2-digit",
          second: "2-digit",
        });
        return isos.map((iso) => f.format(new Date(iso!)));
      },
      dates.map(([, iso]) => iso),
    );
    expect(dates.map(([text]) => text)).toEqual(expected);
  });

  it("on a phone, the comparison's tables scroll inside their box and the page keeps its width", async () => {
    const hash = `#/compare/${encodeURIComponent(ids.failing)}/${encodeURIComponent(ids.fixed)}`;
    const wide = await open(hash, { width: 1400, height: 900 });
    await wide.page.locator("table.compare-cases").waitFor();
    await shotBoth(wide.page, "comparison");
    const { page } = await open(hash, { width: 390, height: 844 });
    await page.locator("table.compare-cases").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const box = page.locator(".scroll", { has: page.locator("table.compare-cases") });
    const [scrollWidth, clientWidth] = await box.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    // Its last column is reachable by scrolling the box.
    await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    const last = page.locator("table.compare-cases tbody tr").first().locator("td").last();
    expect(await last.evaluate((td) => td.getBoundingClientRect().right)).toBeLessThanOrEqual(391);
    await page.screenshot({ path: join(SCREENSHOTS, "look-comparison-phone.png"), fullPage: true });
  });

  it("small truths: a plain skill's prompt is its input, a single job has no pass rate, an eval case is named by its id", async () => {
    const list = await open("#/", { width: 1400, height: 900 });
    const jobRow = list.page.locator(`tr[data-run="${ids.job}"]`);
    await jobRow.waitFor();
    expect(await jobRow.locator("td").nth(6).innerText()).toBe("–");
    expect(await list.page.locator(`tr[data-run="${ids.failing}"] td`).nth(6).innerText()).toMatch(/^\d+(\.\d)?% \(\d+\/3\)$/);

    const job = await open(`#/run/${encodeURIComponent(ids.job)}`, { width: 1400, height: 900 });
    await job.page.locator('[data-field="prompt-input"]').waitFor();
    expect(await job.page.locator('[data-field="prompt-input"] pre').innerText()).toBe("how many notes are there?");
    expect(await job.page.getByText("no inputs").count()).toBe(0);
    expect(await job.page.locator("main > p.muted").first().innerText()).not.toContain("pass rate");

    const iteration = await open("#/eval/eval-csv-total/1", { width: 1400, height: 900 });
    const table = iteration.page.locator('table[data-table="cases"]');
    await table.waitFor();
    expect(await table.locator("tbody tr td").first().innerText()).toBe("accent");
    expect(await iteration.page.getByText("eval-accent").count()).toBe(0);
    await shotBoth(iteration.page, "eval-iteration");
  });

  it("a bundle's header writes its date in the pages' one format, not ISO", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "skillrig-look-bundle-")), "site");
    const env = { SKILLRIG_RUNS_DIR: runsDir, NO_COLOR: "1" };
    const made = await runCli(["view", "--bundle", out, "--run", ids.failing, "--json"], { env });
    expect(made.code, made.stderr).toBe(0);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${pathToFileURL(JSON.parse(made.stdout).index).href}#/`);
      const header = page.locator(".runs-dir");
      await header.waitFor();
      const text = await header.innerText();
      expect(text).toMatch(/^a bundle of 1 run\(s\), written /);
      expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
      const written = await page.evaluate(() => {
        const bundle = (globalThis as unknown as Record<string, { created_at: string }>).__SKILLRIG_BUNDLE__!;
        const f = new Intl.DateTimeFormat(undefined, {
          year: "numeric",
          month: "short",
          day: "numeric",
          hour: "2-digit",
          minute: "2-digit",
          second: "2-digit",
        });
        return f.format(new Date(bundle.created_at));
      });
      expect(text).toBe(`a bundle of 1 run(s), written ${written}`);
    } finally {
      await context.close();
    }
  });
});
