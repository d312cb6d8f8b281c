import { describe, expect, it } from "vitest";
import { Runner, type CaseWork, type LoadedTask, type TaskRun } from "@skillrig/core";
import cliPlugin, { PLUGIN_NAME } from "@skillrig/deliverable-cli";

function caseWork(input: unknown, deliverableType = "cli"): CaseWork {
  const loaded: LoadedTask = {
    task: { contract_version: "1.0", task_id: "t", deliverable_type: deliverableType, entrypoint: "tool.py", tests: [] },
    displayPath: "task.json",
  };
  const run = { loaded, state: new Map() } as unknown as TaskRun;
  return { kind: "case", run, index: 2, testCase: { name: "c", input, expected: {} } };
}

describe("@skillrig/deliverable-cli", () => {
  const runner = new Runner().use(cliPlugin());

  it("claims the cli deliverable type", () => {
    expect(runner.claimant("deliverable", "cli")?.plugin).toBe(PLUGIN_NAME);
    expect(runner.claimant("deliverable", "script")).toBeUndefined();
  });

  it("validates cli inputs in resolveInput with the contract's message, and fills stdin and files", async () => {
    const bad = await runner.hooks.resolveInput.promise({ value: ["--x"], violations: [] }, caseWork(["--x"]));
    expect(bad.violations).toEqual([
      { pointer: "/tests/2/input", message: "invalid_test_format: cli input must include argv", rule: "argv", file: "task.json" },
    ]);
    const good = await runner.hooks.resolveInput.promise({ value: { argv: ["a"] }, violations: [] }, caseWork({ argv: ["a"] }));
    expect(good).toEqual({ value: { argv: ["a"], stdin: "", files: {} }, violations: [] });
  });

  it("leaves cases of other deliverable types alone", async () => {
    const other = await runner.hooks.resolveInput.promise({ value: [1, 2], violations: [] }, caseWork([1, 2], "function"));
    expect(other).toEqual({ value: [1, 2], violations: [] });
  });
});
