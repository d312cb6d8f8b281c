/**
 * The built-in compare modes. Each takes a CompareRequest and says whether expected and actual agree,
 * with a compact diff or an explanation when they do not.
 */
import { isDeepStrictEqual } from "node:util";
import type { CompareRequest, CompareResult } from "@skillrig/core";
import { compactDiff } from "./compact-diff.js";
import { normalizeNewlines, renderText, trimLines } from "./text.js";

export type CompareMode = (request: CompareRequest) => CompareResult;

function textMode(view: (text: string) => string): CompareMode {
  return ({ expected, actual, field }) => {
    if (typeof expected !== "string" && typeof actual !== "string") {
      // Both structured (exit codes, return values): compare the values themselves.
      if (isDeepStrictEqual(expected, actual)) return { equal: true };
      return { equal: false, diff: compactDiff(expected, actual, field) };
    }
    const e = view(renderText(expected));
    const a = view(renderText(actual));
    if (e === a) return { equal: true };
    return { equal: false, diff: compactDiff(e, a, field) };
  };
}

/** Equal after CRLF -> LF; structured values must be deeply equal. */
export const exactMode: CompareMode = textMode(normalizeNewlines);

/** Equal after dropping trailing whitespace on each line and trailing blank lines (and CRLF -> LF). */
export const trimMode: CompareMode = textMode(trimLines);

/**
 * Strings are parsed as JSON where needed; then the values must be deeply equal (key order does not matter).
 * A decoded actual (a function's return value) is already a value: nothing is parsed, so "11" never equals 11.
 */
export const jsonMode: CompareMode = ({ expected, actual, field, decoded }) => {
  if (decoded) {
    if (isDeepStrictEqual(toPlain(expected), toPlain(actual))) return { equal: true };
    return { equal: false, diff: compactDiff(sortKeys(expected), sortKeys(actual), field) };
  }
  const a = parseJson(actual);
  if (!a.ok) return { equal: false, message: `${field} is not valid JSON: ${a.error}` };
  // An expected string that is not JSON stands for itself (a JSON string value).
  const e = parseJson(expected);
  const expectedValue = e.ok ? e.value : expected;
  if (isDeepStrictEqual(toPlain(expectedValue), toPlain(a.value))) return { equal: true };
  return { equal: false, diff: compactDiff(sortKeys(expectedValue), sortKeys(a.value), field) };
};

/** `expected` is a regular expression searched for in the actual text (anchor with ^ and $ for a full match). */
export const regexMode: CompareMode = ({ expected, actual, field, options }) => {
  if (typeof expected !== "string") return { equal: false, message: `regex mode needs the expected ${field} to be a pattern string` };
  const flags = typeof options.flags === "string" ? options.flags : "";
  let pattern: RegExp;
  try {
    pattern = new RegExp(expected, flags);
  } catch (error) {
    return { equal: false, message: `expected ${field} is not a valid regular expression: ${(error as Error).message}` };
  }
  const text = normalizeNewlines(renderText(actual));
  if (pattern.test(text)) return { equal: true };
  return { equal: false, message: `${field} does not match /${expected}/${flags}`, diff: compactDiff(expected, text, field) };
};

const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/g;

/**
 * The numbers in the actual text are compared, in order, with the numbers in expected:
 * |actual - expected| <= max(abs_tol, rel_tol * |expected|) (defaults abs_tol 0, rel_tol 1e-9, as Python's isclose).
 * Text around the numbers is not compared.
 */
export const numberMode: CompareMode = ({ expected, actual, field, options }) => {
  const absTol = typeof options.abs_tol === "number" ? options.abs_tol : 0;
  const relTol = typeof options.rel_tol === "number" ? options.rel_tol : 1e-9;
  const e = numbersIn(expected);
  const a = numbersIn(actual);
  if (e.length !== a.length) {
    return {
      equal: false,
      message: `${field} has ${a.length} number(s), expected ${e.length}`,
      diff: compactDiff(e.join("\n"), a.join("\n"), `${field} numbers`),
    };
  }
  for (let i = 0; i < e.length; i++) {
    const want = e[i]!;
    const got = a[i]!;
    if (Math.abs(got - want) > Math.max(absTol, relTol * Math.abs(want))) {
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

function parseJson(value: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (typeof value !== "string") return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** JSON.parse output and values from the deliverable may differ in prototype only; compare data, not classes. */
function toPlain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export const BUILTIN_MODES: Record<string, CompareMode> = {
  exact: exactMode,
  trim: trimMode,
  json: jsonMode,
  regex: regexMode,
  number: numberMode,
};
