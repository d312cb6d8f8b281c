/**
 * End to end with the real Gemini CLI (the pinned @google/gemini-cli) against @skillrig/mock-model scenarios:
 * one batch, three variants of the gemini engine (a correct deliverable, a buggy one, none at all) and the real Codex
 * CLI writing a correct one through its own apply_patch tool, graded by the
 * real oracle in the real sandbox, then the HTML report opened in headless Chromium. Kept to one batch because
 * each CLI run takes seconds.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSchema, Runner, type JsonSchema } from "@skillrig/core";
import { compareModesPlugin } from "@skillrig/oracle";
import deliverableFunction from "@skillrig/deliverable-function";
import sandboxPlugin from "@skillrig/sandbox";
import { skillProtocolPlugin } from "@skillrig/skills";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import CodexEnginePlugin from "@skillrig/engine-codex";
import { loadScenario } from "@skillrig/mock-model";
import { loadSolveTasks, solve, writeSolveReports, type SolveReport } from "@skillrig/solve";
import { withPage } from "./browser.js";

const example = resolve(fileURLToPath(new URL("../../../examples/solve-run-length", import.meta.url)));
const scenario = (name: string) => loadScenario(join(example, "scenarios", `${name}.json`));

let dir: string;
let report: SolveReport;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-e2e-"));
  const runner = new Runner({ cwd: dir })
    .use(new GeminiEnginePlugin())
    .use(new CodexEnginePlugin())
    .use(compareModesPlugin())
    .use(deliverableFunction())
    .use(skillProtocolPlugin())
    .use(sandboxPlugin());
  const tasks = await loadSolveTasks([join(example, "task.json")], dir);
  report = await solve(runner, {
    tasks,
    engines: [
      ...["correct", "buggy", "silent"].map((name) => ({
        name: "gemini",
        label: `gemini-${name}`,
        options: { mock_scenario: scenario(name) },
      })),
      { name: "codex", label: "codex-correct", options: { mock_scenario: scenario("correct") } },
      // An agent that goes for the hidden tests: the task file by its path, and through every process's command line
      // and working folder (how an agent once found it). The agent jail must leave it nothing to read.
      {
        name: "gemini",
        label: "gemini-cheater",
        options: {
          approval_mode: "yolo",
          mock_scenario: {
            turns: [
              {
                shell: {
                  command: `cat ${join(example, "task.json")} || echo task-file-unreadable; cat /proc/[0-9]*/cmdline | tr "\\0" "\\n" | grep -F task.json | while IFS= read -r f; do [ -f "$f" ] && cat "$f"; done; cat /proc/[0-9]*/cwd/task.json; echo probe-done`,
                },
              },
              // Then it claims a result without writing one, as the "silent" agent does.
              { json: { deliverable: "solution.py" } },
            ],
          },
        },
      },
    ],
    attempts: 1,
    jobs: 4,
    runsDir: join(dir, "runs"),
    timeoutMs: 90_000,
  });
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const attemptOf = (engine: string) => report.tasks[0]!.attempts.find((a) => a.engine === engine)!;

describe("skillrig solve with the real Gemini CLI and the mock model", () => {
  it("validates the task against its reference solution first", () => {
    expect(report.tasks[0]!.reference).toMatchObject({ status: "passed", flagged: [] });
    expect(report.tasks[0]).toMatchObject({ total_cases: 5, scored_cases: 5 });
  });

  it("passes the attempt whose agent wrote a correct deliverable", () => {
    const a = attemptOf("gemini-correct");
    expect(a.status, a.message).toBe("passed");
    expect(a.score).toEqual({ passed: 5, total: 5 });
    expect(a.deliverable?.file).toBe("solution.py");
    expect(a.deliverable?.content).toContain("def encode(text)");
    expect(a.job?.engine_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(a.usage.inputTokens).toBeGreaterThan(0);
    expect(a.transcript.some((e) => e.type === "tool_call" || e.type === "file_change")).toBe(true);
  });

  it("an agent in the jail cannot reach the hidden tests (the task file, directly or through /proc)", () => {
    const a = attemptOf("gemini-cheater");
    const shellOutput = a.transcript
      .filter((e) => e.type === "tool_result")
      .map((e) => (e as { output?: string }).output ?? "")
      .join("\n");
    expect(shellOutput).toContain("probe-done");
    expect(shellOutput).toContain("task-file-unreadable");
    expect(shellOutput).not.toContain("hidden long run");
  });

  it("passes the Codex CLI's correct deliverable too", () => {
    const a = attemptOf("codex-correct");
    expect(a.status, a.message).toBe("passed");
    expect(a.deliverable?.content).toContain("def encode(text)");
  });

  it("fails exactly the hidden cases the buggy deliverable gets wrong, with diffs", () => {
    const a = attemptOf("gemini-buggy");
    expect(a.status).toBe("failed");
    const notPassed = a.cases
      .filter((c) => c.status !== "passed")
      .map((c) => c.name)
      .sort();
    expect(notPassed).toEqual(["case matters", "hidden long run"]);
    expect(a.score).toEqual({ passed: 3, total: 5 });
    expect(a.cases.find((c) => c.name === "case matters")).toMatchObject({ status: "failed", actual: "a4" });
    expect(a.cases.find((c) => c.name === "case matters")?.diff).toBeTruthy();
  });

  it("ends the attempt whose agent wrote nothing as artifact_missing", () => {
    const a = attemptOf("gemini-silent");
    expect(a.status).toBe("artifact_missing");
    expect(a.job?.error?.code).toBe("artifact_missing");
    expect(a.message).toContain("solution.py");
    expect(a.cases).toEqual([]);
  });

  it("never shows the agent a hidden test", () => {
    for (const a of report.tasks[0]!.attempts) {
      expect(a.prompt).toContain("run-length-encode");
      expect(a.prompt).not.toContain("wwwwwwwwwwwwHIDDEN");
      expect(a.skill_md).toContain("aaab");
      expect(a.skill_md).toContain("Define a top-level function named `encode`");
      for (const hidden of ["wwwwwwwwwwwwHIDDEN", "w12H1I1D2E1N1", "aAaa", "a1A1a2", "abab", "single character"]) {
        expect(
          `${a.prompt}\n${a.skill_md}\n${JSON.stringify(a.transcript.filter((e) => e.type === "message" && e.role === "user"))}`,
        ).not.toContain(hidden);
      }
    }
  });

  it("summarises per engine, and the HTML report opens in headless Chromium without console errors", async () => {
    expect(report.engines.map((e) => [e.engine, e.passed, e.pass_at_k["1"]])).toEqual([
      ["gemini-correct", 1, 1],
      ["gemini-buggy", 0, 0],
      ["gemini-silent", 0, 0],
      ["codex-correct", 1, 1],
      ["gemini-cheater", 0, 0],
    ]);
    const files = await writeSolveReports(report, ["html", "json", "junit"], join(dir, "report"));
    const json = JSON.parse(await readFile(files[1]!, "utf8"));
    expect(json.summary).toEqual({ tasks: 1, attempts: 5, passed: 2, not_passed: 3 });
    // The JSON report as written matches the schema the package ships (@skillrig/solve/solve-report.schema.json).
    const schema = JSON.parse(await readFile(join(import.meta.dirname, "../src/solve-report.schema.json"), "utf8")) as JsonSchema;
    expect(compileSchema(schema).validate(json)).toEqual([]);
    // Each transcript event says when it came, so a viewer can show the time between events.
    const transcript = report.tasks[0]!.attempts[0]!.transcript;
    expect(transcript.length).toBeGreaterThan(0);
    const times = transcript.map((e) => Date.parse(e.at!));
    expect(times.every(Number.isFinite)).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    await withPage(files[0]!, async (page, problems) => {
      expect(await page.locator("#matrix tbody tr.task-row").count()).toBe(1);
      expect(await page.locator('#matrix td[data-engine="gemini-correct"]').innerText()).toContain("1/1 passed");
      expect(await page.locator('details.attempt[data-status="artifact_missing"]').count()).toBe(2);
      await page.click("#expand-all");
      expect(await page.locator('details.attempt[data-engine="gemini-buggy"] tr.case[data-status="failed"]').count()).toBe(2);
      expect(await page.locator('details.attempt[data-engine="gemini-correct"] details.transcript').innerText()).toContain("write_file");
      expect(problems).toEqual([]);
    });
  });
});
