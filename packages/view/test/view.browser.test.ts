/**
 * `skillrig view` in Debian's Chromium over runs the test records itself: a failing one-task `skillrig test`, a
 * suite of 3 tasks x 3 samples (`--samples`), a `skillrig solve` batch, a `skillrig run` skill job with a file
 * input and parameter defaults, a `skillrig eval` iteration, and an oracle run graded on a live `skillrig serve`
 * (`skillrig test --server`); the
 * numbers on the pages are checked against the reports the runs wrote. Fixture runs remain for what a real run does
 * not produce: a Markdown and an image artifact, and a report that breaks its schema. Every page is checked for
 * console errors and off-host requests; screenshots go to test-output/screenshots.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, OpenedPages, type WatchedPage } from "./support/browser.js";
import { REPO, runCli, startCli, type CliService } from "./support/cli.js";
import { writeFixtureRuns } from "./support/fixture-runs.js";
import { FIXTURES, NOTES, writeEvalProject, writeParseNumbers, writeSuiteSamples } from "./support/recorded-projects.js";

/** How the view writes a rate (format.ts's percent). */
const percentText = (rate: number) => `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)}%`;

describe("skillrig view in Chromium", () => {
  let runsDir: string;
  let ids: Awaited<ReturnType<typeof writeFixtureRuns>>;
  let jobs: CliService<{ url: string }>;
  let view: CliService<{ url: string; runs_dir: string; server: string }>;
  let browser: Browser;
  const pages = new OpenedPages(() => browser);
  let recordedTest: string;
  let recordedSolve: string;
  let recordedParse: string;
  let recordedSuite: string;
  let recordedJob: string;
  /** A recorded run's report, as the run wrote it. */
  const reportOf = (id: string, file = "report.json") => JSON.parse(readFileSync(join(runsDir, id, file), "utf8"));

  const open = (hash: string, viewport?: { width: number; height: number }) => pages.open(view.info.url, hash, viewport);

  beforeAll(async () => {
    runsDir = mkdtempSync(join(tmpdir(), "skillrig-view-runs-"));
    ids = await writeFixtureRuns(runsDir);
    const env = { SKILLRIG_RUNS_DIR: runsDir, NO_COLOR: "1" };
    const work = mkdtempSync(join(tmpdir(), "skillrig-view-work-"));
    writeParseNumbers(work);
    const samples = writeSuiteSamples(work);
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
    writeFileSync(join(work, "notes.txt"), NOTES);
    const evalProject = writeEvalProject(runsDir);
    jobs = await startCli(["serve", "--port", "0", "--json"], { cwd: project });
    // The "done when" of issue 28: every page over runs skillrig itself recorded here.
    const [test, solve, parse, suite, skillJob, evaluation, remote] = await Promise.all([
      runCli(["test", "examples/oracle-receipt-parser/task.json", "--deliverable", "examples/oracle-receipt-parser/buggy"], { env }),
      runCli(["solve", "task.json", "--engine", "gemini-buggy"], { cwd: join(REPO, "examples", "solve-run-length"), env }),
      runCli(["test", join(work, "parse/task.json"), "--deliverable", join(work, "parse/parse.py")], { env }),
      runCli(["test", "examples/suite-mini/tasks", "--samples", samples, "--k", "2"], { env }),
      runCli(["run", "word-count", "--engine", "echo", "--file", `text_file=${join(work, "notes.txt")}`, "--input", "label=notes"], {
        cwd: project,
        env,
      }),
      // One eval case, with and without the skill, each a real Gemini CLI job against the mock model.
      runCli(["eval", "csv-total", "--no-triggers", "--jobs", "2"], { cwd: evalProject, env }),
      runCli(
        [
          "test",
          "examples/oracle-receipt-parser/task.json",
          "--deliverable",
          "examples/oracle-receipt-parser/buggy",
          "--server",
          jobs.info.url,
        ],
        { env: { ...env, SKILLRIG_RUNS_DIR: mkdtempSync(join(tmpdir(), "skillrig-view-remote-")) } },
      ),
    ]);
    const recorded = (run: { code: number | null; stderr: string; stdout: string }, code: number) => {
      expect(run.code, run.stderr).toBe(code);
      return /recorded in \S+\/([^/\s]+)/.exec(run.stderr + run.stdout)![1]!;
    };
    recordedTest = recorded(test, 1);
    recordedSolve = recorded(solve, 1);
    recordedParse = recorded(parse, 1);
    recordedSuite = recorded(suite, 1);
    recordedJob = recorded(skillJob, 0);
    expect(remote.code, remote.stderr).toBe(1);
    expect(evaluation.code, evaluation.stderr).toBe(0);
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
    for (const id of [recordedTest, recordedSolve, recordedParse, recordedSuite, recordedJob, ids.job])
      await page.locator(`tr[data-run="${id}"]`).waitFor();
    await expect.poll(() => page.locator(`tr[data-run="${recordedTest}"]`).innerText()).toMatch(/test\s+oracle-receipt-parser/);
    await shot("runs-list-1280");
    await page.selectOption("select[name=kind]", "solve");
    await expect
      .poll(() => page.locator("table.runs tbody tr").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-kind"))))
      .toEqual(["solve", "solve"]);
    // The filter is in the hash: a link reproduces it.
    expect(page.url()).toContain("runs.kind=solve");
    await page.selectOption("select[name=kind]", "all");
    await page.fill("input[name=search]", "receipt");
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().getAttribute("data-run")).toBe(recordedTest);
  });

  it("sorts the runs by a column (asc, then desc) and exports them as shown, as CSV", async () => {
    const { page } = await open("#/");
    await page.locator(`tr[data-run="${recordedJob}"]`).waitFor();
    const records = (await (await fetch(`${view.info.url}api/runs`)).json()).runs as Array<{ id: string; duration_ms: number | null }>;
    // Ties keep the list's order (newest first) in both directions.
    const timed = records.filter((r) => r.duration_ms !== null);
    const byDuration = [...timed].sort((a, b) => a.duration_ms! - b.duration_ms!);
    const byDurationDesc = [...timed].sort((a, b) => b.duration_ms! - a.duration_ms!);
    const order = () => page.locator("table.runs tbody tr").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-run")));
    await page.locator('th[data-column="duration"] button').click();
    await expect.poll(() => page.locator('th[data-column="duration"]').getAttribute("aria-sort")).toBe("ascending");
    expect((await order()).slice(0, byDuration.length)).toEqual(byDuration.map((r) => r.id));
    await page.locator('th[data-column="duration"] button').click();
    await expect.poll(() => page.locator('th[data-column="duration"]').getAttribute("aria-sort")).toBe("descending");
    expect((await order()).slice(0, byDuration.length)).toEqual(byDurationDesc.map((r) => r.id));
    expect(page.url()).toMatch(/runs\.sort=duration&runs\.dir=desc/);
    // A link with the sort in it opens sorted.
    const again = await open("#/?runs.sort=duration&runs.dir=desc");
    await again.page.locator(`tr[data-run="${recordedJob}"]`).waitFor();
    expect(
      (await again.page.locator("table.runs tbody tr").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-run")))).slice(
        0,
        byDuration.length,
      ),
    ).toEqual(byDurationDesc.map((r) => r.id));
    await page.fill("input[name=search]", "test");
    const shown = await order();
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator('button[data-export="csv"]').click()]);
    expect(download.suggestedFilename()).toBe("runs.csv");
    const csv = readFileSync((await download.path())!, "utf8")
      .trim()
      .split("\r\n");
    expect(csv[0]).toBe("kind,task or skill,engine,when,status,pass rate,duration,id");
    expect(csv.slice(1).map((line) => line.split(",").at(-1))).toEqual(shown);
  });

  it("shows a real test run: cases filtered by status, a failing case's input and diff", async () => {
    const { page, shot } = await open(`#/run/${recordedTest}`);
    await page.getByRole("heading", { name: /test oracle-receipt-parser/ }).waitFor();
    await page.locator(".verdict").waitFor();
    expect(await page.locator(".report-problem").count()).toBe(0);
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

  it("shows a word-level diff, stdout, stderr and the traceback of a real run's cases; sorts and exports them", async () => {
    const { page, shot } = await open(`#/run/${recordedParse}`);
    await page.getByRole("button", { name: "sentence" }).click();
    const diff = page.locator(".diff").first();
    await expect.poll(() => diff.locator("del").allInnerTexts()).toEqual(["red"]);
    expect(await diff.locator("ins").allInnerTexts()).toEqual(["brown"]);
    expect(await page.locator(".case-detail").first().innerText()).toContain("parsing the quick brown fox");
    await page.getByRole("button", { name: "bad digit" }).click();
    const tb = page.locator(".case-detail").nth(1);
    await tb.getByRole("heading", { name: "traceback" }).waitFor();
    expect(await tb.innerText()).toContain("ValueError: invalid literal for int()");
    expect(await tb.innerText()).toContain("warning: x is not a digit");
    const report = reportOf(recordedParse);
    expect(await page.locator(".verdict").getAttribute("data-passed")).toBe(String(report.summary.passed));
    expect(await page.locator(".verdict").innerText()).toContain(`${report.summary.passed}/${report.summary.total} passed`);
    // Sorted by name, descending: the table's order, not the report's.
    const names = () => page.locator("tr.case-row").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-case")));
    await page.locator('th[data-column="name"] button').click();
    await page.locator('th[data-column="name"] button').click();
    await expect.poll(names).toEqual(["sentence", "digits", "bad digit"]);
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator('button[data-export="json"]').click()]);
    const rows = JSON.parse(readFileSync((await download.path())!, "utf8")) as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.name, r.status])).toEqual(
      ["sentence", "digits", "bad digit"].map((name) => [name, report.cases.find((c: { name: string }) => c.name === name).status]),
    );
    await page.click('button[data-filter="not-passed"]');
    await expect.poll(() => page.locator("tr.case-row").count()).toBe(report.summary.total - report.summary.passed);
    expect(page.url()).toContain("cases.status=not-passed");
    await shot("test-run-traceback");
  });

  it("shows a real suite of 3 tasks x 3 samples: pass@k over the suite and per task, as the report computed it", async () => {
    const { page, shot } = await open(`#/run/${recordedSuite}`);
    const report = reportOf(recordedSuite);
    await page.locator("table.matrix").waitFor();
    expect(await page.locator(".report-problem").count()).toBe(0);
    const headline = page.locator(".suite-headline");
    for (const [key, { value, tasks }] of Object.entries(report.pass_at_k as Record<string, { value: number; tasks: number }>)) {
      const k = key.replace("pass@", "");
      const chip = headline.locator(`.chip[data-k="${k}"]`);
      expect(await chip.innerText()).toBe(`pass@${k} ${percentText(value)} (${tasks} tasks)`);
    }
    expect(await headline.innerText()).toContain(`${report.summary.samples_passed}/${report.summary.samples} samples passed`);
    expect(await headline.innerText()).not.toMatch(/NaN|pass@pass/);
    for (const task of report.tasks as Array<{
      task_id: string;
      samples_passed: number;
      samples_total: number;
      pass_at_k: Record<string, number>;
    }>) {
      const row = page.locator(`tr[data-task="${task.task_id}"]`);
      expect(await row.locator("td").nth(2).innerText()).toBe(`${task.samples_passed}/${task.samples_total}`);
      expect(await row.locator("td").nth(3).innerText()).toBe(percentText(task.pass_at_k["pass@1"]!));
    }
    // any-int passed 2 of 3, big-sum 1 of 3, run-length none: pass@1 2/3, 1/3, 0.
    expect(report.tasks.map((t: { samples_passed: number }) => t.samples_passed)).toEqual([2, 1, 0]);
    const order = () => page.locator("table.matrix tbody tr").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-task")));
    await page.locator('th[data-column="pass@1"] button').click();
    await expect.poll(order).toEqual(["run-length", "big-sum", "any-int"]);
    await page.locator('th[data-column="pass@1"] button').click();
    await expect.poll(order).toEqual(["any-int", "big-sum", "run-length"]);
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator('button[data-export="csv"]').click()]);
    expect(download.suggestedFilename()).toBe("tasks.csv");
    const csv = readFileSync((await download.path())!, "utf8")
      .trim()
      .split("\r\n");
    expect(csv[0]).toBe(["task", "status", "samples passed", ...Object.keys(report.tasks[0].pass_at_k)].join(","));
    expect(csv[1]).toBe(
      ["any-int", "failed", "2", ...Object.values(report.tasks[0].pass_at_k as Record<string, number>).map(String)].join(","),
    );
    await page.locator('tr[data-task="big-sum"] button.cell').nth(1).click();
    await page.getByRole("heading", { name: "big-sum, sample 2" }).waitFor();
    expect(await page.locator('section[aria-label="selected sample"] tr.case-row[data-status="passed"]').count()).toBe(
      report.tasks[1].samples[1].cases.length,
    );
    await shot("suite");
  });

  it("shows an eval iteration a real skillrig eval recorded: pass rates per configuration as benchmark.json has them", async () => {
    const { page, shot } = await open("#/");
    const row = page.locator('tr[data-run="eval-csv-total/iteration-1"]');
    await row.waitFor();
    await row.getByRole("link").click();
    await page.waitForURL(/#\/eval\/eval-csv-total\/1$/);
    const benchmark = JSON.parse(readFileSync(join(runsDir, "eval-csv-total/iteration-1/benchmark.json"), "utf8"));
    const all = 'table[data-table="delta"] tr[data-scope="all engines"]';
    await page.locator(all).waitFor();
    for (const configuration of ["with_skill", "without_skill"]) {
      const mean = benchmark.run_summary[configuration].pass_rate.mean as number;
      expect(await page.locator(`${all} td[data-configuration="${configuration}"]`).innerText()).toMatch(
        new RegExp(`^${percentText(mean).replace(".", "\\.")} ±`),
      );
      const byEval = benchmark.by_eval.find((b: { configuration: string }) => b.configuration === configuration).pass_rate;
      expect(await page.locator(`td[data-cell="1/${configuration}/all"]`).innerText()).toBe(percentText(byEval));
    }
    // packages/evals' scenario: the agent with the skill passes 2 of 3 assertions, without it none.
    expect(benchmark.run_summary.with_skill.pass_rate.mean).toBeGreaterThan(benchmark.run_summary.without_skill.pass_rate.mean);
    await shot("eval-iteration");
  });

  it("names a report that breaks its schema by its pointer, with no NaN on the page", async () => {
    // The fixture suite is written in the shape the view once read (a short summary, pass@k numbers keyed by k).
    const { page } = await open(`#/run/${ids.suite}`);
    const problem = page.locator(".report-problem");
    await problem.waitFor();
    expect(await problem.innerText()).toMatch(/^report\.json is not a valid skillrig-suite-report: \/summary\/\S+ is required/);
    await page.locator("table.matrix").waitFor();
    expect(await page.locator("main").innerText()).not.toMatch(/NaN/);
  });

  it("shows a real solve batch: the matrix, the attempt's highlighted source, transcript and prompt", async () => {
    const { page, shot } = await open(`#/run/${recordedSolve}`);
    await page.locator("table.matrix").waitFor();
    // The solve report the CLI wrote is what its schema says.
    expect(await page.locator(".report-problem").count()).toBe(0);
    await page.locator("button.cell.s-failed").first().click();
    const attempt = page.locator('section[aria-label="selected attempt"]');
    await attempt.waitFor();
    expect(await attempt.locator("pre.hljs .hljs-keyword").first().innerText()).toBe("def");
    const events = attempt.locator("ol.timeline li");
    expect(await events.count()).toBeGreaterThan(0);
    // The transcript's events carry their times: each shows the time since the first and since the previous.
    expect(await events.first().getAttribute("data-since-start")).toBe("0");
    expect(await attempt.locator("ol.timeline li:not([data-since-start])").count()).toBe(0);
    expect(await attempt.locator("tr.case-row").count()).toBeGreaterThan(0);
    const prompt = attempt.locator("details.section", { hasText: "prompt sent" });
    await prompt.locator("summary").click();
    await expect.poll(() => prompt.locator("pre").innerText()).toMatch(/solution\.py/);
    await shot("solve-batch");
  });

  it("shows a real skill job: the file input by name and size, the inline input, parameters with defaults, event times", async () => {
    const { page, shot } = await open(`#/run/${recordedJob}`);
    const inputs = page.locator("details.section", { hasText: "inputs" }).first();
    await inputs.locator('li[data-field="text_file"]').waitFor();
    expect(await inputs.locator('li[data-field="text_file"]').innerText()).toBe(`text_file: notes.txt (${Buffer.byteLength(NOTES)} bytes)`);
    expect(await inputs.locator("pre").innerText()).toContain('"label": "notes"');
    const parameters = page.locator("details.section", { hasText: "parameters (defaults applied)" });
    // The request named no parameter: the schema's defaults are what the job ran with.
    expect(JSON.parse(await parameters.locator("pre").innerText())).toEqual({ delay_ms: 0, uppercase: false });
    const events = page.locator("ol.timeline li");
    await expect.poll(() => events.count()).toBeGreaterThan(1);
    const times = await events.evaluateAll((lis) =>
      lis.map((li) => [li.getAttribute("data-since-start"), li.getAttribute("data-since-previous")]),
    );
    const logged = readFileSync(join(runsDir, recordedJob, "logs/events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => Date.parse(JSON.parse(l).at));
    expect(times.map(([start]) => Number(start))).toEqual(logged.map((at) => at - logged[0]!));
    expect(times.map(([, previous]) => Number(previous))).toEqual(logged.map((at, i) => at - (logged[i - 1] ?? at)));
    expect(await events.first().innerText()).toContain("+0 ms · at 0 ms");
    const report = page.locator('.artifact[data-artifact="report.txt"]');
    await report.getByRole("button", { name: "preview" }).click();
    await report.getByText("notes: 5 words").waitFor();
    expect(reportOf(recordedJob, "result.json").status).toBe("succeeded");
    expect(await page.locator(".report-problem").count()).toBe(0);
    await shot("skill-job");
  });

  it("previews Markdown and image artifacts and downloads any", async () => {
    const { page } = await open(`#/run/${ids.job}`);
    await page.getByText("Counting words now.").waitFor();
    const md = page.locator('.artifact[data-artifact="summary.md"]');
    await md.getByRole("button", { name: "preview" }).click();
    await md.locator(".markdown h1", { hasText: "Word report" }).waitFor();
    expect(await md.locator(".markdown strong").innerText()).toBe("42");
    const png = page.locator('.artifact[data-artifact="chart.png"]');
    await png.getByRole("button", { name: "preview" }).click();
    await expect.poll(() => png.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(16);
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator('.artifact[data-artifact="counts.txt"] a').click()]);
    expect(download.suggestedFilename()).toBe("counts.txt");
  });

  it("shows a server oracle run that scored below all: its verdict and case table, not a green succeeded alone", async () => {
    const { page, shot } = await open("#/server");
    const row = page.locator("tbody tr", { hasText: "oracle" }).first();
    await row.waitFor();
    const id = await row.getAttribute("data-job");
    const result = (await (await fetch(`${view.info.url}api/server/jobs/${id}/result`)).json()) as {
      summary: { total: number; passed: number };
      cases: Array<{ status: string }>;
    };
    // The job's own summary when the server gives one (GET /v1/jobs/{id}); else the result's, which it must equal.
    const job = (await (await fetch(`${view.info.url}api/server/jobs/${id}`)).json()) as {
      status: string;
      summary?: typeof result.summary;
    };
    const summary = job.summary ?? result.summary;
    expect(summary).toMatchObject({ total: result.cases.length, passed: result.cases.filter((c) => c.status === "passed").length });
    expect(summary.passed).toBeLessThan(summary.total);
    expect(job.status).toBe("succeeded");
    await row.getByRole("link").click();
    const verdict = page.locator(".job-verdict-line .verdict");
    await verdict.waitFor();
    expect(await verdict.innerText()).toContain(`${summary.passed}/${summary.total} passed`);
    expect(await verdict.locator(".status").innerText()).toBe("failed");
    await expect.poll(() => page.locator("tr.case-row").count()).toBe(result.cases.length);
    expect(await page.locator('tr.case-row[data-status="passed"]').count()).toBe(summary.passed);
    expect(await page.getByText("no output").count()).toBe(0);
    await shot("server-oracle-run");
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
    // What the job really got, from the server's GET /v1/jobs/{id} `inputs`, shown as a recorded job's are: the file
    // by name and size (the form zips it under its field's name, the only name the server is given), the inline
    // value, the parameters as resolved.
    const inputs = page.locator("details.section", { hasText: "inputs" }).first();
    await inputs.locator('li[data-field="text_file"]').waitFor();
    expect(await inputs.locator('li[data-field="text_file"]').innerText()).toBe("text_file: text_file (23 bytes)");
    expect(await inputs.locator("pre").innerText()).toContain('"label": "notes"');
    const parameters = page.locator("details.section", { hasText: "parameters (defaults applied)" });
    expect(JSON.parse(await parameters.locator("pre").innerText())).toEqual({ delay_ms: 3000, uppercase: true });
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
    // No parameter was filled in: the page shows the schema's defaults the job ran with, and both files.
    const parameters = page.locator("details.section", { hasText: "parameters (defaults applied)" });
    await parameters.locator("pre").waitFor();
    expect(JSON.parse(await parameters.locator("pre").innerText())).toEqual({ delay_ms: 0, uppercase: false });
    expect(await page.locator('li[data-field="stopwords"]').innerText()).toBe("stopwords: stopwords (3 bytes)");
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
    // Only the first GET is held: the page asks again once the job has ended (for its resolved inputs), after the
    // stream is over, and that answer goes through as it is.
    let held = false;
    await page.route(
      (url) => jobGet.test(url.pathname),
      async (route) => {
        if (held) return route.continue();
        held = true;
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
    await page.locator(`tr[data-run="${recordedParse}"]`).waitFor();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate((name) => document.activeElement?.textContent === name, "parse-numbers");
    }
    expect(reached).toBe(true);
    await page.keyboard.press("Enter");
    await page.waitForURL(/#\/run\//);
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
      [`#/run/${recordedParse}`, "phone-test-run"],
      [`#/run/${recordedSolve}`, "phone-solve"],
    ] as const) {
      const { page, shot } = await open(hash, { width: 390, height: 844 });
      await page.locator("h1").first().waitFor();
      await page.locator("table").first().waitFor();
      if (hash.includes(recordedParse)) await page.getByRole("button", { name: "bad digit" }).click();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${hash} is ${overflow}px wider than the window`).toBeLessThanOrEqual(0);
      await shot(name);
    }
  });
});
