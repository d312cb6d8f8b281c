/**
 * Reading JSON text without trusting its shape. Everything that walks a parsed value (schema validation, the
 * duplicate-key check, lossless parsing, structured cloning to a worker, Python's json) recurses, so a value nested
 * a few thousand levels deep overflows a stack somewhere. These helpers look at the raw text in one flat pass (no
 * recursion, nothing allocated per level but a small frame) so a limit can be checked before anything recursive
 * touches the value.
 */
import { pointer } from "@skillrig/core";

/** How deep a task file may nest (objects and arrays; the task object itself is level 1). */
export const TASK_MAX_DEPTH = 128;

export interface TooDeep {
  /** RFC 6901 pointer to the first value that opens a level past the limit. */
  pointer: string;
  /** The limit that was passed. */
  maxDepth: number;
}

/** The index of the quote that closes the string opened at `open` (text.length when it never closes). */
function stringEnd(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

interface Frame {
  array: boolean;
  /** Current index (array) or key (object) of the member being read. */
  at: number | string | undefined;
}

/**
 * The first place `text` nests objects/arrays deeper than `maxDepth` levels, or undefined. Brackets inside strings
 * do not count. The text need not be valid JSON: a malformed text is left to the parser to report.
 */
export function findExcessiveNesting(text: string, maxDepth: number): TooDeep | undefined {
  // Most bodies are within the limit: count first (no allocation), and trace the path only for one that is not.
  return exceedsDepth(text, maxDepth) ? locateExcess(text, maxDepth) : undefined;
}

function exceedsDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i = stringEnd(text, i);
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

function locateExcess(text: string, maxDepth: number): TooDeep | undefined {
  const stack: Frame[] = [];
  let lastString: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      i = stringEnd(text, i);
      lastString = text.slice(start, i + 1);
      continue;
    }
    if (c === 0x3a /* : */) {
      const top = stack[stack.length - 1];
      if (top && !top.array && lastString !== undefined) {
        try {
          top.at = JSON.parse(lastString) as string;
        } catch {
          top.at = lastString.slice(1, -1);
        }
      }
      continue;
    }
    if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.array) top.at = (top.at as number) + 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth) {
        return { pointer: pointer(...stack.map((f) => f.at ?? "")), maxDepth };
      }
      stack.push({ array: c === 0x5b, at: c === 0x5b ? 0 : undefined });
      continue;
    }
    if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
  }
  return undefined;
}

/**
 * The raw text of the member `key` of the top-level object in `text` (exactly as sent: numbers, escapes and spacing
 * untouched), or undefined when the text is not an object with that member. Call it on text that parses as JSON.
 */
export function topLevelMemberText(text: string, key: string): string | undefined {
  let depth = 0;
  let lastString: string | undefined;
  let valueStart = -1;
  // A name given twice: the last one counts, as JSON.parse keeps the last.
  let found: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      i = stringEnd(text, i);
      if (depth === 1) lastString = text.slice(start, i + 1);
      continue;
    }
    if (c === 0x3a && depth === 1) {
      let name: unknown;
      try {
        name = JSON.parse(lastString ?? "");
      } catch {
        name = undefined;
      }
      if (name === key) valueStart = i + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
      continue;
    }
    const closes = c === 0x7d || c === 0x5d;
    if ((c === 0x2c && depth === 1) || (closes && depth === 1)) {
      if (valueStart >= 0) found = text.slice(valueStart, i).trim();
      valueStart = -1;
      if (closes) return found;
    }
    if (closes) depth--;
  }
  return found;
}
