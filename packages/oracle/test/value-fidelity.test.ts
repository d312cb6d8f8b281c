/**
 * Values reach Python exactly as Python's json reads the task file, and come back compared with Python's `==`
 * (docs/values.md): through the real CLI, the real harness and the real sandbox.
 */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { availableLevels } from "@skillrig/sandbox";
import { writeTree } from "./helpers.js";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const bin = join(repo, "packages/cli/dist/bin.js");
const fixture = resolve(fileURLToPath(import.meta.url), "../value-fidelity");
const level = availableLevels().find((l) => l.available)?.level ?? "none";

async function grade(task: string) {
  // The config (naming the level) in a folder of its own; the task and the module straight from the fixture folder.
  const dir = writeTree({ "skillrig.config.json": JSON.stringify({ sandbox: { level } }) });
  const args = ["test", join(fixture, task), "--deliverable", join(fixture, "solution.py"), "--json"];
  const stdout = await new Promise<string>((done) => {
    execFile(process.execPath, [bin, ...args], { cwd: dir }, (_error, out) => done(out));
  });
  const report = JSON.parse(stdout) as {
    cases: Array<{ name: string; status: string; message: string | null; details?: Record<string, unknown> }>;
  };
  return Object.fromEntries(report.cases.map((c) => [c.name, c]));
}

describe(`value fidelity (sandbox level ${level})`, () => {
  it("HumanEval's any_int(3.0, 4, 7) gets the float 3.0 and is False", async () => {
    const cases = await grade("any-int-task.json");
    expect(Object.values(cases).map((c) => [c.status, c.message])).toEqual([
      ["passed", null],
      ["passed", null],
      ["passed", null],
    ]);
  });

  it("floats vs ints, integers past 2^53, huge returns, NaN, tuples, nested structures, non-ASCII", async () => {
    const cases = await grade("task.json");
    const statuses = Object.fromEntries(Object.entries(cases).map(([name, c]) => [name, c.status]));
    expect(statuses).toEqual({
      "a float stays a float": "passed",
      "an int stays an int": "passed",
      "an int past 2^53 arrives exact": "passed",
      "2^53 + 1 computed exactly passes": "passed",
      "2^53 + 1 through a float fails": "failed",
      "an expected value past 2^53 that is off by one fails": "failed",
      "10**400 is not null": "failed",
      "10**20 equals its exact digits": "passed",
      "an int equals the same float (Python's 3 == 3.0)": "passed",
      "True equals 1 (Python's True == 1)": "passed",
      "NaN equals nothing": "failed",
      "inf equals 1e400, which Python's json reads as inf": "passed",
      "a tuple is a list": "passed",
      "int dict keys become strings": "passed",
      "non-ASCII round trip": "passed",
      "a set is an error naming its type": "error",
    });
    expect(cases["an expected value past 2^53 that is off by one fails"]?.details?.return_json).toBe("12345678901234567891");
    expect(cases["NaN equals nothing"]?.details?.return_json).toBe("NaN");
    expect(cases["a set is an error naming its type"]?.message).toBe(
      "the return value cannot be represented in JSON: set {1} (TypeError: Object of type set is not JSON serializable)",
    );
  });
});
