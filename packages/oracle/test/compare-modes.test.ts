import { describe, expect, it } from "vitest";
import { Runner, type CompareRequest } from "@skillrig/core";
import { compareModesPlugin } from "@skillrig/oracle";
// The module-level pieces of the bounded diff (not exported from the package).
import { compactDiff, DiffLines } from "../src/compare/compact-diff.js";
import { pythonJsonLines } from "../src/compare/diff-lines.js";
import { JsonNumber, pythonEquals, type PythonJsonValue } from "../src/compare/python-json.js";

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

describe("bounded diffs (issue 38: a wrong answer of any size cannot stall the grader)", () => {
  const jsonCompare = (expected: string, actual: string) =>
    runner.hooks.task.compare.for("json").call({
      mode: "json",
      expected: null,
      actual: null,
      options: {},
      field: "return value",
      decoded: true,
      exactJson: { expected, actual },
    } satisfies CompareRequest);
  const list = (length: number, at: (i: number) => number) => `[${Array.from({ length }, (_, i) => at(i)).join(", ")}]`;
  const shape = (diff: string) => {
    const lines = diff.split("\n");
    expect(lines.length).toBeLessThanOrEqual(41);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(300);
    return lines;
  };

  it("a wrong 100,000-integer list fails with a short diff at its first difference", () => {
    // Every item differs: a full line diff of this is ~10^10 steps (what stalled the grader past 150 s).
    const result = jsonCompare(
      list(100_000, (i) => i),
      list(100_000, (i) => 2 * i + 1),
    );
    expect(result?.equal).toBe(false);
    const lines = shape(result!.diff!);
    expect(lines.slice(0, 3)).toEqual([
      "--- expected return value",
      "+++ actual return value",
      expect.stringMatching(/^@@ first difference at line 2/),
    ]);
    expect(lines).toContain("-  0,");
    expect(lines).toContain("+  1,");
  });

  it("a difference near the end of a huge list is found, with the lines before it as context", () => {
    const result = jsonCompare(
      list(100_000, (i) => i),
      list(100_000, (i) => (i === 99_998 ? -1 : i)),
    );
    const lines = shape(result!.diff!);
    expect(lines[2]).toMatch(/^@@ first difference at line 100000, character 3 /);
    expect(lines).toEqual(expect.arrayContaining(["   99996,", "   99997,", "-  99998,", "+  -1,"]));
  });

  it("values nested 50,000 deep are compared and diffed without recursion", () => {
    const deep = (leaf: string) => `${"[".repeat(50_000)}${leaf}${"]".repeat(50_000)}`;
    // lossless-json's parser recurses, so the values are built here as the runner holds them after reading.
    const build = (leaf: number) => {
      let value: unknown = new JsonNumber(String(leaf));
      for (let i = 0; i < 50_000; i++) value = [value];
      return value as PythonJsonValue;
    };
    expect(deep("1").length).toBe(100_001);
    expect(pythonEquals(build(1), build(1))).toBe(true);
    expect(pythonEquals(build(1), build(2))).toBe(false);
    const diff = compactDiff(new DiffLines(pythonJsonLines(build(1))), new DiffLines(pythonJsonLines(build(2))), "value");
    const lines = shape(diff);
    expect(lines.some((line) => line.startsWith("-") && line.trim().endsWith("1"))).toBe(true);
  });

  it("a huge one-line string is cut around its first differing character", () => {
    const expected = "a".repeat(5_000_000);
    const actual = `${"a".repeat(3_000_000)}b${"a".repeat(1_999_999)}`;
    const lines = shape(compactDiff(expected, actual, "stdout"));
    expect(lines[2]).toBe("@@ first difference at line 1, character 3000001 (the diff shows a window there) @@");
    expect(lines[4]).toMatch(/^\+\[2999960 characters\] a+ba+ \[\d+ more characters\]$/);
  });

  it("many keys: the first differing key in sorted order", () => {
    const object = (change: boolean) =>
      `{${Array.from({ length: 50_000 }, (_, i) => `"k${String(i).padStart(5, "0")}": ${change && i === 30_000 ? 0 : i}`).join(", ")}}`;
    const lines = shape(jsonCompare(object(false), object(true))!.diff!);
    expect(lines).toEqual(expect.arrayContaining(['-  "k30000": 30000,', '+  "k30000": 0,']));
  });
});

describe("diff bounds from the config (oracle.diff)", () => {
  it("a config's max_lines and max_line_chars bound the diff a compare mode writes", () => {
    const bounded = new Runner({ config: { oracle: { diff: { max_lines: 12, max_line_chars: 60 } } } as never }).use(compareModesPlugin());
    const expected = Array.from({ length: 5000 }, (_, i) => `line ${i} ${"x".repeat(100)}`).join("\n");
    const actual = Array.from({ length: 5000 }, (_, i) => `LINE ${i} ${"x".repeat(100)}`).join("\n");
    const result = bounded.hooks.task.compare.for("exact").call({ mode: "exact", expected, actual, options: {}, field: "stdout" });
    const lines = result!.diff!.split("\n");
    expect(lines.length).toBeLessThanOrEqual(13);
    expect(lines.every((line) => line.length <= 60 + 40)).toBe(true);
    // The default bounds give the longer diff.
    expect(compare("exact", expected, actual)!.diff!.split("\n").length).toBeGreaterThan(13);
  });
});

describe("an actual value nested past any task's depth", () => {
  it("a stdout of JSON nested 100,000 deep is unequal, saying why, without reading it recursively", () => {
    const deep = `${"[".repeat(100_000)}1${"]".repeat(100_000)}`;
    const result = compare("json", "[[1]]", deep);
    expect(result?.equal).toBe(false);
    expect(result?.message).toMatch(/^stdout nests deeper than 128 levels \(at \/0\/0\/.*\), which no expected value of a task can/);
  });
});
