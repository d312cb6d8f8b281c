/**
 * `skillrig solve` as a user runs it: the built CLI in a child process, a config in a temp folder with a user's
 * engine plugin (test/fixtures/scripted-engine.mjs) and engine variants. Checks exit codes, --json and report files.
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

let dir: string;

async function skillrig(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { cwd: dir, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-cli-"));
  await cp(join(example, "task.json"), join(dir, "task.json"));
  await cp(join(example, "reference"), join(dir, "reference"), { recursive: true });
  await cp(join(here, "fixtures", "scripted-engine.mjs"), join(dir, "scripted-engine.mjs"));
  const reference = await readFile(join(example, "reference", "solution.py"), "utf8");
  // A task whose last case has a wrong expected value: its reference check flags the case.
  const task = JSON.parse(await readFile(join(example, "task.json"), "utf8"));
  task.task_id = "run-length-with-bad-case";
  task.tests.push({ name: "wrong expected", input: ["aa"], expected: "a3" });
  await writeFile(join(dir, "flawed-task.json"), JSON.stringify(task));
  // A cli task (the entrypoint file is the deliverable) from the oracle's csv-filter example.
  await cp(join(example, "..", "oracle-csv-filter", "task.json"), join(dir, "csv-task.json"));
  const csvFilter = await readFile(join(example, "..", "oracle-csv-filter", "correct", "csv_filter.py"), "utf8");
  const variant = (label: string, files: Record<string, string>, deliverable = "solution.py") => ({
    label,
    engine: "scripted",
    options: { files, output: { deliverable } },
  });
  await writeFile(
    join(dir, "skillrig.config.json"),
    JSON.stringify({
      plugins: ["./scripted-engine.mjs"],
      solve: {
        variants: [
          variant("right", { "solution.py": reference }),
          variant("wrong", { "solution.py": "def encode(text):\n    return text\n" }),
          variant("nothing", {}),
          variant("csv", { "csv_filter.py": csvFilter }, "csv_filter.py"),
        ],
      },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("skillrig solve", () => {
  it("exits 0 when every attempt passes, with only the report on stdout under --json", async () => {
    const { code, stdout, stderr } = await skillrig("solve", "task.json", "--engine", "right", "--attempts", "2", "--json");
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.summary).toEqual({ tasks: 1, attempts: 2, passed: 2, not_passed: 0 });
    expect(report.engines[0]).toMatchObject({
      engine: "right",
      engine_name: "scripted",
      pass_at_k: { "1": 1, "2": 1 },
      usage: { inputTokens: 22, outputTokens: 14 },
    });
  });

  it("exits 1 when an attempt fails, prints a summary, and writes the reports", async () => {
    const { code, stdout, stderr } = await skillrig(
      "solve",
      "task.json",
      "-e",
      "right",
      "-e",
      "wrong,nothing",
      "--reporter",
      "html,junit",
      "--out",
      "report",
    );
    expect(code, stderr).toBe(1);
    expect(stdout).toContain("1/3 attempts passed");
    expect(stdout).toMatch(/run-length-encode: right 1\/1 \[passed\]\s+wrong 0\/1 \[failed\]\s+nothing 0\/1 \[artifact_missing\]/);
    expect(stderr).toContain("reference run-length-encode: passes every case");
    expect(await readFile(join(dir, "report", "solve-report.html"), "utf8")).toContain("<!DOCTYPE html>");
    expect(await readFile(join(dir, "report", "solve-report.junit.xml"), "utf8")).toContain('type="artifact_missing"');
  });

  it("grades a cli deliverable under its entrypoint name", async () => {
    const { code, stdout, stderr } = await skillrig("solve", "csv-task.json", "--engine", "csv", "--json");
    expect(code, stderr).toBe(0);
    const attempt = JSON.parse(stdout).tasks[0].attempts[0];
    expect(attempt).toMatchObject({ status: "passed", score: { passed: 5, total: 5 }, deliverable: { file: "csv_filter.py" } });
  });

  it("does not score cases the task's reference solution fails", async () => {
    const { code, stdout, stderr } = await skillrig("solve", "flawed-task.json", "--engine", "right", "--json");
    expect(code, stderr).toBe(0);
    const task = JSON.parse(stdout).tasks[0];
    expect(task).toMatchObject({
      total_cases: 6,
      scored_cases: 5,
      reference: { status: "flagged", flagged: [{ name: "wrong expected", status: "failed" }] },
    });
    expect(task.attempts[0]).toMatchObject({ status: "passed", score: { passed: 5, total: 5 } });
    expect(task.attempts[0].cases.map((c: { name: string }) => c.name)).not.toContain("wrong expected");
  });

  it("exits 2 for invalid input: an unknown engine, a bad task file, a reporter without --out", async () => {
    const unknownEngine = await skillrig("solve", "task.json", "--engine", "nope");
    expect(unknownEngine.code).toBe(2);
    expect(unknownEngine.stderr).toContain('error[engine_not_found]: no plugin handles engine "nope"');
    await writeFile(
      join(dir, "bad.json"),
      JSON.stringify({ contract_version: "1.0", task_id: "x", deliverable_type: "function", tests: [] }),
    );
    const badTask = await skillrig("solve", "bad.json", "--engine", "right", "--json");
    expect(badTask.code).toBe(2);
    expect(JSON.parse(badTask.stdout).error).toMatchObject({ code: "invalid_task", file: "bad.json" });
    const noOut = await skillrig("solve", "task.json", "--engine", "right", "--reporter", "html");
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain("--reporter writes report files and needs --out <dir>");
    const noEngine = await skillrig("solve", "task.json");
    expect(noEngine.code).toBe(2);
    expect(noEngine.stderr).toContain("no engine given");
  });
});
