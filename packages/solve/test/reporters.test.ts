import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toSolveHtml, toSolveJunit, writeSolveReports } from "@skillrig/solve";
import { HOSTILE, hostileReport } from "./report-fixture.js";
import { withPage } from "./browser.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-reporters-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("engine summary", () => {
  it("gives pass rates and pass@k per engine averaged over tasks", () => {
    const [gemini, codex] = hostileReport().engines;
    // gemini: rle 1/2, t2 0/2 -> pass@1 = (0.5 + 0) / 2, pass@2 = (1 + 0) / 2
    expect(gemini).toMatchObject({
      engine: "gemini",
      attempts: 4,
      passed: 1,
      pass_rate: 0.25,
      tasks_solved: 1,
      pass_at_k: { "1": 0.25, "2": 0.5 },
    });
    expect(codex).toMatchObject({
      passed: 2,
      pass_at_k: { "1": 0.5, "2": 1 },
      tasks_solved: 2,
      statuses: { passed: 2, artifact_missing: 1, engine_failed: 1 },
    });
    expect(gemini!.usage).toMatchObject({ inputTokens: 480, outputTokens: 120, engineMs: 6000, reported: true });
  });
});

describe("JUnit report", () => {
  it("has a suite per task and engine, failures for wrong or missing deliverables and errors for engine failures", () => {
    const xml = toSolveJunit(hostileReport());
    expect(xml).toMatch(/<testsuites name="skillrig solve" tests="8" failures="4" errors="1"/);
    expect(xml).toContain('<testsuite name="rle [codex]" tests="2" failures="1" errors="0"');
    expect(xml).toMatch(/<failure message="the agent|<failure message="not passed[^"]*" type="artifact_missing"/);
    expect(xml).toMatch(/<error message="not passed[^"]*" type="engine_failed"/);
    expect(xml).not.toContain("<script>");
    expect(xml).toContain("&lt;script&gt;");
    // A failing case's input is in the failure text.
    expect(xml).toMatch(/input: \[&quot;in &lt;\/pre&gt;&lt;script&gt;|input: \["in &lt;\/pre&gt;&lt;script&gt;/);
  });
});

describe("HTML report", () => {
  it("escapes everything the agent and the task produced", () => {
    const html = toSolveHtml(hostileReport());
    expect(html).not.toContain("<script>window.__pwned");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;/pre&gt;&lt;script&gt;window.__pwned = 1;");
    // The failing case's input, escaped like everything else.
    expect(html).toMatch(/<pre class="input">\[\n {2}&quot;in &lt;\/pre&gt;&lt;script&gt;window.__pwned/);
    expect(html.match(/<script>/g)).toHaveLength(1); // the report's own
    expect(html).not.toMatch(/<(link|img|iframe)\b|src="http|href="http/);
  });

  it("renders in headless Chromium with the expected rows, working controls and no console errors", async () => {
    const [file] = await writeSolveReports(hostileReport(), ["html"], dir);
    expect(file).toBe(join(dir, "solve-report.html"));
    await withPage(file!, async (page, problems) => {
      expect(await page.title()).toBe("skillrig solve: 3/8 attempts passed");
      expect(await page.locator("#engines tbody tr").count()).toBe(2);
      expect(await page.locator("#matrix tbody tr.task-row").count()).toBe(2);
      expect(await page.locator('#matrix tr[data-task="t<2>"] td[data-engine="codex"]').innerText()).toContain("1/2 passed");
      expect(await page.locator("details.attempt").count()).toBe(8);
      expect(await page.locator('details.attempt[data-status="artifact_missing"]').innerText()).toContain("artifact_missing");
      // The hostile text is shown as text, never run.
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      await page.click("#expand-all");
      const deliverable = page
        .locator('details.attempt[data-task="rle"][data-engine="gemini"][data-attempt="1"] details.deliverable pre')
        .first();
      expect(await deliverable.innerText()).toContain(HOSTILE);
      const diff = page.locator('details.attempt[data-task="rle"][data-engine="gemini"][data-attempt="2"] pre.diff');
      expect(await diff.innerText()).toContain(`+ ${HOSTILE}`);
      await page.check("#only-failing");
      expect(await page.locator("details.attempt.passed").first().isVisible()).toBe(false);
      expect(await page.locator("details.attempt.not-passed").first().isVisible()).toBe(true);
      expect(problems).toEqual([]);
    });
  });

  it("writes JSON and JUnit next to it and refuses unknown reporters", async () => {
    const files = await writeSolveReports(hostileReport(), ["json", "junit"], dir);
    expect(JSON.parse(await readFile(files[0]!, "utf8"))).toMatchObject({
      kind: "skillrig-solve-report",
      summary: { attempts: 8, passed: 3 },
    });
    expect(await readFile(files[1]!, "utf8")).toContain("<testsuites");
    await expect(writeSolveReports(hostileReport(), ["pdf"], dir)).rejects.toMatchObject({ code: "usage", field: "--reporter" });
  });
});
