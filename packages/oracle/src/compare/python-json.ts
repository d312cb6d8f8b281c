/**
 * JSON values as Python's json module reads them, and Python's `==` over them (docs/values.md).
 *
 * Numbers keep the text they were written with (`JsonNumber`): a literal with `.`, `e` or `E` is a float (a double,
 * read as Python's float() reads it: `1e400` is inf), anything else is an int of any size (BigInt). NaN, Infinity and
 * -Infinity are read as Python's json reads them (its json.dumps writes them for non-finite floats).
 *
 * Parsing is lossless-json's (numbers handed over as their text); Python's three extra tokens are swapped for
 * strings carrying a random marker before it parses, and swapped back after.
 */
import { randomBytes } from "node:crypto";
import { parse } from "../lossless-json.js";

export class JsonNumber {
  /** True for an int literal (no `.`, `e` or `E`), false for a float or NaN/Infinity. */
  readonly isInteger: boolean;
  constructor(readonly text: string) {
    this.isInteger = /^-?\d+$/.test(text);
  }
  /** The float value (an int as the nearest double: for tolerances and display only). */
  toNumber(): number {
    return this.text === "NaN" ? Number.NaN : Number(this.text);
  }
  toBigInt(): bigint {
    return BigInt(this.text);
  }
  /** For JSON.stringify in reports: a number when the double is exact, else the literal as a string. */
  toJSON(): number | string {
    const value = this.toNumber();
    return Number.isFinite(value) && (!this.isInteger || Number.isSafeInteger(value)) ? value : this.text;
  }
}

export type PythonJsonValue = null | boolean | string | JsonNumber | PythonJsonValue[] | { [key: string]: PythonJsonValue };

const NON_FINITE = /NaN|Infinity/;

/**
 * Reads JSON text as Python's json.loads does (NaN/Infinity/-Infinity included; a repeated key keeps its last
 * value). Throws a SyntaxError naming the position when the text is not JSON.
 */
export function parsePythonJson(text: string): PythonJsonValue {
  const parseNumber = (literal: string) => new JsonNumber(literal);
  // A repeated key keeps the last value, as in Python (json.dumps writes {1: "a", "1": "b"} with "1" twice).
  const options = { parseNumber, onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue };
  if (!NON_FINITE.test(text)) return parse(text, null, options) as PythonJsonValue;
  const marker = `\u0000nonfinite-${randomBytes(8).toString("hex")}:`;
  const swapped = swapNonFiniteTokens(text, marker);
  return parse(
    swapped,
    (_key, value) => (typeof value === "string" && value.startsWith(marker) ? new JsonNumber(value.slice(marker.length)) : value),
    options,
  ) as PythonJsonValue;
}

/** Replaces the bare tokens NaN, Infinity and -Infinity (outside strings) with marked strings. */
function swapNonFiniteTokens(text: string, marker: string): string {
  let out = "";
  let inString = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") {
        out += text.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (c === '"') inString = false;
      out += c;
      i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      i++;
      continue;
    }
    const token = ["-Infinity", "Infinity", "NaN"].find((t) => text.startsWith(t, i));
    if (token) {
      out += JSON.stringify(marker + token);
      i += token.length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

type Scalar = { kind: "int"; value: bigint } | { kind: "float"; value: number };

/** A number as Python sees it; booleans are ints (True == 1), as in Python. */
function numeric(value: PythonJsonValue): Scalar | undefined {
  if (typeof value === "boolean") return { kind: "int", value: value ? 1n : 0n };
  if (value instanceof JsonNumber) {
    return value.isInteger ? { kind: "int", value: value.toBigInt() } : { kind: "float", value: value.toNumber() };
  }
  return undefined;
}

function numbersEqual(a: Scalar, b: Scalar): boolean {
  if (a.kind === "int" && b.kind === "int") return a.value === b.value;
  if (a.kind === "float" && b.kind === "float") return a.value === b.value; // NaN equals nothing; -0.0 == 0.0
  const int = (a.kind === "int" ? a.value : b.value) as bigint;
  const float = (a.kind === "float" ? a.value : b.value) as number;
  // Python compares int and float exactly: 2**53 + 1 != 2.0**53.
  return Number.isFinite(float) && Number.isInteger(float) && BigInt(float) === int;
}

/** Python's `==` between two values read from JSON. An explicit stack: a value nested any depth cannot overflow it. */
export function pythonEquals(left: PythonJsonValue, right: PythonJsonValue): boolean {
  const pending: Array<[PythonJsonValue, PythonJsonValue]> = [[left, right]];
  for (let pair = pending.pop(); pair; pair = pending.pop()) {
    const [a, b] = pair;
    const na = numeric(a);
    const nb = numeric(b);
    if (na || nb) {
      if (na === undefined || nb === undefined || !numbersEqual(na, nb)) return false;
      continue;
    }
    if (a === null || b === null || typeof a === "string" || typeof b === "string") {
      if (a !== b) return false;
      continue;
    }
    if (Array.isArray(a) || Array.isArray(b)) {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
      // Pushed last-first, so items are compared in order.
      for (let i = a.length - 1; i >= 0; i--) pending.push([a[i]!, b[i]!]);
      continue;
    }
    const oa = a as Record<string, PythonJsonValue>;
    const ob = b as Record<string, PythonJsonValue>;
    const keys = Object.keys(oa);
    if (keys.length !== Object.keys(ob).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(ob, key)) return false;
      pending.push([oa[key]!, ob[key]!]);
    }
  }
  return true;
}

/** Every number in a value, in order (booleans are not counted), as doubles: for tolerance compares. No recursion. */
export function numbersIn(value: PythonJsonValue): number[] {
  const found: number[] = [];
  const pending: PythonJsonValue[] = [value];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (item instanceof JsonNumber) found.push(item.toNumber());
    else if (item !== null && typeof item === "object") {
      const members = Array.isArray(item) ? item : Object.values(item);
      for (let i = members.length - 1; i >= 0; i--) pending.push(members[i]!);
    }
  }
  return found;
}
