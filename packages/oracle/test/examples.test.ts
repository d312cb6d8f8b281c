/**
 * The examples in examples/oracle-* through the real CLI (the built bin, run as a user would, from the example's
 * folder so its skillrig.config.json applies): verdicts per case and exit codes.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const bin = join(repo, "packages/cli/dist/bin.js");

function skillrig(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? Number((error as NodeJS.ErrnoException & { code: unknown }).code) : 0, stdout, stderr });
    });
  });
}

async function grade(example: string, deliverable: string, task = "task.json", extra: string[] = []) {
  const cwd = join(repo, "examples", example);
  const result = await skillrig(["test", task, "--deliverable", deliverable, "--json", ...extra], cwd);
  const report = JSON.parse(result.stdout);
  const statuses = Object.fromEntries((report.cases ?? []).map((c: { name: string; status: string }) => [c.name, c.status]));
  return { ...result, report, statuses, cwd };
}

describe("examples through the skillrig CLI", () => {
  it("oracle-log-summarizer (function): correct passes, buggy fails and errors", async () => {
    const correct = await grade("oracle-log-summarizer", "correct");
    expect(correct.code).toBe(0);
    expect(correct.report.summary).toEqual({ total: 6, passed: 6, failed: 0, errored: 0, invalid: 0 });
    const buggy = await grade("oracle-log-summarizer", "buggy/log_summary.py");
    expect(buggy.code).toBe(1);
    expect(buggy.statuses).toEqual({
      "Basic summary": "passed",
      "keeps only the last N errors, oldest first": "passed",
      "zero errors asked for": "failed",
      "malformed lines are counted, not fatal": "error",
      "no lines": "passed",
      "a message may contain the separator": "error",
    });
  });

  it("oracle-receipt-parser (script): correct passes, buggy fails", async () => {
    const correct = await grade("oracle-receipt-parser", "correct");
    expect(correct.code).toBe(0);
    expect(correct.report.summary.passed).toBe(6);
    const buggy = await grade("oracle-receipt-parser", "buggy/parse_receipt.py");
    expect(buggy.code).toBe(1);
    expect(buggy.statuses).toEqual({
      "contract example": "failed",
      "writes receipt.json": "failed",
      "CRLF line ends and blank lines": "passed",
      "many small amounts (number mode)": "passed",
      "total line": "failed",
      "missing receipt.txt is exit code 1": "failed",
    });
    const contract = buggy.report.cases.find((c: { name: string }) => c.name === "contract example");
    expect(contract.message).toMatch(/^exited with code 1 \(expected 0\): .*ValueError: not enough values to unpack/);
    expect(contract.diff).toContain("-BANANA 1 x 3.20 = 3.20");
  });

  it("oracle-csv-filter (cli): correct passes, buggy fails", async () => {
    const correct = await grade("oracle-csv-filter", "correct");
    expect(correct.code).toBe(0);
    expect(correct.report.summary.passed).toBe(5);
    const buggy = await grade("oracle-csv-filter", "buggy");
    expect(buggy.code).toBe(1);
    expect(buggy.statuses).toEqual({
      "contract example": "passed",
      "no row matches: header only": "passed",
      "equality, not substring": "failed",
      "quoted field with a comma": "failed",
      "missing column is exit code 2 with a message": "failed",
    });
  });

  it("oracle-invalid-cases: both contract messages, invalid cases never run, exit 2", async () => {
    const cli = await grade("oracle-invalid-cases", "correct");
    expect(cli.code).toBe(2);
    expect(cli.report.summary).toEqual({ total: 8, passed: 2, failed: 0, errored: 0, invalid: 6 });
    const byName = Object.fromEntries(cli.report.cases.map((c: { name: string }) => [c.name, c]));
    expect(byName["argv missing"].message).toBe("invalid_test_format: cli input must include argv");
    expect(byName["input written as an args list (function style)"].message).toBe("invalid_test_format: cli input must include argv");
    expect(byName["argv holds a number"].details.violations[0].pointer).toBe("/tests/4/input/argv/1");
    expect(byName["files key climbs out with .."].status).toBe("invalid_test_format");
    expect(byName["files key is absolute"].status).toBe("invalid_test_format");
    expect(byName["argv missing"].actual).toBeNull();

    const fn = await grade("oracle-invalid-cases", "correct/solution.py", "function-task.json");
    expect(fn.code).toBe(2);
    expect(fn.statuses["valid: adds"]).toBe("passed");
    const messages = fn.report.cases.map((c: { message: string | null }) => c.message);
    expect(messages).toContain("invalid_test_format: function input must be args list");
    expect(fn.report.summary.invalid).toBe(4);
  });

  it("--strict refuses the task: nothing runs, stdout holds only the error, exit 2", async () => {
    const strict = await grade("oracle-invalid-cases", "correct", "task.json", ["--strict"]);
    expect(strict.code).toBe(2);
    expect(strict.report.error.code).toBe("invalid_test_format");
    expect(strict.report.error.message).toContain("nothing was run");
    expect(strict.report.error.violations.map((v: { pointer: string }) => v.pointer)).toContain("/tests/2/input");
  });

  it("writes JUnit and JSON report files with --reporter ... --out", async () => {
    const out = tempDir();
    const cwd = join(repo, "examples", "oracle-csv-filter");
    const result = await skillrig(
      ["test", "task.json", "-d", "buggy", "--reporter", "junit", "--reporter", "json,console", "--out", out],
      cwd,
    );
    expect(result.code).toBe(1);
    expect(existsSync(join(out, "oracle-csv-filter.junit.xml"))).toBe(true);
    const xml = readFileSync(join(out, "oracle-csv-filter.junit.xml"), "utf8");
    expect(xml).toContain('<testsuite name="oracle-csv-filter" tests="5" failures="3" errors="0"');
    expect(JSON.parse(readFileSync(join(out, "oracle-csv-filter.json"), "utf8")).summary.failed).toBe(3);
    expect(result.stdout).toContain("oracle-csv-filter: 5 case(s): 2 passed, 3 failed, 0 errored, 0 invalid");
    expect(result.stderr).toMatch(/\[\d\/5\] ✗ equality, not substring/);
  });

  it("exits 2 with a clear error for a broken task file or misuse", async () => {
    const dir = join(repo, "examples", "oracle-csv-filter");
    const noOut = await skillrig(["test", "task.json", "-d", "correct", "--reporter", "junit"], dir);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain("error[usage]: --reporter junit writes <task_id>.junit.xml and needs --out <dir>");
    const noDeliverable = await skillrig(["test", "task.json"], dir);
    expect(noDeliverable.code).toBe(2);
    expect(noDeliverable.stderr).toContain("--deliverable");
    const missing = await skillrig(["test", "nope.json", "-d", "correct", "--json"], dir);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: "invalid_task", message: "task file nope.json does not exist" });
    const badJobs = await skillrig(["test", "task.json", "-d", "correct", "--jobs", "0"], dir);
    expect(badJobs.code).toBe(2);
    const broken = tempDir();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      join(broken, "task.json"),
      JSON.stringify({
        contract_version: "1.0",
        task_id: "x",
        deliverable_type: "cli",
        entrypoint: "t.py",
        tests: [{ name: "a", input: {} }],
      }),
    );
    const invalid = await skillrig(["test", join(broken, "task.json"), "-d", join(dir, "correct"), "--json"], dir);
    expect(invalid.code, invalid.stderr).toBe(2);
    expect(JSON.parse(invalid.stdout).error).toMatchObject({ code: "invalid_task", pointer: "/tests/0/expected" });
  });
});
