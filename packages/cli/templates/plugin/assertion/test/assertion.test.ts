/**
 * The kind as `skillrig eval` uses it: an assertion checked against its schema (what evals.json loading reports,
 * with pointers), then graded on a run's outputs with the same safe reader.
 */
import { describe, expect, it } from "vitest";
import { checkAssertion, gradeAssertion } from "@skillrig/assertion-kit/testing";
import __PLUGIN__ from "../src/index.js";

const kind = __PLUGIN__();
const assertion = { kind: "__KIND__", path: "report.csv", columns: ["month", "revenue"], min_rows: 2 };

describe("__NAME__", () => {
  it("passes a CSV that loads with the columns and rows it needs, saying what it found", async () => {
    const verdict = await gradeAssertion(kind, assertion, { outputs: { "report.csv": "month,revenue\n2025-07,18250\n2025-05,16400\n" } });
    expect(verdict).toEqual({ passed: true, evidence: "report.csv loads: 2 rows, columns month, revenue" });
  });

  it("fails a CSV that does not load, naming the line", async () => {
    const verdict = await gradeAssertion(kind, assertion, { outputs: { "report.csv": "month,revenue\n2025-07,18250,extra\n" } });
    expect(verdict).toEqual({
      passed: false,
      evidence: "report.csv does not load: line 2: 3 cells where the header has 2 (month, revenue)",
    });
  });

  it("fails when the file is missing", async () => {
    expect(await gradeAssertion(kind, assertion, { outputs: {} })).toEqual({
      passed: false,
      evidence: "report.csv does not exist in outputs/",
    });
  });

  it("refuses a misspelt field and a missing path with their pointers, before anything runs", () => {
    const problems = checkAssertion(kind, { kind: "__KIND__", paht: "report.csv" });
    expect(problems.map((p) => [p.pointer, p.message])).toEqual([
      ["/path", "is required"],
      ["/paht", "is not an allowed key"],
    ]);
    expect(checkAssertion(kind, { kind: "__KIND__", path: "r.csv", min_rows: -1 }).map((p) => p.pointer)).toEqual(["/min_rows"]);
  });
});
