/**
 * A short diff of expected against actual, for failure messages, bounded in time and size whatever the values are.
 *
 * Small sides (both at most `full_diff_max_lines` lines and 128 characters a line) get a unified diff from `diff`
 * (jsdiff), its work capped by `maxEditLength` (`full_diff_max_edits`). Anything larger, or a diff past that cap,
 * gets the window around the first difference instead: both sides are read line by line in step (lazily: a value is
 * never rendered whole) up to the first line that differs, and a few lines of each side from there are shown. A wrong answer of any
 * size costs time linear in what comes before its first difference, and the diff is at most `max_lines` lines of
 * at most `max_line_chars` characters each (the bounds: `oracle.diff`).
 */
import { createRequire } from "node:module";
import { textLines } from "./diff-lines.js";

// `diff` (20 modules) is loaded on the first failed comparison, not at every start-up.
const require = createRequire(import.meta.url);
let diffLibrary: typeof import("diff") | undefined;

/** Bounds on a failure diff (config `oracle.diff`; docs/sandbox.md, "Bounds on untrusted producers"). */
export interface DiffBounds {
  /** Lines of diff kept in a verdict; the rest is summarised so a report stays readable. */
  max_lines: number;
  /** Each side's line count up to which a full line diff is tried. */
  full_diff_max_lines: number;
  /** jsdiff gives up past this many edits (its work is about lines x edits); the window is shown instead. */
  full_diff_max_edits: number;
  /** A diff line longer than this is cut (the first differing line around its first differing character). */
  max_line_chars: number;
}

export const DIFF_BOUNDS: Readonly<DiffBounds> = Object.freeze({
  max_lines: 40,
  full_diff_max_lines: 2000,
  full_diff_max_edits: 500,
  max_line_chars: 240,
});

/** The bounds a config sets (`oracle.diff`), the defaults for the rest. */
export function diffBounds(config: { oracle?: { diff?: Partial<DiffBounds> } } | undefined): DiffBounds {
  return { ...DIFF_BOUNDS, ...(config?.oracle?.diff ?? {}) };
}

/** Kept for callers of the old constant: the default `max_lines`. */
export const MAX_DIFF_LINES = DIFF_BOUNDS.max_lines;
/** Each side's size (characters) up to which a full line diff is tried: 128 characters a line at the line bound. */
const charsFor = (bounds: DiffBounds) => bounds.full_diff_max_lines * 128;
/** Lines of each side shown from the first difference on, in a window diff: about a third of the diff's lines each. */
const windowFor = (bounds: DiffBounds) => Math.max(1, Math.floor((bounds.max_lines - 6) / 2));
const CONTEXT_LINES = 2;
const NO_LINE_DIFFERS =
  "@@ no line differs: the sides differ in what their lines do not show (a final newline, or NaN, which is not equal to itself) @@";

/** One side of a diff: a text, a value shown as its JSON text, or lines made lazily (`pythonJsonLines`). */
export type DiffSide = unknown;

/** Lines already made lazily: passed as `new DiffLines(generator)` so a value is read only as far as the diff needs. */
export class DiffLines {
  constructor(readonly lines: Iterable<string>) {}
}

export function compactDiff(expected: DiffSide, actual: DiffSide, field = "value", bounds: DiffBounds = DIFF_BOUNDS): string {
  const e = new LineReader(linesOf(expected));
  const a = new LineReader(linesOf(actual));
  const header = [`--- expected ${field}`, `+++ actual ${field}`];
  if (e.fitsWhole(bounds) && a.fitsWhole(bounds)) {
    const full = fullDiff(e.taken, a.taken, field, bounds);
    if (full !== undefined) return full;
  }
  return [...header, ...windowDiff(e, a, bounds)].join("\n");
}

function linesOf(side: DiffSide): Iterable<string> {
  if (side instanceof DiffLines) return side.lines;
  if (typeof side === "string") return textLines(side);
  if (side === undefined) return [];
  return textLines(JSON.stringify(side, null, 2) ?? "");
}

