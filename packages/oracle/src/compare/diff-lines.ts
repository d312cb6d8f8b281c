/**
 * Lines to diff, made lazily: a diff reads only as far as the first difference and a bounded window after it, so a
 * value or a text of any size costs no more than what is read of it. Nothing here recurses (a value nested 100,000
 * deep is walked with an explicit stack).
 */
import { JsonNumber, type PythonJsonValue } from "./python-json.js";

/** Indentation stops growing past this depth: display only, so a deep value's lines stay short. */
export const MAX_INDENT_DEPTH = 32;

/** The lines of a text (split on "\n"), one at a time; an empty text has none. */
export function* textLines(text: string): Generator<string> {
  if (text === "") return;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    if (end === -1) {
      yield text.slice(start);
      return;
    }
    yield text.slice(start, end);
    start = end + 1;
  }
}

interface Open {
  /** The container's items (a list) or its sorted keys (an object). */
  readonly keys: readonly string[] | undefined;
  readonly items: PythonJsonValue[] | Record<string, PythonJsonValue>;
  next: number;
  /** The closing line: bracket plus the comma the container owes its parent. */
  readonly close: string;
}

function indentOf(depth: number): string {
  return "  ".repeat(Math.min(depth, MAX_INDENT_DEPTH));
}

function scalarText(value: PythonJsonValue): string | undefined {
  if (value instanceof JsonNumber) return value.text;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  return undefined;
}

/**
 * The lines of a value as indented JSON text (, sorted keys, numbers exactly as read), one at a time;
 * indentation is capped at MAX_INDENT_DEPTH levels.
 */
export function* pythonJsonLines(value: PythonJsonValue): Generator<string> {
  const stack: Open[] = [];
  // Opens `item` at `depth`: yields its first line, and pushes it when it has members.
  function* open(item: PythonJsonValue, prefix: string, suffix: string, depth: number): Generator<string> {
    const indent = indentOf(depth);
    const scalar = scalarText(item);
    if (scalar !== undefined) {
      yield `${indent}${prefix}${scalar}${suffix}`;
      return;
    }
    const list = Array.isArray(item);
    const keys = list ? undefined : Object.keys(item as object).sort();
    const size = list ? (item as PythonJsonValue[]).length : keys!.length;
    const [left, right] = list ? ["[", "]"] : ["{", "}"];
    if (size === 0) {
      yield `${indent}${prefix}${left}${right}${suffix}`;
      return;
    }
    yield `${indent}${prefix}${left}`;
    stack.push({ keys, items: item as Open["items"], next: 0, close: `${indent}${right}${suffix}` });
  }
  yield* open(value, "", "", 0);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const size = top.keys ? top.keys.length : (top.items as PythonJsonValue[]).length;
    if (top.next >= size) {
      stack.pop();
      yield top.close;
      continue;
    }
    const at = top.next++;
    const suffix = at < size - 1 ? "," : "";
    const depth = stack.length;
    if (top.keys) {
      const key = top.keys[at]!;
      yield* open((top.items as Record<string, PythonJsonValue>)[key]!, `${JSON.stringify(key)}: `, suffix, depth);
    } else {
      yield* open((top.items as PythonJsonValue[])[at]!, "", suffix, depth);
    }
  }
}
