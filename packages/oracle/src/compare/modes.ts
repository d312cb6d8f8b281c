/**
 * The built-in compare modes. Each takes a CompareRequest and says whether expected and actual agree,
 * with a compact diff or an explanation when they do not.
 */
import type { CompareRequest, CompareResult } from "@skillrig/core";
import { compactDiff, DIFF_BOUNDS, type DiffBounds, DiffLines } from "./compact-diff.js";
import { pythonJsonLines } from "./diff-lines.js";
import { numbersIn as numbersInValue, parsePythonJson, pythonEquals, type PythonJsonValue } from "./python-json.js";
import { findExcessiveNesting, TASK_MAX_DEPTH } from "../json-text.js";
import { REGEX_TIME_LIMIT_MS, searchWithTimeLimit } from "./regex-search.js";
import { normalizeNewlines, renderText, trimLines } from "./text.js";

/** A compare mode; `diff` bounds the failure diff it writes (config `oracle.diff`). */
export type CompareMode = (request: CompareRequest, diff?: DiffBounds) => CompareResult;

/** A value that is already data (not text to parse) as Python's json would read it: through its JSON text. */
function fromData(value: unknown): PythonJsonValue {
  return parsePythonJson(JSON.stringify(value ?? null));
}

/** Python's `==` of two JSON values, with a diff of their exact texts (read lazily, only up to the window shown). */
function compareValues(expected: PythonJsonValue, actual: PythonJsonValue, field: string, diff: DiffBounds): CompareResult {
  if (pythonEquals(expected, actual)) return { equal: true };
  const lines = (value: PythonJsonValue) => new DiffLines(pythonJsonLines(value));
  return { equal: false, diff: compactDiff(lines(expected), lines(actual), field, diff) };
}

/**
 * The actual JSON text read as Python reads it. The parser recurses, so the depth is checked on the text first: an
 * actual nested deeper than a task may nest (TASK_MAX_DEPTH) can equal no expected value, and says so.
 */
function parseActual(text: string): PythonJsonValue {
  const deep = findExcessiveNesting(text, TASK_MAX_DEPTH);
  if (deep) throw new TooDeepActual(deep.pointer);
  return parsePythonJson(text);
}

class TooDeepActual extends Error {
  constructor(at: string) {
    super(
      `nests deeper than ${TASK_MAX_DEPTH} levels (at ${at || "the root"}), which no expected value of a task can: not equal, and not read further`,
    );
  }
}

/** The message for an actual text that could not be read: its depth, or why the parser refused it. */
function unreadable(field: string, error: unknown, what: string): string {
  return error instanceof TooDeepActual ? `${field} ${error.message}` : `${field} ${what}: ${(error as Error).message}`;
}

/** The exact values of a comparison that carries them; a message when the actual text is not JSON. */
function exactValues(
  exactJson: NonNullable<CompareRequest["exactJson"]>,
  field: string,
): { expected: PythonJsonValue; actual: PythonJsonValue } | { message: string } {
  let actual: PythonJsonValue;
  try {
    actual = parseActual(exactJson.actual);
  } catch (error) {
    return { message: unreadable(field, error, "is not JSON that Python's json reads") };
  }
  try {
    return { expected: parsePythonJson(exactJson.expected), actual };
  } catch (error) {
    return { message: `expected ${field} is not JSON: ${(error as Error).message}` };
  }
}

/** A return value's string is compared as text by the text modes; anything else by value. */
function isExactString(exactJson: CompareRequest["exactJson"]): boolean {
  return exactJson?.actual.startsWith('"') === true && exactJson.expected.startsWith('"');
}

function textMode(view: (text: string) => string): CompareMode {
  return ({ expected, actual, field, exactJson }, diff = DIFF_BOUNDS) => {
    if (exactJson && !isExactString(exactJson)) {
      // A function's return value: Python's == over the exact values (docs/values.md).
      const values = exactValues(exactJson, field);
      if ("message" in values) return { equal: false, message: values.message };
      return compareValues(values.expected, values.actual, field, diff);
    }
    if (typeof expected !== "string" && typeof actual !== "string") {
      // Both structured (exit codes, return values): compare the values themselves, as Python would.
      return compareValues(fromData(expected), fromData(actual), field, diff);
    }
    const e = view(renderText(expected));
    const a = view(renderText(actual));
    if (e === a) return { equal: true };
    return { equal: false, diff: compactDiff(e, a, field, diff) };
  };
}

/** Equal after CRLF -> LF; structured values must be deeply equal. */
export const exactMode: CompareMode = textMode(normalizeNewlines);

/** Equal after dropping trailing whitespace on each line and trailing blank lines (and CRLF -> LF). */
export const trimMode: CompareMode = textMode(trimLines);