/** Reads a side's lines, keeping those read so far (only while they may still go to the full diff). */
class LineReader {
  readonly taken: string[] = [];
  private chars = 0;
  private readonly source: Iterator<string>;
  private next = 0;
  constructor(lines: Iterable<string>) {
    this.source = lines[Symbol.iterator]();
  }
  /** Reads ahead; true when the whole side is small enough for a full diff. */
  fitsWhole(bounds: DiffBounds): boolean {
    while (this.taken.length <= bounds.full_diff_max_lines && this.chars <= charsFor(bounds)) {
      const item = this.source.next();
      if (item.done) return true;
      this.taken.push(item.value);
      this.chars += item.value.length + 1;
    }
    return false;
  }
  /** The next line (from those read ahead first), or undefined at the end. */
  read(): string | undefined {
    if (this.next < this.taken.length) return this.taken[this.next++];
    const item = this.source.next();
    return item.done ? undefined : item.value;
  }
}

function fullDiff(expected: string[], actual: string[], field: string, bounds: DiffBounds): string | undefined {
  const text = (lines: string[]) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);
  diffLibrary ??= require("diff") as typeof import("diff");
  const patch = diffLibrary.structuredPatch(`expected ${field}`, `actual ${field}`, text(expected), text(actual), undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: bounds.full_diff_max_edits,
  });
  if (patch === undefined) return undefined;
  if (patch.hunks.length === 0) return [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`, NO_LINE_DIFFERS].join("\n");
  const lines = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const hunk of patch.hunks) {
    lines.push(
      `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      ...hunk.lines.map((line) => clipLine(line, bounds)),
    );
  }
  if (lines.length <= bounds.max_lines) return lines.join("\n");
  return [...lines.slice(0, bounds.max_lines), `... ${lines.length - bounds.max_lines} more diff lines`].join("\n");
}

/** The lines before the first difference are walked in step; a window of each side from there is shown. */
function windowDiff(e: LineReader, a: LineReader, bounds: DiffBounds): string[] {
  const context: string[] = [];
  let line = 1;
  for (;;) {
    const left = e.read();
    const right = a.read();
    if (left === undefined && right === undefined) {
      // Equal line by line (a value Python's == tells apart though it reads the same: NaN).
      return [NO_LINE_DIFFERS];
    }
    if (left === right) {
      context.push(left!);
      if (context.length > CONTEXT_LINES) context.shift();
      line++;
      continue;
    }
    return windowAt(line, context, [left, e], [right, a], bounds);
  }
}

function windowAt(
  line: number,
  context: string[],
  [left, e]: [string | undefined, LineReader],
  [right, a]: [string | undefined, LineReader],
  bounds: DiffBounds,
): string[] {
  const windowLines = windowFor(bounds);
  const column = left !== undefined && right !== undefined ? firstDifference(left, right) : 0;
  const take = (first: string | undefined, reader: LineReader, sign: string) => {
    const out: string[] = [];
    let next = first;
    while (next !== undefined && out.length < windowLines) {
      out.push(sign + clipLine(next, bounds, out.length === 0 ? column : 0));
      if (out.length < windowLines) next = reader.read();
    }
    // One line more says whether the side goes on past the window.
    return { out, more: next !== undefined && out.length === windowLines && reader.read() !== undefined };
  };
  const minus = take(left, e, "-");
  const plus = take(right, a, "+");
  const lines = [
    `@@ first difference at line ${line}${column > 0 ? `, character ${column + 1}` : ""} (the diff shows a window there) @@`,
    ...context.map((text) => ` ${clipLine(text, bounds)}`),
    ...minus.out,
    ...plus.out,
  ];
  if (minus.more || plus.more) lines.push("... the sides go on past this window; only the first difference is shown");
  return lines;
}

function firstDifference(left: string, right: string): number {
  const end = Math.min(left.length, right.length);
  let i = 0;
  while (i < end && left.charCodeAt(i) === right.charCodeAt(i)) i++;
  return i;
}

/** A line cut to `max_line_chars`, around `around` (a first differing character) when that is past the start. */
function clipLine(line: string, bounds: DiffBounds, around = 0): string {
  const width = bounds.max_line_chars;
  if (line.length <= width) return line;
  const start = Math.max(0, Math.min(around - 40, line.length - width));
  const head = start > 0 ? `[${start} characters] ` : "";
  const rest = line.length - start - width;
  return `${head}${line.slice(start, start + width)}${rest > 0 ? ` [${rest} more characters]` : ""}`;
}
