import { describe, expect, it } from "vitest";
import { parseJsonOutput } from "@skillrig/engine-kit";

describe("parseJsonOutput", () => {
  it("takes clean JSON as it is, with no repairs", () => {
    expect(parseJsonOutput(' {"a": 1}\n')).toEqual({ ok: true, value: { a: 1 }, repairs: [], text: '{"a": 1}' });
  });

  it("strips a code fence and says so", () => {
    const r = parseJsonOutput('```json\n{"a": [1, 2]}\n```');
    expect(r).toMatchObject({ ok: true, value: { a: [1, 2] }, repairs: ["stripped a ```json code fence"] });
  });

  it("takes the last fence that parses when there are several", () => {
    const r = parseJsonOutput('Plan:\n```json\n{"draft": true\n```\nFinal:\n```json\n{"draft": false}\n```\nbye');
    expect(r).toMatchObject({ ok: true, value: { draft: false } });
  });

  it("removes prose around the JSON, ignoring braces inside strings", () => {
    const r = parseJsonOutput('Sure! Here it is: {"msg": "a } inside", "n": {"m": 2}} Hope that helps {not json}');
    expect(r).toMatchObject({ ok: true, value: { msg: "a } inside", n: { m: 2 } }, repairs: ["removed text around the JSON"] });
  });

  it("repairs trailing commas and single quotes with jsonrepair, reported", () => {
    const r = parseJsonOutput("{'a': 1, 'b': [1, 2,],}");
    expect(r).toMatchObject({ ok: true, value: { a: 1, b: [1, 2] }, repairs: ["repaired JSON syntax (jsonrepair)"] });
  });

  it("is deterministic: the same damage gives the same value and repairs", () => {
    const text = 'Result:\n```\n{"x": 1,}\n```';
    expect(parseJsonOutput(text)).toEqual(parseJsonOutput(text));
    expect(parseJsonOutput(text).repairs).toEqual(["stripped a ``` code fence", "repaired JSON syntax (jsonrepair)"]);
  });

  it("fails clearly on an empty answer or one without JSON", () => {
    expect(parseJsonOutput("   ")).toMatchObject({ ok: false, message: "the final answer is empty" });
    expect(parseJsonOutput("I could not do it.")).toMatchObject({ ok: false, message: "the final answer holds no JSON object or array" });
  });
});
