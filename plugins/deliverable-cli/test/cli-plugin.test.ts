import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner, type CaseWork, type LoadedTask, type TaskRun } from "@skillrig/core";
import cliPlugin, { PLUGIN_NAME } from "@skillrig/deliverable-cli";

const folder = mkdtempSync(join(tmpdir(), "cli-plugin-"));
writeFileSync(join(folder, "tool.py"), "print('hi')\n");

const loaded: LoadedTask = {
  task: { contract_version: "1.0", task_id: "t", deliverable_type: "cli", entrypoint: "tool.py", tests: [] },
  displayPath: "task.json",
};
const run = {
  loaded,
  deliverable: { dir: folder, entryFile: join(folder, "tool.py") },
  jobs: 1,
  signal: new AbortController().signal,
} as unknown as TaskRun;

function caseWork(input: unknown): CaseWork {
  return { run, index: 2, testCase: { name: "c", input, expected: {} } };
}

describe("@skillrig/deliverable-cli", () => {
  const runner = new Runner().use(cliPlugin());
  beforeAll(() => runner.hooks.task.setUp.for("cli").promise(run));
  afterAll(() => runner.hooks.task.tearDown.for("cli").promise(run, {} as never));

  it("claims the cli deliverable type", () => {
    expect(runner.claimant("deliverable", "cli")?.plugin).toBe(PLUGIN_NAME);
    expect(runner.claimant("deliverable", "script")).toBeUndefined();
  });

  it("validates cli inputs in resolveInput with the contract's message, and fills stdin and files", async () => {
    const resolve = (input: unknown) =>
      runner.hooks.task.resolveInput.for("cli").promise({ value: input, violations: [] }, caseWork(input));
    const bad = await resolve(["--x"]);
    expect(bad.violations).toEqual([
      { pointer: "/tests/2/input", message: "invalid_test_format: cli input must include argv", rule: "argv", file: "task.json" },
    ]);
    const good = await resolve({ argv: ["a"] });
    expect(good).toEqual({ value: { argv: ["a"], stdin: "", files: {} }, violations: [] });
  });

  it("taps only its own type: a function case's input goes through untouched", async () => {
    expect(runner.hooks.task.resolveInput.get("function")).toBeUndefined();
  });
});
