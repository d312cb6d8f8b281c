/**
 * The type graded by the real oracle in the real sandbox, as `skillrig test` grades it: a solution that passes every
 * case, one that fails, and a task case the type refuses before anything runs.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import { compareModesPlugin, loadTask, resolveDeliverable, runTask } from "@skillrig/oracle";
import sandboxPlugin from "@skillrig/sandbox";
import __PLUGIN__ from "../src/index.js";

const fixtures = resolve(import.meta.dirname, "fixtures");
const runner = new Runner().use(__PLUGIN__()).use(compareModesPlugin()).use(sandboxPlugin());
afterAll(() => runner.close());

async function grade(taskFile: string, solution: string) {
  const loaded = await loadTask(taskFile);
  const report = await runTask(runner, { loaded, deliverable: await resolveDeliverable(runner, solution, loaded.task), jobs: 1 });
  return Object.fromEntries(report.cases.map((c) => [c.name, c.status]));
}

describe("__NAME__", () => {
  it("passes a solution that does what the task says", async () => {
    expect(await grade(join(fixtures, "task.json"), join(fixtures, "solution"))).toEqual({
      "upper case": "passed",
      "no words": "passed",
      "to a file": "passed",
    });
  });

  it("fails a solution that does not", async () => {
    const wrong = mkdtempSync(join(tmpdir(), "__TYPE__-"));
    writeFileSync(join(wrong, "shout.mjs"), "console.log(process.argv.slice(2).join(' '));\n");
    expect(await grade(join(fixtures, "task.json"), wrong)).toMatchObject({ "upper case": "failed", "no words": "failed" });
  });

  it("refuses a case without argv before it runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "__TYPE__-"));
    const task = { contract_version: "1.0", task_id: "t", deliverable_type: "__TYPE__", entrypoint: "shout.mjs" };
    writeFileSync(
      join(dir, "task.json"),
      JSON.stringify({ ...task, tests: [{ name: "stdin only", input: { stdin: "x" }, expected: {} }] }),
    );
    expect(await grade(join(dir, "task.json"), join(fixtures, "solution"))).toEqual({ "stdin only": "invalid_test_format" });
  });
});
