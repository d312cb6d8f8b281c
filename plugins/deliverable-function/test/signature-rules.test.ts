/**
 * Input Contract v1.0 for function cases, checked against the real signature that the harness reads with
 * inspect.signature from a real module on disk, before any case runs.
 */
import { afterAll, describe, expect, test } from "vitest";
import type { Violation } from "@skillrig/core";
import { ARGS_LIST_MESSAGE } from "@skillrig/deliverable-function";
import { drive, makeCase, removeModules } from "./drive.js";

afterAll(removeModules);

const MODULE = `
CALLS = []

def summarize_logs(lines, last_n_errors):
    CALLS.append("summarize_logs")
    return [len(lines), last_n_errors]

def with_defaults(a, b=2, c=3):
    return [a, b, c]

def variadic(first, *rest):
    return [first, len(rest)]

def keyword_only_required(a, *, key):
    return a

def keyword_only_default(a, *, key="k"):
    return [a, key]

def positional_only(a, b, /, c=0):
    return a + b + c

def with_kwargs(a, **options):
    return [a, options]

def total(nums: list[int]) -> int:
    return sum(nums)

from math import hypot as no_signature
`;

/** Runs `tests` against `entrypoint` of MODULE; returns each case's violations and outcome. */
async function check(entrypoint: string, inputs: unknown[]) {
  const driven = await drive({ entrypoint, source: MODULE, tests: inputs.map((input) => makeCase(input)) });
  return inputs.map((_, index) => ({
    violations: driven.resolutions[index]?.violations as Violation[],
    actual: driven.outcomes[index]?.actual,
  }));
}

describe("input must be the args list", () => {
  test("anything but a list is refused with the contract's exact message and the case's pointer", async () => {
    const driven = await drive({
      entrypoint: "summarize_logs",
      source: MODULE,
      tests: [
        makeCase({ lines: [], last_n_errors: 1 }),
        makeCase("log1"),
        makeCase(10),
        makeCase(null),
        { name: "no input", input: undefined, expected: 1 },
      ],
    });
    driven.resolutions.forEach((resolution, index) => {
      expect(resolution.violations).toEqual([
        { pointer: `/tests/${index}/input`, message: ARGS_LIST_MESSAGE, rule: "args_list", file: "task.json" },
      ]);
    });
    expect(ARGS_LIST_MESSAGE).toBe("invalid_test_format: function input must be args list");
    expect(driven.outcomes.every((o) => o === undefined)).toBe(true);
  });

  test("a one-parameter function taking a list gets the list as its only arg, never unpacked", async () => {
    const [wrapped, bare] = await check("total", [[[1, 2, 3]], [1, 2, 3]]);
    expect(wrapped?.violations).toEqual([]);
    expect(wrapped?.actual).toBe(6);
    expect(bare?.violations.map((v) => v.message)).toEqual([
      "invalid_test_format: total(nums) takes 1 positional argument, the case gives 3",
    ]);
  });
});

describe("the number of args against the real signature", () => {
  test("plain parameters: exactly as many args as parameters", async () => {
    const results = await check("summarize_logs", [[["log1", "log2"], 5], [["log1"]], [[], 1, 2]]);
    expect(results[0]?.violations).toEqual([]);
    expect(results[0]?.actual).toEqual([2, 5]);
    expect(results[1]?.violations).toEqual([
      {
        pointer: "/tests/1/input",
        rule: "arity",
        file: "task.json",
        message: "invalid_test_format: summarize_logs(lines, last_n_errors) takes 2 positional arguments, the case gives 1",
      },
    ]);
    expect(results[2]?.violations[0]?.message).toBe(
      "invalid_test_format: summarize_logs(lines, last_n_errors) takes 2 positional arguments, the case gives 3",
    );
  });

  test("defaults: at least the required ones, at most all positional ones", async () => {
    const results = await check("with_defaults", [[], [1], [1, 2, 3], [1, 2, 3, 4]]);
    expect(results.map((r) => r.violations.map((v) => v.message))).toEqual([
      ["invalid_test_format: with_defaults(a, b=2, c=3) takes from 1 to 3 positional arguments, the case gives 0"],
      [],
      [],
      ["invalid_test_format: with_defaults(a, b=2, c=3) takes from 1 to 3 positional arguments, the case gives 4"],
    ]);
    expect(results[1]?.actual).toEqual([1, 2, 3]);
    expect(results[2]?.actual).toEqual([1, 2, 3]);
  });

  test("*args: no upper bound", async () => {
    const results = await check("variadic", [[], [1], [1, 2, 3, 4, 5, 6, 7]]);
    expect(results[0]?.violations.map((v) => v.message)).toEqual([
      "invalid_test_format: variadic(first, *rest) takes at least 1 positional argument, the case gives 0",
    ]);
    expect(results[1]?.actual).toEqual([1, 0]);
    expect(results[2]?.violations).toEqual([]);
    expect(results[2]?.actual).toEqual([1, 6]);
  });

  test("a required keyword-only parameter can never be met by an args list", async () => {
    const results = await check("keyword_only_required", [[1], [1, 2]]);
    for (const [index, result] of results.entries()) {
      expect(result.violations).toEqual([
        {
          pointer: `/tests/${index}/input`,
          rule: "keyword_only",
          file: "task.json",
          message:
            'invalid_test_format: keyword_only_required(a, *, key) has required keyword-only parameter "key", which a positional args list can never fill',
        },
      ]);
    }
  });

  test("a keyword-only parameter with a default and **kwargs do not count", async () => {
    const [kwDefault] = await check("keyword_only_default", [[1]]);
    expect(kwDefault?.violations).toEqual([]);
    expect(kwDefault?.actual).toEqual([1, "k"]);
    const [kwargs, tooMany] = await check("with_kwargs", [[1], [1, 2]]);
    expect(kwargs?.actual).toEqual([1, {}]);
    expect(tooMany?.violations.map((v) => v.message)).toEqual([
      "invalid_test_format: with_kwargs(a, **options) takes 1 positional argument, the case gives 2",
    ]);
  });

  test("positional-only parameters count as positional", async () => {
    const results = await check("positional_only", [[1], [1, 2], [1, 2, 3]]);
    expect(results[0]?.violations.map((v) => v.message)).toEqual([
      "invalid_test_format: positional_only(a, b, /, c=0) takes from 2 to 3 positional arguments, the case gives 1",
    ]);
    expect(results[1]?.actual).toBe(3);
    expect(results[2]?.actual).toBe(6);
  });

  test("a function whose signature inspect cannot read: only the list rule applies, and a warning says so", async () => {
    const driven = await drive({ entrypoint: "no_signature", source: MODULE, tests: [makeCase([3, 4])] });
    expect(driven.resolutions[0]?.violations).toEqual([]);
    expect(driven.resolutions[0]?.warnings).toEqual([
      expect.stringMatching(/^the number of args was not checked: inspect.signature\(no_signature\) failed: /),
    ]);
    expect(driven.outcomes[0]?.actual).toBe(5);
  });
});
