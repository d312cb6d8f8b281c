/**
 * `skillrig solve` with the Claude Code engine, as a user runs it: the built CLI in a child process, a config naming
 * @skillrig/engine-claude (by path: solve does not depend on it) with two variants playing the example's scenarios
 * through the real, pinned `claude` binary against the mock model's Anthropic Messages dialect, graded by the real
 * oracle in the real sandbox.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const here = fileURLToPath(new URL(".", import.meta.url));
const bin = resolve(here, "../../cli/dist/bin.js");
const example = resolve(here, "../../../examples/solve-run-length");
const claudePlugin = resolve(here, "../../../plugins/engine-claude/dist/index.js");

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-claude-"));
  await cp(join(example, "task.json"), join(dir, "task.json"));
  await cp(join(example, "reference"), join(dir, "reference"), { recursive: true });
  await cp(join(example, "scenarios"), join(dir, "scenarios"), { recursive: true });
  await writeFile(
    join(dir, "skillrig.config.json"),
    JSON.stringify({
      plugins: [claudePlugin],
      solve: {
        variants: [
          { label: "claude-correct", engine: "claude", options: { mock_scenario: "scenarios/correct.json" } },
          { label: "claude-buggy", engine: "claude", options: { mock_scenario: "scenarios/buggy.json" } },
        ],
      },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("skillrig solve --engine claude-correct,claude-buggy", () => {
  it("grades what Claude Code wrote on the hidden tests: the correct agent passes, the buggy one fails two cases", async () => {
    let code = 0;
    let stdout = "";
    let stderr = "";
    try {
      ({ stdout, stderr } = await exec(
        process.execPath,
        [bin, "solve", "task.json", "--engine", "claude-correct,claude-buggy", "--json", "--reporter", "html", "--out", "report"],
        { cwd: dir, timeout: 240_000 },
      ));
    } catch (error) {
      ({ code, stdout, stderr } = error as { code: number; stdout: string; stderr: string });
    }
    expect(code, stderr).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.summary).toEqual({ tasks: 1, attempts: 2, passed: 1, not_passed: 1 });
    const attempt = (label: string) => report.tasks[0].attempts.find((a: { engine: string }) => a.engine === label);

    const correct = attempt("claude-correct");
    expect(correct.status, correct.message).toBe("passed");
    expect(correct.score).toEqual({ passed: 5, total: 5 });
    expect(correct.job.engine_version).toBe("2.1.330");
    expect(correct.deliverable.content).toContain("def encode(text)");
    // Written by Claude Code's Write tool; the answer came through StructuredOutput (the skill's output schema).
    expect(correct.transcript).toContainEqual(expect.objectContaining({ type: "tool_call", tool: "Write" }));
    expect(correct.transcript).toContainEqual(expect.objectContaining({ type: "tool_call", tool: "StructuredOutput" }));
    expect(correct.usage.inputTokens).toBe(2400);

    const buggy = attempt("claude-buggy");
    expect(buggy.status).toBe("failed");
    expect(buggy.score).toEqual({ passed: 3, total: 5 });
    expect(
      buggy.cases
        .filter((c: { status: string }) => c.status !== "passed")
        .map((c: { name: string }) => c.name)
        .sort(),
    ).toEqual(["case matters", "hidden long run"]);

    for (const a of [correct, buggy]) expect(`${a.prompt}\n${a.skill_md}`).not.toContain("wwwwwwwwwwwwHIDDEN");
    expect(await readFile(join(dir, "report", "solve-report.html"), "utf8")).toContain("claude-correct");
  });
});