/**
 * Python's `==` over JSON values (docs/values.md): text is read as Python's json reads it (numbers exact, NaN and
 * Infinity included), key order does not matter, 1 == 1.0 == true. A decoded actual (a function's return value) is
 * already a value: nothing is parsed, so "11" never equals 11; with `exactJson` its exact text is used.
 */
export const jsonMode: CompareMode = ({ expected, actual, field, decoded, exactJson }, diff = DIFF_BOUNDS) => {
  if (exactJson) {
    const values = exactValues(exactJson, field);
    if ("message" in values) return { equal: false, message: values.message };
    return compareValues(values.expected, values.actual, field, diff);
  }
  if (decoded) return compareValues(fromData(expected), fromData(actual), field, diff);
  let actualValue: PythonJsonValue;
  try {
    actualValue = typeof actual === "string" ? parseActual(actual) : fromData(actual);
  } catch (error) {
    return { equal: false, message: unreadable(field, error, "is not valid JSON") };
  }
  // An expected string that is not JSON stands for itself (a JSON string value).
  let expectedValue: PythonJsonValue;
  try {
    expectedValue = typeof expected === "string" ? parsePythonJson(expected) : fromData(expected);
  } catch {
    expectedValue = expected as string;
  }
  return compareValues(expectedValue, actualValue, field, diff);
};

/** `expected` is a regular expression searched for in the actual text (anchor with ^ and $ for a full match). */
export const regexMode: CompareMode = ({ expected, actual, field, options }, diff = DIFF_BOUNDS) => {
  if (typeof expected !== "string") return { equal: false, message: `regex mode needs the expected ${field} to be a pattern string` };
  const flags = typeof options.flags === "string" ? options.flags : "";
  const text = normalizeNewlines(renderText(actual));
  // On a worker with a deadline: a pattern that backtracks catastrophically on this text cannot stall the grader.
  const search = searchWithTimeLimit(expected, flags, text);
  if ("error" in search) return { equal: false, message: `expected ${field} is not a valid regular expression: ${search.error}` };
  if ("timedOut" in search) {
    return {
      equal: false,
      message: `${field} was not shown to match /${expected}/${flags}: the search did not finish within ${REGEX_TIME_LIMIT_MS} ms (catastrophic backtracking) and was stopped`,
    };
  }
  if (search.matched) return { equal: true };
  return { equal: false, message: `${field} does not match /${expected}/${flags}`, diff: compactDiff(expected, text, field, diff) };
};

const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/g;

/**
 * The numbers in the actual text are compared, in order, with the numbers in expected:
 * |actual - expected| <= max(abs_tol, rel_tol * |expected|) (defaults abs_tol 0, rel_tol 1e-9, as Python's isclose).
 * Text around the numbers is not compared.
 */
export const numberMode: CompareMode = ({ expected, actual, field, options, exactJson }, diff = DIFF_BOUNDS) => {
  const absTol = typeof options.abs_tol === "number" ? options.abs_tol : 0;
  const relTol = typeof options.rel_tol === "number" ? options.rel_tol : 1e-9;
  let e = numbersIn(expected);
  let a = numbersIn(actual);
  if (exactJson && !isExactString(exactJson)) {
    // A return value: its numbers as read exactly, in order (a float stays the double Python has).
    const values = exactValues(exactJson, field);
    if ("message" in values) return { equal: false, message: values.message };
    e = numbersInValue(values.expected);
    a = numbersInValue(values.actual);
  }
  if (e.length !== a.length) {
    return {
      equal: false,
      message: `${field} has ${a.length} number(s), expected ${e.length}`,
      diff: compactDiff(e.join("\n"), a.join("\n"), `${field} numbers`, diff),
    };
  }
  for (let i = 0; i < e.length; i++) {
    const want = e[i]!;
    const got = a[i]!;
    // NaN is close to nothing (as in math.isclose); an infinity only to itself.
    const close =
      got === want || (Number.isFinite(got) && Number.isFinite(want) && Math.abs(got - want) <= Math.max(absTol, relTol * Math.abs(want)));
    if (!close) {
      return {
        equal: false,
        message: `${field} number #${i + 1} is ${got}, expected ${want} (abs_tol ${absTol}, rel_tol ${relTol})`,
      };
    }
  }
  return { equal: true };
};

function numbersIn(value: unknown): number[] {
  if (typeof value === "number") return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === "number")) return value as number[];
  return (renderText(value).match(NUMBER) ?? []).map(Number);
}

export const BUILTIN_MODES: Record<string, CompareMode> = {
  exact: exactMode,
  trim: trimMode,
  json: jsonMode,
  regex: regexMode,
  number: numberMode,
};
