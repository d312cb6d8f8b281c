/**
 * Issue 38, fail closed on vacuity: a report holding fewer verdicts than cases were selected (a sample host that
 * died mid-run, a truncated results stream from a server) is marked incomplete, is never a pass, and says so.
 */
import { describe, expect, it } from "vitest";
import type { CaseVerdict, TaskReport } from "@skillrig/core";
import { incompleteLine, withCompleteness } from "@skillrig/oracle";
import { sampleStatus } from "@skillrig/oracle/suite";
import { toJsonReport } from "../src/reporters/json-report.js";

const verdict = (index: number): CaseVerdict => ({ name: `c${index}`, index, status: "passed", duration_ms: 1, expected: 1, actual: 1 });

function report(indexes: number[], total = indexes.length): TaskReport {
  const cases = indexes.map(verdict);
  return {
    task_id: "t",
    deliverable_type: "function",
    summary: { total, passed: cases.length, failed: 0, errored: 0, invalid: 0 },
    cases,
  };
}

describe("reports that end early", () => {
  it("a complete report is returned as it is", () => {
    const whole = report([0, 1, 2]);
    expect(withCompleteness(whole, 3, "the run")).toBe(whole);
  });

  it("a truncated one (every verdict it has passed) is incomplete, not a pass, in every view of it", () => {
    // The server sent 2 verdicts of 3 and a summary that counts only those: read naively, "2/2 passed".
    const checked = withCompleteness(report([0, 1]), 3, "the oracle run on http://127.0.0.1:1");
    expect(checked.incomplete).toEqual({
      reason: "the oracle run on http://127.0.0.1:1 ended early: 1 of the 3 selected case(s) got no verdict",
      missing: 1,
    });
    expect(checked.summary.total).toBe(3);
    expect(sampleStatus(checked.summary, checked.incomplete)).toBe("error");
    expect(toJsonReport(checked).incomplete).toEqual(checked.incomplete);
    expect(incompleteLine(checked)).toMatch(/^incomplete report: .*; this is not a pass$/);
  });

  it("a case reported twice does not stand in for a missing one", () => {
    const doubled = report([0, 0, 1]);
    const checked = withCompleteness(doubled, 3, "the run");
    expect(checked.incomplete?.missing).toBe(1);
    expect(checked.incomplete?.reason).toMatch(/1 case\(s\) have more than one verdict/);
  });

  it("cases --bail stopped (not_run) count as accounted for", () => {
    const bailed = { ...report([0], 2), not_run: [{ name: "c1", index: 1, reason: "--bail" }] };
    expect(withCompleteness(bailed, 2, "the run").incomplete).toBeUndefined();
  });
});
