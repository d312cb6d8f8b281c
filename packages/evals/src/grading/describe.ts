/** The readable `text` of an assertion that has none of its own, and short quotes for evidence. */
import type { Assertion, DeterministicAssertion } from "../format.js";

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

export function assertionText(assertion: Assertion): string {
  if (typeof assertion === "string") return assertion;
  if (assertion.text) return assertion.text;
  return defaultText(assertion);
}

function defaultText(a: DeterministicAssertion): string {
  switch (a.kind) {
    case "file_contains":
      return `${subjectOf(a)} contains ${quote(a.value)}`;
    case "regex":
      return `${subjectOf(a)} matches /${a.pattern}/${a.flags ?? ""}`;
    case "json_schema":
      return `${subjectOf(a)} is JSON valid against the schema`;
    case "script":
      return `the check \`${a.command}\` passes`;
    case "oracle":
      return `${a.deliverable} passes every case of ${a.task}`;
  }
}
