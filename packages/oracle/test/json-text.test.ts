/**
 * The raw-text helpers the task loader and the jobs server use before anything recursive reads a value, and
 * exactTaskText, which writes a loaded task back with its exact case values (what `--server` sends).
 */
import { describe, expect, it } from "vitest";
import { exactTaskText, findExcessiveNesting, topLevelMemberText, validateTask, validateTaskText } from "@skillrig/oracle";

describe("findExcessiveNesting", () => {
  it("counts objects and arrays, not brackets inside strings, and points at the first value past the limit", () => {
    expect(findExcessiveNesting('{"a":[[1]]}', 3)).toBeUndefined();
    expect(findExcessiveNesting('{"a":[[[1]]]}', 3)).toEqual({ pointer: "/a/0/0", maxDepth: 3 });
    expect(findExcessiveNesting('{"a":"[[[[[[{{{{", "b":"\\"[[[["}', 1)).toBeUndefined();
    expect(findExcessiveNesting('{"x":1,"k~/\\u0041":[0,1,{"y":[[]]}]}', 4)).toEqual({ pointer: "/k~0~1A/2/y/0", maxDepth: 4 });
    // A string ending in an escaped backslash closes at its quote.
    expect(findExcessiveNesting('{"a":"x\\\\","b":[[1]]}', 2)).toEqual({ pointer: "/b/0", maxDepth: 2 });
  });

  it("walks 100 000 levels without recursion", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(findExcessiveNesting(deep, 128)?.pointer).toBe(`/${Array(128).fill("0").join("/")}`);
  });
});

describe("topLevelMemberText", () => {
  it("gives a member's text exactly as sent, whatever its spacing, escapes and position", () => {
    const body = '{ "engine": {"name": "x,}"}, "t\\u0061sk" :  {"n": 3.0, "s": "a\\"}"} , "attempt": 1}';
    expect(topLevelMemberText(body, "task")).toBe('{"n": 3.0, "s": "a\\"}"}');
    expect(topLevelMemberText('{"task":[1e400]}', "task")).toBe("[1e400]");
    expect(topLevelMemberText('{"a":{"task":1}}', "task")).toBeUndefined();
    // As JSON.parse does, the last of a repeated name counts.
    expect(topLevelMemberText('{"task":1,"task":2.50}', "task")).toBe("2.50");
  });
});

describe("the task depth limit", () => {
  it("refuses a task text or value nested past 128 levels as invalid_task, naming the limit and the pointer", () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const text = `{"contract_version":"1.0","task_id":"t","deliverable_type":"function","entrypoint":"f","tests":[{"name":"a","input":[1],"expected":${deep(20_000)}}]}`;
    for (const load of [() => validateTaskText(text, "deep.json"), () => validateTask(JSON.parse(text), "deep.json")]) {
      try {
        load();
        expect.unreachable();
      } catch (error) {
        const e = error as { code: string; message: string; pointer: string; violations: Array<{ rule: string }> };
        expect(e.code).toBe("invalid_task");
        expect(e.message).toContain("more than 128 levels deep");
        expect(e.pointer).toMatch(/^\/tests\/0\/expected(\/0)+$/);
        expect(e.violations[0]!.rule).toBe("max_depth");
      }
    }
    // 128 levels are fine.
    const ok = `{"contract_version":"1.0","task_id":"t","deliverable_type":"function","entrypoint":"f","tests":[{"name":"a","input":[1],"expected":${deep(124)}}]}`;
    expect(validateTaskText(ok).task.tests).toHaveLength(1);
  });
});

describe("exactTaskText", () => {
  const text = `{"contract_version": "1.0", "task_id": "t", "deliverable_type": "function", "entrypoint": "f",
    "tests": [
      {"name": "big", "input": [9007199254740993], "expected": 9007199254740993},
      {"name": "floats", "input": [3.0, 1e400], "expected": -0.0, "compare": "json"},
      {"name": "text", "input": ["a [ 1.0 } b"], "expected": "é"}
    ]}`;

  it("reads back to the same task with the same exact case texts", () => {
    const loaded = validateTaskText(text);
    const again = validateTaskText(exactTaskText(loaded));
    expect(again.task).toEqual(loaded.task);
    expect(again.caseJson).toEqual(loaded.caseJson);
    expect(again.caseJson![0]).toEqual({ input: "[9007199254740993]", expected: "9007199254740993" });
    expect(again.caseJson![1]).toEqual({ input: "[3.0,1e400]", expected: "-0.0" });
    expect(again.caseJson![2]).toEqual({ input: '["a [ 1.0 } b"]', expected: '"é"' });
  });

  it("writes a case from its plain value when its exact text belongs to another case", () => {
    const loaded = validateTaskText(text);
    const shifted = { ...loaded, task: { ...loaded.task, tests: loaded.task.tests.slice(1) } };
    const again = validateTaskText(exactTaskText(shifted));
    expect(again.task.tests.map((t) => t.name)).toEqual(["floats", "text"]);
    expect(again.caseJson![0]!.input).toBe("[3,null]");
  });
});
