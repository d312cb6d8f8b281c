/**
 * `skillrig view` in Debian's Chromium: runs really recorded by `skillrig test` and `skillrig solve` on the examples,
 * fixture runs of every report shape, and a live `skillrig serve` whose job is submitted from the generated form.
 * Every page is checked for console errors and off-host requests; screenshots go to test-output/screenshots.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, OpenedPages, type WatchedPage } from "./support/browser.js";
import { REPO, runCli, startCli, type CliService } from "./support/cli.js";
import { writeFixtureRuns } from "./support/fixture-runs.js";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

describe("skillrig view in Chromium", () => {
  let runsDir: string;
  let ids: Awaited<ReturnType<typeof writeFixtureRuns>>;
  let jobs: CliService<{ url: string }>;
  let view: CliService<{ url: string; runs_dir: string; server: string }>;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);
  let recordedTest: string;
  let recordedSolve: string;

  const open = (hash: string, viewport?: { width: number; height: number }) => pages.open(view.info.url, hash, viewport);

  beforeAll(async () => {
    runsDir = mkdtempSync(join(tmpdir(), "skillrig-view-runs-"));
    ids = await writeFixtureRuns(runsDir);
    const env = { SKILLRIG_RUNS_DIR: runsDir, NO_COLOR: "1" };
    // The "done when" of the issue: skillrig test and skillrig solve on the examples, then skillrig view.
    const [test, solve] = await Promise.all([
      runCli(["test", "examples/oracle-receipt-parser/task.json", "--deliverable", "examples/oracle-receipt-parser/buggy"], { env }),
      runCli(["solve", "task.json", "--engine", "gemini-buggy"], { cwd: join(REPO, "examples", "solve-run-length"), env }),
    ]);
    expect(test.code, test.stderr).toBe(1);
    expect(solve.code, solve.stderr).toBe(1);
    recordedTest = /recorded in \S+\/([^/\s]+) /.exec(test.stderr)![1]!;
    recordedSolve = /recorded in \S+\/([^/\s]+) /.exec(solve.stderr)![1]!;

    const project = mkdtempSync(join(tmpdir(), "skillrig-view-server-"));
    writeFileSync(
      join(project, "skillrig.config.json"),
      JSON.stringify({
        // The server tests' own small engine (engine "echo"), so the two suites drive the same one.
        plugins: [join(REPO, "packages/server/test/fixtures/echo-engine.mjs")],
        skills: { roots: [join(FIXTURES, "skills")] },
        server: { data_dir: "data" },
      }),
    );
    jobs = await startCli(["serve", "--port", "0", "--json"], { cwd: project });
    view = await startCli(["view", "--port", "0", "--json", "--server", jobs.info.url], { env });
    browser = await launchChromium();
  });

  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await view?.stop();
    await jobs?.stop();
  });

  /** Submits the echo-message skill's form with the echo engine and waits for its job page to say succeeded. */
  const submitEchoMessage = async (page: WatchedPage["page"], message: string) => {
    await page.selectOption("#f-engine", "echo");
    await page.fill("#f-input-message", message);
    await page.getByRole("button", { name: "submit job" }).click();
    await page.waitForURL(/#\/server\/job\//);
    await page.locator("h1 .status", { hasText: "succeeded" }).waitFor();
  };

  it("prints its URL on 127.0.0.1 as JSON, with the runs folder and the jobs server", () => {
    expect(view.info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(view.info.runs_dir).toBe(runsDir);
    expect(view.info.server).toBe(jobs.info.url);
  });

  it("lists the recorded runs, filters them by kind and finds them by search", async () => {
    const { page, shot } = await open("#/");
    const rows = page.locator("table.runs tbody tr");
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(6);
    for (const id of [recordedTest, recordedSolve, ids.test, ids.suite, ids.solve, ids.job])
      await page.locator(`tr[data-run="${id}"]`).waitFor();
    await expect.poll(() => page.locator(`tr[data-run="${recordedTest}"]`).innerText()).toMatch(/test\s+oracle-receipt-parser/);
    await shot("runs-list-1280");
    await page.selectOption("select[name=kind]", "solve");
    await expect
      .poll(() => page.locator("table.runs tbody tr").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-kind"))))
      .toEqual(["solve", "solve"]);
    await page.selectOption("select[name=kind]", "all");
    await page.fill("input[name=search]", "receipt");
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().getAttribute("data-run")).toBe(recordedTest);
  });

  it("shows a real test run: cases filtered by status, a failing case's input and diff", async () => {
    const { page, shot } = await open(`#/run/${recordedTest}`);
    await page.getByRole("heading", { name: /test oracle-receipt-parser/ }).waitFor();
    await page.locator('tr.case-row[data-status="passed"]').first().waitFor();
    const all = await page.locator("tr.case-row").count();
    await page.click('button[data-filter="not-passed"]');
    // The filter re-renders on the next tick: wait for the passed rows to go.
    await expect.poll(() => page.locator('tr.case-row[data-status="passed"]').count()).toBe(0);
    const failing = await page.locator("tr.case-row").count();
    expect(failing).toBeGreaterThan(0);
    expect(failing).toBeLessThan(all);
    await page.locator("tr.case-row button.link").first().click();
    const detail = page.locator(".case-detail").first();
    await detail.getByRole("heading", { name: "input" }).waitFor();
    expect(await detail.locator("pre").first().innerText()).toContain("receipt.txt");
    expect(await detail.locator(".diff ins, .diff del").count()).toBeGreaterThan(0);
    await shot("test-run-receipt-parser");
  });

  it("shows a word-level diff, stdout, stderr and the traceback of fixture cases", async () => {
    const { page, shot } = await open(`#/run/${ids.test}`);
    await page.getByRole("button", { name: "sentence" }).click();
    const diff = page.locator(".diff").first();
    await expect.poll(() => diff.locator("del").allInnerTexts()).toEqual(["brown"]);
    expect(await diff.locator("ins").allInnerTexts()).toEqual(["red"]);
    expect(await page.locator(".case-detail").first().innerText()).toContain("parsing the quick brown fox");
    await page.getByRole("button", { name: "bad digit" }).click();
    const tb = page.locator(".case-detail").nth(1);
    await tb.getByRole("heading", { name: "traceback" }).waitFor();
    expect(await tb.innerText()).toContain("ValueError: invalid literal for int()");
    expect(await tb.innerText()).toContain("warning: x is not a digit");
    await page.click('button[data-filter="error"]');
    await expect.poll(() => page.locator("tr.case-row").count()).toBe(1);
    await shot("test-run-fixture-traceback");
  });

  it("shows a suite as tasks × samples with pass@k, and a sample's cases", async () => {
    const { page, shot } = await open(`#/run/${ids.suite}`);
    await page.locator("table.matrix").waitFor();
    expect(await page.locator(".passk").first().innerText()).toMatch(/pass@1 75\.0%\s*pass@2 100%/);
    await page.locator("table.matrix tr", { hasText: "greet" }).locator("button.cell").nth(1).click();
    await page.getByRole("heading", { name: "greet, sample 2" }).waitFor();
    expect(await page.locator('tr.case-row[data-status="failed"]').count()).toBe(1);
    await shot("suite");
  });

  it("shows a real solve batch: the matrix, the attempt's highlighted source, transcript and prompt", async () => {
    const { page, shot } = await open(`#/run/${recordedSolve}`);
    await page.locator("table.matrix").waitFor();
    await page.locator("button.cell.s-failed").first().click();
    const attempt = page.locator('section[aria-label="selected attempt"]');
    await attempt.waitFor();
    expect(await attempt.locator("pre.hljs .hljs-keyword").first().innerText()).toBe("def");
    expect(await attempt.locator("ol.timeline li").count()).toBeGreaterThan(0);
    expect(await attempt.locator("tr.case-row").count()).toBeGreaterThan(0);
    const prompt = attempt.locator("details.section", { hasText: "prompt sent" });
    await prompt.locator("summary").click();
    await expect.poll(() => prompt.locator("pre").innerText()).toMatch(/solution\.py/);
    await shot("solve-batch");
  });

  it("shows a recorded skill job: inputs, parameters, events, output, and artifacts previewed and downloadable", async () => {
    const { page, shot } = await open(`#/run/${ids.job}`);
    await page.getByText("Counting words now.").waitFor();
    expect(await page.locator("details.section", { hasText: "parameters" }).innerText()).toContain('"top": 3');
    const md = page.locator('.artifact[data-artifact="summary.md"]');
    await md.getByRole("button", { name: "preview" }).click();
    await md.locator(".markdown h1", { hasText: "Word report" }).waitFor();
    expect(await md.locator(".markdown strong").innerText()).toBe("42");
    const png = page.locator('.artifact[data-artifact="chart.png"]');
    await png.getByRole("button", { name: "preview" }).click();
    await expect.poll(() => png.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(16);
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator('.artifact[data-artifact="counts.txt"] a').click()]);
    expect(download.suggestedFilename()).toBe("counts.txt");
    await shot("skill-job");
  });

  it("submits a job from the form generated from the skill's schemas, with its upload, and follows it live", async () => {
    const { page, shot } = await open("#/server");
    await page.locator(".skills li", { hasText: "word-count" }).getByRole("link", { name: "new job" }).click();
    await page.getByRole("heading", { name: /New job/ }).waitFor();
    await page.selectOption("#f-engine", "echo");
    await page.setInputFiles("#f-input-text_file", {
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("one two three four five"),
    });
    await page.fill("#f-input-label", "notes");
    await page.fill("#f-parameter-delay_ms", "3000");
    await page.check("#f-parameter-uppercase");
    await shot("submit-form");
    await page.getByRole("button", { name: "submit job" }).click();
    await page.waitForURL(/#\/server\/job\//);
    // The status changes on the page as the SSE stream reports it: running first, then succeeded.
    await page.locator("h1 .status", { hasText: "running" }).waitFor();
    await page.locator("h1 .status", { hasText: "succeeded" }).waitFor();
    await page.getByText("counted 5 words").waitFor();
    const report = page.locator('.artifact[data-artifact="report.txt"]');
    await report.getByRole("button", { name: "preview" }).click();
    await report.getByText("NOTES: 5 words").waitFor();
    await shot("server-job");
    await page.goto(`${view.info.url}#/server`);
    await page.locator("tbody tr .status", { hasText: "succeeded" }).first().waitFor();
  });

  it("renders an input without x-input-source as a file upload, the protocol's default (parameters never)", async () => {
    const { page } = await open("#/server/new/word-count");
    await page.getByRole("heading", { name: /New job/ }).waitFor();
    expect(await page.locator("#f-input-text_file").getAttribute("type")).toBe("file");
    expect(await page.locator("#f-input-stopwords").getAttribute("type")).toBe("file");
    expect(await page.locator("#f-input-label").getAttribute("type")).toBe("text");
    expect(await page.locator("#f-parameter-delay_ms").getAttribute("type")).toBe("number");
    // And it goes up in the zip under its field's name, beside the other file input.
    await page.selectOption("#f-engine", "echo");
    await page.setInputFiles("#f-input-text_file", { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("one two") });
    await page.setInputFiles("#f-input-stopwords", { name: "stop.txt", mimeType: "text/plain", buffer: Buffer.from("the") });
    await page.fill("#f-input-label", "notes");
    await page.getByRole("button", { name: "submit job" }).click();
    await page.waitForURL(/#\/server\/job\//);
    await page.locator("h1 .status", { hasText: "succeeded" }).waitFor();
    await page.getByText("upload extracted: text_file, stopwords").waitFor();
  });

  it("offers every served engine for a skill that lists none (runner.json without engines runs on any)", async () => {
    const { page } = await open("#/server/new/echo-message");
    await page.getByRole("heading", { name: /New job/ }).waitFor();
    await page.locator('#f-engine option[value="echo"]').waitFor({ state: "attached" });
    await submitEchoMessage(page, "hello from the form");
  });

  it("a plain Agent Skill's form is a prompt box; its job answers with text", async () => {
    const { page } = await open("#/server/new/plain-notes");
    await page.getByRole("heading", { name: /New job/ }).waitFor();
    expect(await page.locator("#f-input-message").count()).toBe(0);
    await page.selectOption("#f-engine", "echo");
    // The prompt is required, like a required field of a generated form.
    expect(await page.locator("#f-prompt").getAttribute("required")).not.toBeNull();
    await page.fill("#f-prompt", "how many notes?");
    await page.getByRole("button", { name: "submit job" }).click();
    await page.waitForURL(/#\/server\/job\//);
    await page.locator("h1 .status", { hasText: "succeeded" }).waitFor();
    await page.getByText("you said: how many notes?").first().waitFor();
  });

  it("a job page whose first answer is older than the stream still shows the final status", async () => {
    const { page } = await open("#/server/new/echo-message");
    // The race made certain: the job's first GET is held until the page has read the stream to its end (it closes
    // the stream on the final status), then answered with the status the job had while it ran.
    const jobGet = /^\/api\/server\/jobs\/([^/]+)$/;
    const streamEnded = (id: string) =>
      new Promise<void>((done) => {
        const ended = (r: { url(): string }) => r.url().endsWith(`/api/server/jobs/${encodeURIComponent(id)}/events`) && done();
        page.on("requestfinished", ended);
        page.on("requestfailed", ended);
      });
    await page.route(
      (url) => jobGet.test(url.pathname),
      async (route) => {
        const id = decodeURIComponent(jobGet.exec(new URL(route.request().url()).pathname)![1]!);
        const ended = streamEnded(id);
        const response = await route.fetch();
        const job = (await response.json()) as Record<string, unknown>;
        await ended;
        await route.fulfill({ response, json: { ...job, status: "running" } });
      },
    );
    await submitEchoMessage(page, "fast");
  });

  it("shows the jobs server's refusal of a bad request, with its pointer", async () => {
    const { page, allow } = await open("#/server/new/word-count");
    // Chromium logs every 4xx response; this one is provoked on purpose.
    allow(/status of 422/);
    await page.selectOption("#f-engine", "echo");
    await page.setInputFiles("#f-input-text_file", { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("x") });
    // Past the browser's own checks, as a hand-made request would be: the required label is left out.
    await page.evaluate(() => document.querySelector("form")!.setAttribute("novalidate", ""));
    await page.getByRole("button", { name: "submit job" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "schema_violation" });
    await alert.waitFor();
    expect(await page.locator("ul.error").innerText()).toMatch(/\/input/);
    expect(page.url()).toMatch(/#\/server\/new\/word-count$/);
  });

  it("is usable by keyboard: tab to a run, open it, tab to a case and expand it", async () => {
    const { page } = await open("#/");
    await page.locator(`tr[data-run="${ids.test}"]`).waitFor();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate((name) => document.activeElement?.textContent === name, "parse-numbers");
    }
    expect(reached).toBe(true);
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`#/run/${ids.test}`));
    reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement?.textContent === "bad digit");
    }
    expect(reached).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "traceback" }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-expanded"))).toBe("true");
  });

  it("is readable on a phone-sized window: nothing wider than the screen", async () => {
    for (const [hash, name] of [
      ["#/", "phone-runs"],
      [`#/run/${ids.test}`, "phone-test-run"],
      [`#/run/${ids.solve}`, "phone-solve"],
    ] as const) {
      const { page, shot } = await open(hash, { width: 390, height: 844 });
      await page.locator("h1").first().waitFor();
      await page.locator("table").first().waitFor();
      if (hash.includes(ids.test)) await page.getByRole("button", { name: "bad digit" }).click();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${hash} is ${overflow}px wider than the window`).toBeLessThanOrEqual(0);
      await shot(name);
    }
  });
});
