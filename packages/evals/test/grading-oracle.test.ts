/**
 * `oracle` assertions: examples/solve-run-length's task, copied into a fixture skill's evals/, grades the deliverable
 * the run left in outputs/ in the real sandbox: the example's reference solution passes (5/5), a buggy one fails
 * naming its first failing case, and two deliverables of packages/hostile-corpus must fail every case: one hunts for
 * the task file to copy expected values (out of its reach), one returns an object equal to everything (values are
 * compared as JSON, outside the sandbox).
 */
import { readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runner } from "@skillrig/core";
import type { Assertion, Grading } from "../src/format.js";
import { gradeRun } from "../src/grading/index.js";
import { copySkill, FIXTURES, gradingRunner, input, tempFolder, writeOutputs } from "./grading-helpers.js";

let dir: string;
let cleanup: () => void;
let runner: Runner;
let skillDir: string;

beforeAll(() => {
  ({ dir, cleanup } = tempFolder("evals-grading-oracle-"));
  runner = gradingRunner(dir);
  skillDir = copySkill(dir);
});
afterAll(async () => {
  await runner.close();
  cleanup();
});

const oracle: Assertion = { kind: "oracle", task: "evals/task.json", deliverable: "solution.py" };

const repo = resolve(import.meta.dirname, "../../..");
/** The deliverables: the example's reference solution, the fixture's buggy one, and two of the hostile corpus. */
const DELIVERABLES = {
  correct: join(repo, "examples/solve-run-length/reference/solution.py"),
  buggy: join(FIXTURES, "rle-skill/evals/deliverables/buggy/solution.py"),
  // Hunts for the task file (every process's command line and working folder, /tmp, the folders around it).
  "read-task-file": join(repo, "packages/hostile-corpus/fixtures/reward-hacking/read-task-file/deliverable/solution.py"),
  // Returns an object whose __eq__ says True to everything.
  "eq-always-true": join(repo, "packages/hostile-corpus/fixtures/reward-hacking/eq-always-true/deliverable/solution.py"),
};

/** outputs/ holding one deliverable as solution.py; the corpus's `solve(x)` is exported as the task's `encode`. */
function outputsWith(which: keyof typeof DELIVERABLES): string {
  const source = readFileSync(DELIVERABLES[which], "utf8");
  return writeOutputs(dir, { "solution.py": /^def solve\(/m.test(source) ? `${source}\nencode = solve\n` : source }, `out-${which}`);
}

const grade = (outputs: string, assertions: Assertion[] = [oracle]): Promise<Grading> =>
  gradeRun(input({ runner, skillDir, outputsDir: outputs, runsDir: join(dir, "runs") }, assertions));

describe("oracle assertions", () => {
  it("a correct deliverable passes every case of the task", async () => {
    const g = await grade(outputsWith("correct"));
    expect(g.assertion_results[0]).toEqual({
      text: "solution.py passes every case of evals/task.json",
      passed: true,
      evidence: "5/5 cases passed",
      graded_by: "oracle",
    });
  });

  it("a wrong deliverable fails, naming its first failing case", async () => {
    const g = await grade(outputsWith("buggy"));
    expect(g.assertion_results[0]).toMatchObject({
      passed: false,
      evidence: expect.stringMatching(/^[0-4]\/5 cases passed; first failure: hidden long run: failed/),
    });
  });

  for (const which of ["read-task-file", "eq-always-true"] as const) {
    it(`a hostile deliverable from the corpus (${which}) that tries to forge the verdict: must fail every case`, async () => {
      const g = await grade(outputsWith(which));
      expect(g.assertion_results[0]!.passed).toBe(false);
      expect(g.assertion_results[0]!.evidence).toMatch(/^0\/5 cases passed; first failure: single character: (failed|error)/);
      expect(g.errors).toBeUndefined();
    });
  }

  it("a missing deliverable, a linked one and a task outside the skill fail with evidence", async () => {
    const outputs = writeOutputs(dir, { "real.py": "def encode(text):\n    return text\n" }, "out-links");
    symlinkSync(DELIVERABLES.correct, join(outputs, "solution.py"));
    const g = await grade(outputs, [
      oracle,
      { kind: "oracle", task: "evals/task.json", deliverable: "missing.py" },
      { kind: "oracle", task: "../rle-skill/evals/../../../etc/task.json", deliverable: "solution.py" },
      { kind: "oracle", task: "evals/no-such-task.json", deliverable: "real.py" },
    ]);
    expect(g.assertion_results.map((r) => [r.passed, r.evidence])).toEqual([
      [false, "the deliverable solution.py is a symbolic link; links in outputs/ are never followed"],
      [false, "the deliverable missing.py does not exist in outputs/"],
      [false, "the task ../rle-skill/evals/../../../etc/task.json is not inside the skill folder"],
      [false, expect.stringMatching(/^the oracle could not grade: \[\w+\] .*no-such-task\.json/)],
    ]);
    expect(g.errors).toEqual([
      "assertion 3 (oracle): oracle ../rle-skill/evals/../../../etc/task.json: the task ../rle-skill/evals/../../../etc/task.json is not inside the skill folder",
      expect.stringMatching(/^assertion 4 \(oracle\): oracle evals\/no-such-task\.json: \[\w+\]/),
    ]);
  });
});
