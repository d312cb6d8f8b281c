/**
 * The plugin inside the oracle's real task flow (runTask): validation of every case first, then the runs,
 * the compare hook on the return value, and one verdict per case.
 */
import { afterAll, expect, test } from "vitest";
import { Runner, type LoadedTask } from "@skillrig/core";
import { compareModesPlugin, runTask } from "@skillrig/oracle";
import sandboxPlugin from "@skillrig/sandbox";
import deliverableFunction from "@skillrig/deliverable-function";
import { removeModules, writeModule } from "./drive.js";

afterAll(removeModules);

const SOLUTION = `
def summarize_logs(lines, last_n_errors):
    errors = [line.split(" | ")[3] for line in lines if " | ERROR | " in line]
    print(f"{len(errors)} errors")
    return {"total": len(lines), "errors": len(errors), "last_errors": errors[-last_n_errors:]}
`;

const LINES = ["2026-02-07 13:20:11 | ERROR | auth | invalid token", "2026-02-07 13:20:12 | INFO | db | connected"];

function loaded(): LoadedTask {
  return {
    displayPath: "log-summarizer.task.json",
    task: {
      contract_version: "1.0",
      task_id: "log-summarizer",
      deliverable_type: "function",
      entrypoint: "summarize_logs",
      tests: [
        { name: "Basic summary", input: [LINES, 10], expected: { total: 2, errors: 1, last_errors: ["invalid token"] } },
        { name: "Wrong expectation", input: [LINES, 10], expected: { total: 3, errors: 1, last_errors: ["invalid token"] } },
        { name: "Not an args list", input: { lines: LINES, last_n_errors: 10 }, expected: null },
        { name: "One arg short", input: [LINES], expected: null },
      ],
    },
  };
}

function runner(): Runner {
  return new Runner().use(compareModesPlugin()).use(deliverableFunction()).use(sandboxPlugin());
}

test("runTask: passed, failed and both invalid_test_format messages of the contract", async () => {
  const deliverable = await writeModule(SOLUTION);
  const report = await runTask(runner(), { loaded: loaded(), deliverable, jobs: 2 });
  expect(report.summary).toEqual({ total: 4, passed: 1, failed: 1, errored: 0, invalid: 2 });
  const byName = Object.fromEntries(report.cases.map((c) => [c.name, c]));
  expect(byName["Basic summary"]?.status).toBe("passed");
  expect(byName["Basic summary"]?.details?.stdout).toBe("1 errors\n");
  expect(byName["Wrong expectation"]?.status).toBe("failed");
  expect(byName["Wrong expectation"]?.actual).toEqual({ total: 2, errors: 1, last_errors: ["invalid token"] });
  expect(byName["Not an args list"]).toMatchObject({
    status: "invalid_test_format",
    message: "invalid_test_format: function input must be args list",
  });
  expect(byName["One arg short"]).toMatchObject({
    status: "invalid_test_format",
    message: "invalid_test_format: summarize_logs(lines, last_n_errors) takes 2 positional arguments, the case gives 1",
  });
  // The plugin records the isolation level its harness really ran with: the sandbox's.
  expect(byName["Basic summary"]?.details?.isolation).toBe(report.isolation);
});

test("runTask --strict: the task is refused before any case runs", async () => {
  const deliverable = await writeModule(SOLUTION);
  await expect(runTask(runner(), { loaded: loaded(), deliverable, strict: true })).rejects.toMatchObject({
    code: "invalid_test_format",
    pointer: "/tests/2/input",
  });
});

test("runTask: string return values compare as strings under the default json mode, never as JSON text", async () => {
  const deliverable = await writeModule('def f(t):\n    return t + "1"\n');
  const task: LoadedTask = {
    displayPath: "strings.task.json",
    task: {
      contract_version: "1.0",
      task_id: "strings",
      deliverable_type: "function",
      entrypoint: "f",
      tests: [
        { name: "plain string", input: ["z"], expected: "z1" },
        { name: "digits stay a string", input: ["1"], expected: 11 },
        { name: "digits as string", input: ["1"], expected: "11" },
      ],
    },
  };
  const report = await runTask(runner(), { loaded: task, deliverable, jobs: 2 });
  const status = Object.fromEntries(report.cases.map((c) => [c.name, c.status]));
  expect(status).toEqual({ "plain string": "passed", "digits stay a string": "failed", "digits as string": "passed" });
});
