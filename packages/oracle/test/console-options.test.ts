/**
 * The pieces behind `skillrig test`'s console options, on their own: pytest's -k expression, the live line for a
 * sample that did not pass, and the HTML report's escaping of what task files and deliverables put in it.
 */
import { stripVTControlCharacters } from "node:util";
import type { CaseVerdict, TaskReport } from "@skillrig/core";
import { describe, expect, it } from "vitest";
import { createSuiteProgress, formatFailure, parseCaseFilter } from "@skillrig/oracle";
import { renderHtmlReport } from "@skillrig/oracle/html-report";

describe("-k expressions (pytest's)", () => {
  const cases = ["parse empty", "parse unicode", "total", "Empty Receipt"];
  const pick = (expr: string, task = "receipt") => cases.filter((name) => parseCaseFilter(expr).matches(task, name));

  it("matches words as case-insensitive parts of the task id or the case name, with not > and > or and parentheses", () => {
    expect(pick("parse")).toEqual(["parse empty", "parse unicode"]);
    expect(pick("EMPTY")).toEqual(["parse empty", "Empty Receipt"]);
    expect(pick("parse and not empty")).toEqual(["parse unicode"]);
    expect(pick("total or unicode and parse")).toEqual(["parse unicode", "total"]);
    expect(pick("not (parse or total)")).toEqual(["Empty Receipt"]);
    expect(pick("not not total")).toEqual(["total"]);
    expect(pick("receipt")).toEqual(cases);
    expect(pick("receipt", "other-task")).toEqual(["Empty Receipt"]);
    expect(pick('"parse e" or "l"')).toEqual(["parse empty", "total"]);
  });

  it("a malformed expression is a usage error naming the expression and where it went wrong", () => {
    const problem = (expr: string) => {
      try {
        parseCaseFilter(expr);
      } catch (error) {
        return (error as Error & { code: string }).code + ": " + (error as Error).message;
      }
      return "parsed";
    };
    expect(problem("")).toBe('usage: -k "": the expression is empty at its end');
    expect(problem("parse and")).toBe('usage: -k "parse and": expected a word, not or ( at its end');
    expect(problem("(parse")).toBe('usage: -k "(parse": expected ) at its end');
    expect(problem("parse total")).toBe('usage: -k "parse total": expected and, or or the end at "total" (column 7)');
    expect(problem("or x")).toBe('usage: -k "or x": expected a word at "or" (column 1)');
    expect(problem('"open')).toBe('usage: -k ""open": the quote at column 1 is not closed');
  });
});

const verdict = (name: string, status: CaseVerdict["status"], message?: string): CaseVerdict => ({
  name,
  index: 0,
  status,
  duration_ms: 1,
  expected: 1,
  actual: 2,
  ...(message ? { message } : {}),
});
const taskReport = (cases: CaseVerdict[]): TaskReport => ({
  task_id: "t",
  deliverable_type: "function",
  summary: { total: cases.length, passed: 0, failed: cases.length, errored: 0, invalid: 0 },
  cases,
});

describe("the live line of a sample that did not pass", () => {
  const last = (result: Parameters<typeof formatFailure>[0]["result"]) => ({
    task_id: "HumanEval/3",
    sample: 4,
    status: result.status,
    result,
  });

  // The report's `sample` is 0-based; people read sample N as the N-th of the samples file (4 -> "sample 5").
  it("names the task, the sample, the first failing case and its reason on one line, and counts the others", () => {
    const report = taskReport([
      verdict("ok", "passed"),
      verdict("empty", "failed", "return value differs\n- 1\n+ 2"),
      verdict("big", "timeout", "timeout: over 5 s"),
    ]);
    expect(formatFailure(last({ sample: 4, source: "s", status: "failed", duration_ms: 1, report }))).toBe(
      "✗ HumanEval/3 sample 5 empty: failed: return value differs ⏎ - 1 ⏎ + 2 (+1 more failing case(s))",
    );
    expect(
      formatFailure(last({ sample: 4, source: "s", status: "error", duration_ms: 1, error: { code: "usage", message: "no deliverable" } })),
    ).toBe("✗ HumanEval/3 sample 5: usage: no deliverable");
  });

  it("says nothing for a sample that passed or was not run, and fits a narrow terminal", () => {
    expect(formatFailure(last({ sample: 4, source: "s", status: "passed", duration_ms: 1 }))).toBeUndefined();
    const stopped = {
      sample: 4,
      source: "s",
      status: "error" as const,
      duration_ms: 1,
      error: { code: "interrupted", message: "not run: --bail 1" },
    };
    expect(formatFailure(last(stopped))).toBeUndefined();
    const long = taskReport([verdict("case", "failed", "x".repeat(500)), verdict("b", "failed")]);
    const line = formatFailure(last({ sample: 4, source: "s", status: "failed", duration_ms: 1, report: long }), 60)!;
    expect([...line].length).toBeLessThanOrEqual(59);
    expect(line).toMatch(/… \(\+1 more failing case\(s\)\)$/);
  });
});

describe("the live line on a terminal", () => {
  it("writes a failure above the live line, which is drawn again below it", async () => {
    const written: string[] = [];
    const stream = { write: (s: string) => written.push(s) !== 0, isTTY: true, columns: 100 } as unknown as NodeJS.WritableStream;
    const progress = await createSuiteProgress({ stream, live: true });
    const report = taskReport([verdict("empty", "failed", "return value differs")]);
    const at = (done: number, status: "passed" | "failed") => ({
      done,
      total: 2,
      samplesPassed: 1,
      elapsedMs: done * 1000,
      last: {
        task_id: "t",
        sample: done,
        status,
        result: { sample: done, source: "s", status, duration_ms: 1, ...(status === "failed" ? { report } : {}) },
      },
    });
    progress.update(at(1, "passed"));
    progress.update(at(2, "failed"));
    progress.done();
    // Strip the terminal's control sequences: what stays on screen, in order.
    const text = stripVTControlCharacters(written.join(""));
    // The report's sample 2 (0-based) is the file's third.
    const failure = text.indexOf("✗ t sample 3 empty: failed: return value differs\n");
    expect(failure).toBeGreaterThan(text.indexOf("graded 1/2 samples"));
    expect(text.indexOf("graded 2/2 samples", failure)).toBeGreaterThan(failure);
  });
});

describe("the HTML report", () => {
  it("escapes what task files and deliverables wrote, and puts failing cases first", () => {
    const hostile = "</pre><script>window.__pwned = 1;</script><img src=x onerror=alert(1)>";
    const report: TaskReport = {
      ...taskReport([
        { ...verdict("passes", "passed"), index: 0 },
        { ...verdict(`bad ${hostile}`, "error", hostile), index: 1, input: [hostile], details: { traceback: hostile } },
      ]),
      summary: { total: 2, passed: 1, failed: 0, errored: 1, invalid: 0 },
    };
    const html = renderHtmlReport({ task: report });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;/pre&gt;&lt;script&gt;window.__pwned = 1;&lt;/script&gt;");
    expect(html.indexOf('class="case failing"')).toBeLessThan(html.indexOf("1 case(s) passed"));
  });
});
