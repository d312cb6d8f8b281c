import { describe, expect, it } from "vitest";
import { Runner, type CompareRequest } from "@skillrig/core";
import { compareModesPlugin } from "@skillrig/oracle";

const runner = new Runner().use(compareModesPlugin());
const compare = (mode: string, expected: unknown, actual: unknown, options: Record<string, unknown> = {}) =>
  runner.hooks.task.compare.for(mode).call({ mode, expected, actual, options, field: "stdout" } satisfies CompareRequest);

describe("compare modes", () => {
  it("claims exactly the five built-in modes and answers only for them", () => {
    expect(runner.claims("compare").map((c) => c.name)).toEqual(["exact", "trim", "json", "regex", "number"]);
    expect(compare("fuzzy", "a", "a")).toBeUndefined();
  });

  it("exact: equal after CRLF -> LF only", () => {
    expect(compare("exact", "a\nb\n", "a\r\nb\r\n")?.equal).toBe(true);
    expect(compare("exact", "a\nb", "a\nb ")?.equal).toBe(false);
    expect(compare("exact", "a\nb", "a\nb\n")?.equal).toBe(false);
    expect(compare("exact", 0, 0)?.equal).toBe(true);
    expect(compare("exact", 0, 1)?.equal).toBe(false);
    const miss = compare("exact", "one\ntwo\nthree", "one\nTWO\nthree");
    expect(miss?.diff).toContain("-two");
    expect(miss?.diff).toContain("+TWO");
  });

  it("trim: trailing whitespace per line and trailing blank lines are ignored, nothing else", () => {
    expect(compare("trim", "a\nb", "a   \nb\t\n\n\n")?.equal).toBe(true);
    expect(compare("trim", "a\nb", "a\r\nb\r\n")?.equal).toBe(true);
    expect(compare("trim", "a\nb", " a\nb")?.equal).toBe(false); // leading space counts
    expect(compare("trim", "a\nb", "a\n\nb")?.equal).toBe(false); // inner blank line counts
  });

  it("json: a decoded actual (a function's return value) is a value, never parsed as JSON text", () => {
    const decoded = (expected: unknown, actual: unknown) =>
      runner.hooks.task.compare.for("json").call({ mode: "json", expected, actual, options: {}, field: "return value", decoded: true });
    expect(decoded("z1", "z1")?.equal).toBe(true);
    expect(decoded(11, "11")?.equal).toBe(false);
    expect(decoded("11", 11)?.equal).toBe(false);
    expect(decoded({ b: [1], a: "x" }, { a: "x", b: [1] })?.equal).toBe(true);
    expect(decoded("a", "b")?.diff).toContain("return value");
  });

  it("json: parses strings where needed and compares deeply, ignoring key order", () => {
    expect(compare("json", { a: 1, b: [1, 2] }, '{"b": [1, 2], "a": 1}\n')?.equal).toBe(true);
    expect(compare("json", '{"a": 1}', '{ "a" : 1 }')?.equal).toBe(true);
    expect(compare("json", { a: 1 }, { a: 1.0 })?.equal).toBe(true);
    expect(compare("json", [1, 2], [2, 1])?.equal).toBe(false);
    expect(compare("json", { a: 1 }, { a: "1" })?.equal).toBe(false);
    const notJson = compare("json", { a: 1 }, "a=1");
    expect(notJson?.equal).toBe(false);
    expect(notJson?.message).toMatch(/^stdout is not valid JSON/);
    expect(compare("json", { a: 1, b: 2 }, { a: 1, b: 3 })?.diff).toContain('+  "b": 3');
  });

  it("regex: searches for the pattern, with optional flags", () => {
    expect(compare("regex", "TOTAL \\d+\\.\\d\\d", "items...\nTOTAL 18.20\n")?.equal).toBe(true);
    expect(compare("regex", "^total", "TOTAL", { flags: "i" })?.equal).toBe(true);
    expect(compare("regex", "^total", "TOTAL")?.equal).toBe(false);
    expect(compare("regex", "^b$", "a\nb", { flags: "m" })?.equal).toBe(true);
    const bad = compare("regex", "(", "x");
    expect(bad?.equal).toBe(false);
    expect(bad?.message).toMatch(/not a valid regular expression/);
  });

  it("number: compares the numbers in order within abs_tol / rel_tol", () => {
    expect(compare("number", "mean 3.14159 n=3", "mean: 3.1416, n = 3", { abs_tol: 0.001 })?.equal).toBe(true);
    expect(compare("number", "3.14159", "3.1416")?.equal).toBe(false); // default is Python's isclose: rel_tol 1e-9
    expect(compare("number", "1000", "1001", { rel_tol: 0.01 })?.equal).toBe(true);
    expect(compare("number", "1000", "1011", { rel_tol: 0.01 })?.equal).toBe(false);
    expect(compare("number", 2.5, "2.5e0")?.equal).toBe(true);
    expect(compare("number", "-1.5 -2", "-1.5 -2")?.equal).toBe(true);
    const count = compare("number", "1 2 3", "1 2");
    expect(count?.equal).toBe(false);
    expect(count?.message).toBe("stdout has 2 number(s), expected 3");
    expect(compare("number", "1 2", "1 5", { abs_tol: 0.5 })?.message).toBe(
      "stdout number #2 is 5, expected 2 (abs_tol 0.5, rel_tol 1e-9)",
    );
  });
});

describe("compact diffs", () => {
  it("keep long outputs short", async () => {
    const { compactDiff } = await import("@skillrig/oracle");
    const expected = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n");
    const actual = Array.from({ length: 200 }, (_, i) => `LINE ${i}`).join("\n");
    const diff = compactDiff(expected, actual, "stdout");
    expect(diff.split("\n").length).toBeLessThanOrEqual(41);
    expect(diff).toMatch(/more diff lines$/);
    expect(diff.startsWith("--- expected stdout")).toBe(true);
  });
});
