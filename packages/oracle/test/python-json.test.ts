/** Python's json and `==`, as the oracle reads and compares values (docs/values.md). */
import { describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import { compareModesPlugin, type JsonNumber, parsePythonJson, pythonEquals } from "@skillrig/oracle";

const eq = (a: string, b: string) => pythonEquals(parsePythonJson(a), parsePythonJson(b));

describe("Python's == over JSON values", () => {
  it("ints and floats compare exactly, as Python compares them", () => {
    expect(eq("3", "3.0")).toBe(true);
    expect(eq("3", "3.5")).toBe(false);
    expect(eq("9007199254740993", "9007199254740992")).toBe(false); // 2**53 + 1 != 2**53
    expect(eq("9007199254740993", "9007199254740992.0")).toBe(false); // int vs float: exact, no rounding of the int
    expect(eq("9007199254740992", "9007199254740992.0")).toBe(true);
    expect(eq("12345678901234567891", "12345678901234567891")).toBe(true);
    expect(eq("12345678901234567891", "12345678901234567890")).toBe(false);
    expect(eq(`1${"0".repeat(400)}`, "null")).toBe(false);
    expect(eq(`1${"0".repeat(400)}`, `1${"0".repeat(400)}`)).toBe(true);
    expect(eq("1e400", "Infinity")).toBe(true); // Python's json reads 1e400 as inf
    expect(eq("-0.0", "0")).toBe(true);
  });

  it("True == 1 and False == 0, as in Python; None equals only None", () => {
    expect(eq("true", "1")).toBe(true);
    expect(eq("true", "1.0")).toBe(true);
    expect(eq("false", "0")).toBe(true);
    expect(eq("true", "2")).toBe(false);
    expect(eq("null", "0")).toBe(false);
    expect(eq("null", "null")).toBe(true);
    expect(eq('"1"', "1")).toBe(false);
  });

  it("NaN equals nothing, not even NaN; Infinity equals Infinity", () => {
    expect(eq("NaN", "NaN")).toBe(false);
    expect(eq("[NaN]", "[NaN]")).toBe(false);
    expect(eq("Infinity", "Infinity")).toBe(true);
    expect(eq("-Infinity", "Infinity")).toBe(false);
    expect(eq('"NaN"', '"NaN"')).toBe(true); // in a string it is text
  });

  it("lists element by element, dicts by key regardless of order, nested", () => {
    expect(eq("[1, [2, 3]]", "[1.0, [2, 3.0]]")).toBe(true);
    expect(eq("[1, 2]", "[2, 1]")).toBe(false);
    expect(eq("[1, 2]", "[1, 2, 3]")).toBe(false);
    expect(eq('{"a": [1, {"b": null}], "c": "é"}', '{"c": "é", "a": [1.0, {"b": null}]}')).toBe(true);
    expect(eq('{"a": 1}', '{"a": 1, "b": 2}')).toBe(false);
    expect(eq('{"a": 1}', "[1]")).toBe(false);
    expect(eq("{}", "[]")).toBe(false);
  });

  it("reads Python's json: a repeated key keeps its last value; non-finite tokens only outside strings", () => {
    const value = parsePythonJson('{"1": "a", "1": "b", "s": "NaN Infinity", "n": [NaN, -Infinity]}') as Record<string, unknown>;
    expect(value["1"]).toBe("b");
    expect(value.s).toBe("NaN Infinity");
    expect((value.n as JsonNumber[]).map((n) => n.text)).toEqual(["NaN", "-Infinity"]);
    expect(() => parsePythonJson("[1,]")).toThrow(SyntaxError);
    expect(() => parsePythonJson("{'a': 1}")).toThrow(SyntaxError);
  });
});

describe("compare modes over exact values", () => {
  const runner = new Runner().use(compareModesPlugin());
  const exact = (mode: string, expected: string, actual: string, options: Record<string, unknown> = {}) =>
    runner.hooks.task.compare.for(mode).call({
      mode,
      options,
      field: "return value",
      decoded: true,
      expected: null, // the lossy value beside the exact text: the modes must not use it
      actual: null,
      exactJson: { expected, actual },
    });

  it("json and exact use the exact texts, not the lossy values beside them", () => {
    expect(exact("json", "12345678901234567891", "12345678901234567890")?.equal).toBe(false);
    expect(exact("exact", "12345678901234567891", "12345678901234567890")?.equal).toBe(false);
    expect(exact("json", "[3.0, true]", "[3, 1]")?.equal).toBe(true);
    const miss = exact("json", '{"n": 12345678901234567891}', '{"n": 12345678901234567890}');
    expect(miss?.diff).toContain('-  "n": 12345678901234567891');
    expect(miss?.diff).toContain('+  "n": 12345678901234567890');
  });

  it("a return value that is not JSON Python reads fails with a message, never passes", () => {
    const bad = exact("json", "1", '{"status": "passed"');
    expect(bad?.equal).toBe(false);
    expect(bad?.message).toMatch(/^return value is not JSON that Python's json reads/);
  });

  it("number mode reads the exact numbers and treats NaN as close to nothing", () => {
    expect(exact("number", "[1.0, 2.0]", "[1.0000000001, 2]", { rel_tol: 1e-6 })?.equal).toBe(true);
    expect(exact("number", "1.0", "NaN", { abs_tol: 1e9 })?.equal).toBe(false);
    expect(exact("number", "Infinity", "Infinity")?.equal).toBe(true);
    expect(exact("number", "Infinity", "5", { rel_tol: 0.5 })?.equal).toBe(false);
  });

  it("json mode of text output reads it as Python's json would: big integers stay exact", () => {
    const text = (expected: unknown, actual: string) =>
      runner.hooks.task.compare.for("json").call({ mode: "json", options: {}, field: "stdout", expected, actual });
    expect(text('{"n": 12345678901234567891}', '{"n": 12345678901234567891}\n')?.equal).toBe(true);
    expect(text('{"n": 12345678901234567891}', '{"n": 12345678901234567890}\n')?.equal).toBe(false);
    expect(text("[1, 2]", "[1.0, 2.0]")?.equal).toBe(true);
    expect(text("1", "NaN")?.equal).toBe(false);
  });
});
