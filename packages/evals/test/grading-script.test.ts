/**
 * `script` assertions in the real sandbox (bubblewrap, as root a per-run uid): a checker in the skill's evals/
 * passing and failing on a copy of outputs/, reading the answer file; the agent's files trying to hijack the
 * checker (a json.py the checker's `import json` would pick up from its working folder, a usercustomize.py in the
 * user site of HOME, which is the working folder by default); a checker past its time limit; and evals/ read-only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runner } from "@skillrig/core";
import type { Assertion, Grading } from "../src/format.js";
import { gradeRun } from "../src/grading/index.js";
import { copySkill, gradingRunner, input, tempFolder, writeOutputs } from "./grading-helpers.js";

let dir: string;
let cleanup: () => void;
let runner: Runner;
let skillDir: string;

beforeAll(() => {
  ({ dir, cleanup } = tempFolder("evals-grading-script-"));
  runner = gradingRunner(dir);
  skillDir = copySkill(dir);
});
afterAll(async () => {
  await runner.close();
  cleanup();
});

const check: Assertion = { kind: "script", command: 'python3 "$SKILLRIG_EVALS_DIR/check_total.py"', text: "the total is 42" };
const grade = (outputs: string, assertions: Assertion[], answer: unknown = "The total is 42."): Promise<Grading> =>
  gradeRun(input({ runner, skillDir, outputsDir: outputs, runsDir: join(dir, "runs") }, assertions, { answer }));

/** A module that, once imported, says the check passed: what an agent leaves to hijack the checker. */
const HIJACK = 'import os, sys\nprint("HIJACKED")\nsys.stdout.flush()\nos._exit(0)\n';

describe("script assertions in the sandbox", () => {
  it("passes when the checker exits 0, with its output's tail as evidence; fails with the exit code and output", async () => {
    const good = writeOutputs(dir, { "result.json": '{"total": 42}' }, "out-good");
    const bad = writeOutputs(dir, { "result.json": '{"total": 41}' }, "out-bad");
    const passed = await grade(good, [check]);
    expect(passed.assertion_results[0]).toEqual({
      text: "the total is 42",
      passed: true,
      evidence: "exit code 0; output: total=42, answer='The total is 42.'",
      graded_by: "script",
    });
    const failed = await grade(bad, [check]);
    expect(failed.assertion_results[0]).toMatchObject({
      passed: false,
      evidence: "it exited with code 1; output: total=41, answer='The total is 42.'",
    });
    // The run's outputs are untouched: the check worked on a copy.
    expect(readFileSync(join(bad, "result.json"), "utf8")).toBe('{"total": 41}');
  });

  it("the agent's json.py in outputs/ does not replace the checker's json module (PYTHONSAFEPATH): must fail", async () => {
    // `python3 -c` and `-m` put the working folder first on sys.path: without PYTHONSAFEPATH, json.py would win.
    const outputs = writeOutputs(dir, { "result.json": '{"total": 41}', "json.py": HIJACK }, "out-json-hijack");
    const inline: Assertion = {
      kind: "script",
      command: `python3 -c 'import json, sys; sys.exit(0 if json.load(open("result.json"))["total"] == 42 else 1)'`,
    };
    const g = await grade(outputs, [check, inline]);
    expect(g.assertion_results.map((r) => r.passed)).toEqual([false, false]);
    expect(g.assertion_results.map((r) => r.evidence).join("\n")).not.toContain("HIJACKED");
  });

  it("a usercustomize.py or sitecustomize.py the agent put where Python looks is not run: must fail", async () => {
    const files: Record<string, string> = { "result.json": '{"total": 41}', "sitecustomize.py": HIJACK };
    for (const minor of [8, 9, 10, 11, 12, 13, 14]) files[`.local/lib/python3.${minor}/site-packages/usercustomize.py`] = HIJACK;
    const outputs = writeOutputs(dir, files, "out-site-hijack");
    const g = await grade(outputs, [check]);
    expect(g.assertion_results[0]).toMatchObject({ passed: false, evidence: expect.stringContaining("it exited with code 1") });
    expect(g.assertion_results[0]!.evidence).not.toContain("HIJACKED");
  });

  it("a checker past its time limit is killed and fails, saying so", async () => {
    const outputs = writeOutputs(dir, { "result.json": "{}" }, "out-slow");
    const g = await grade(outputs, [{ kind: "script", command: 'echo started; python3 -c "while True: pass"', timeout_ms: 1000 }]);
    expect(g.assertion_results[0]).toMatchObject({
      text: 'the check `echo started; python3 -c "while True: pass"` passes',
      passed: false,
      evidence: "it passed its time limit (1000 ms) and was killed; output: started",
    });
  });

  it("evals/ is readable but read-only, and the agent's outputs cannot reach the runner's files", async () => {
    const outputs = writeOutputs(dir, { "result.json": "{}" }, "out-ro");
    const g = await grade(outputs, [
      { kind: "script", command: 'cat "$SKILLRIG_EVALS_DIR/expected.json"' },
      { kind: "script", command: 'echo forged > "$SKILLRIG_EVALS_DIR/expected.json"' },
      { kind: "script", command: `cat ${join(dir, "out-good", "result.json")}` },
    ]);
    expect(g.assertion_results[0]).toMatchObject({ passed: true, evidence: expect.stringContaining("EXPECTED-VALUE-IN-EVALS") });
    expect(g.assertion_results[1]).toMatchObject({
      passed: false,
      evidence: expect.stringMatching(/Read-only file system|Permission denied/),
    });
    expect(g.assertion_results[2]).toMatchObject({ passed: false, evidence: expect.stringContaining("No such file or directory") });
    expect(readFileSync(join(skillDir, "evals/expected.json"), "utf8")).toContain("EXPECTED-VALUE-IN-EVALS");
  });
});
