/** The readable `text` of an assertion, and short quotes for evidence. */
import type { Assertion } from "../format.js";

const TEXT_LIMIT = 60;

/** `s` quoted, newlines shown as \n, cut to `limit` characters with an ellipsis. */
export function quote(s: string, limit = TEXT_LIMIT): string {
  const cut = s.length > limit ? `${s.slice(0, limit)}...` : s;
  return `'${cut.replace(/\\/g, "\\\\").replace(/\r/g, "\\r").replace(/\n/g, "\\n").replace(/\t/g, "\\t")}'`;
}

/** A short excerpt of `text` around [index, index + length): up to 40 characters either side. */
export function excerpt(text: string, index: number, length: number): string {
  const from = Math.max(0, index - 40);
  const to = Math.min(text.length, index + length + 40);
  return `${from > 0 ? "..." : ""}${quote(text.slice(from, to), to - from)}${to < text.length ? "..." : ""}`;
}

/** What an assertion is graded on: the file's name, or "the final answer". */
export function subjectOf(assertion: { path?: string }): string {
  return assertion.path === undefined ? "the final answer" : assertion.path;
}

/**
 * An assertion's text: a plain string is its own; an object's is its `text`, which loadEvals fills in from the
 * kind's `describe` when the author gave none.
 */
export function assertionText(assertion: Assertion): string {
  if (typeof assertion === "string") return assertion;
  return assertion.text ?? `${assertion.kind} assertion`;
}
