import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SkillrigError, Violation } from "@skillrig/core";
import { loadTask, taskSchema, validateTask, validateTaskText } from "@skillrig/oracle";
import { writeTree } from "./helpers.js";

const valid = {
  contract_version: "1.0",
  task_id: "t1",
  deliverable_type: "function",
  entrypoint: "f",
  tests: [{ name: "a", input: [1], expected: 1 }],
};

describe("task files", () => {
  it("loads a valid task and keeps extra top-level fields from the Task Oracle API", async () => {
    const dir = writeTree({ "task.json": JSON.stringify({ ...valid, difficulty: "easy", compare: { mode: "number", abs_tol: 0.1 } }) });
    const loaded = await loadTask("task.json", dir);
    expect(loaded.task.task_id).toBe("t1");
    expect(loaded.displayPath).toBe("task.json");
    expect(loaded.file).toBe(join(dir, "task.json"));
  });

  it("ships its JSON Schema through the exports map", () => {
    const require = createRequire(import.meta.url);
    const shipped = require("@skillrig/oracle/task.schema.json");
    expect(shipped).toEqual(taskSchema);
    expect(shipped.required).toEqual(["contract_version", "task_id", "deliverable_type", "entrypoint", "tests"]);
  });

  it("lists every problem with its JSON pointer", () => {
    const bad = {
      contract_version: "2.0",
      deliverable_type: "function",
      entrypoint: "",
      tests: [
        { name: "a", input: [1], expected: 1 },
        { name: "b", expected: 1, timeout_ms: 0 },
        { name: "c", input: [], expected: 1, expect: 2, compare: 5 },
        { name: "d", input: [], expected: 1, compare: { mode: "regex", flags: "g" } },
        { name: "e", input: [], expected: 1, compare: { mode: "number", abs_tol: -1, rel_tol: "1%" } },
        { name: "f", input: [], expected: 1, compare: "" },
      ],
      limits: { timeout_ms: "10s" },
      compare: { abs_tol: 1 },
    };
    let error = undefined as unknown as SkillrigError;
    try {
      validateTask(bad, "tasks/bad.json");
    } catch (e) {
      error = e as SkillrigError;
    }
    expect(error.code).toBe("invalid_task");
    const at = Object.fromEntries(error.violations.map((v: Violation) => [v.pointer, v.message]));
    expect(at["/contract_version"]).toMatch(/constant/);
    expect(at["/task_id"]).toBe("is required");
    expect(at["/entrypoint"]).toMatch(/fewer than 1/);
    expect(at["/tests/1/input"]).toBe("is required");
    expect(at["/tests/1/timeout_ms"]).toMatch(/>= 1/);
    expect(at["/tests/2/expect"]).toBe("is not an allowed key");
    expect(at["/tests/2/compare"]).toBe("must be string,object");
    expect(at["/tests/3/compare/flags"]).toBe('must match pattern "^[imsu]*$"');
    expect(at["/tests/4/compare/abs_tol"]).toBe("must be >= 0");
    expect(at["/tests/4/compare/rel_tol"]).toBe("must be number");
    expect(at["/tests/5/compare"]).toBe("must NOT have fewer than 1 characters");
    expect(at["/limits/timeout_ms"]).toMatch(/integer/);
    expect(at["/compare/mode"]).toBe("is required");
    expect(error.violations.every((v: Violation) => v.file === "tasks/bad.json")).toBe(true);
    expect(error.message).toContain("invalid task file tasks/bad.json");
    expect(error.message).toContain("/tests/2/expect: is not an allowed key");
  });

  it("requires at least one test", () => {
    expect(() => validateTask({ ...valid, tests: [] })).toThrow(/\/tests: must NOT have fewer than 1 items/);
  });

  it("names a missing file and the line of a JSON syntax error", async () => {
    const dir = writeTree({ "broken.json": '{\n  "task_id": "x",\n  "tests": [,]\n}' });
    await expect(loadTask("missing.json", dir)).rejects.toMatchObject({
      code: "invalid_task",
      message: "task file missing.json does not exist",
    });
    await expect(loadTask("broken.json", dir)).rejects.toMatchObject({ code: "invalid_task", file: "broken.json", line: 3 });
  });
});

describe("task files: exact values and the checks that keep grading sound", () => {
  const problems = (task: unknown) => {
    try {
      validateTask(task, "task.json");
    } catch (e) {
      return Object.fromEntries((e as SkillrigError).violations.map((v: Violation) => [v.pointer, v.message]));
    }
    return {};
  };

  it("keeps each case's input and expected as JSON text with numbers exactly as written", async () => {
    const text = `{"contract_version": "1.0", "task_id": "t", "deliverable_type": "function", "entrypoint": "f",
      "tests": [{"name": "a", "input": [3.0, 12345678901234567891, 1e400, "é"], "expected": {"n": 2.50, "big": -98765432109876543210}}]}`;
    const dir = writeTree({ "task.json": text });
    const loaded = await loadTask("task.json", dir);
    expect(loaded.caseJson).toEqual([
      { input: '[3.0,12345678901234567891,1e400,"é"]', expected: '{"n":2.50,"big":-98765432109876543210}' },
    ]);
    expect(validateTaskText(text).caseJson).toEqual(loaded.caseJson);
  });

  it("refuses a key repeated within one object, naming its pointer", async () => {
    const dir = writeTree({
      "task.json": `{"contract_version": "1.0", "task_id": "t", "deliverable_type": "function", "entrypoint": "f",
        "tests": [{"name": "a", "input": [1], "expected": 1, "expected": 2}]}`,
    });
    await expect(loadTask("task.json", dir)).rejects.toMatchObject({
      code: "invalid_task",
      pointer: "/tests/0/expected",
      violations: [expect.objectContaining({ pointer: "/tests/0/expected", rule: "duplicate_key" })],
    });
  });

  it("timeouts and CPU limits have a range of 1 ms .. a day (past 2^31 ms a timer would fire at once)", () => {
    const at = problems({
      ...valid,
      limits: { timeout_ms: 2 ** 31, cpu_ms: 86_400_001 },
      tests: [{ name: "a", input: [1], expected: 1, timeout_ms: 2 ** 31 }],
    });
    expect(at["/limits/timeout_ms"]).toBe("must be <= 86400000");
    expect(at["/limits/cpu_ms"]).toBe("must be <= 86400000");
    expect(at["/tests/0/timeout_ms"]).toBe("must be <= 86400000");
    expect(problems({ ...valid, limits: { timeout_ms: 86_400_000 } })).toEqual({});
  });

  it("a regex compare whose pattern does not compile is refused at load, with the pointer and the compiler's message", () => {
    const at = problems({
      ...valid,
      compare: "regex",
      tests: [
        { name: "fn", input: [1], expected: "(unclosed" },
        { name: "script", input: {}, expected: { stdout: "ok", stderr: "[z-a]", files: { "out.txt": "*" } } },
        { name: "own mode", input: [1], expected: "(fine)", compare: { mode: "regex", flags: "u" } },
        { name: "not regex", input: [1], expected: "(", compare: "exact" },
      ],
    });
    expect(at).toEqual({
      "/tests/0/expected":
        "not a valid regular expression for the regex compare: Invalid regular expression: /(unclosed/: Unterminated group",
      "/tests/1/expected/stderr":
        "not a valid regular expression for the regex compare: Invalid regular expression: /[z-a]/: Range out of order in character class",
      "/tests/1/expected/files/out.txt":
        "not a valid regular expression for the regex compare: Invalid regular expression: /*/: Nothing to repeat",
    });
  });
});
