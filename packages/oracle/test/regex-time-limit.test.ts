/** A catastrophic regex compare gets a verdict within the time limit, never a stalled grader. */
import { describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import { compareModesPlugin, REGEX_TIME_LIMIT_MS } from "@skillrig/oracle";

describe("regex compares", () => {
  const runner = new Runner().use(compareModesPlugin());
  const regex = (expected: string, actual: string) =>
    runner.hooks.task.compare.for("regex").call({ mode: "regex", options: {}, field: "stdout", expected, actual });

  it("a pattern that backtracks catastrophically on the output is stopped and does not match", () => {
    const result = regex("^(a+)+$", `${"a".repeat(40)}!`);
    expect(result?.equal).toBe(false);
    expect(result?.message).toBe(
      `stdout was not shown to match /^(a+)+$/: the search did not finish within ${REGEX_TIME_LIMIT_MS} ms (catastrophic backtracking) and was stopped`,
    );
  });

  it("the next compare after a stopped one works on a fresh worker", () => {
    expect(regex("^(a+)+$", "aaaa")?.equal).toBe(true);
    expect(regex("TOTAL \\d+", "TOTAL 12")?.equal).toBe(true);
    expect(regex("^x$", "y")?.equal).toBe(false);
  });
});
