/** A short unified diff of expected against actual, for failure messages. */
import { createRequire } from "node:module";
import { renderText } from "./text.js";

// `diff` (20 modules) is loaded on the first failed comparison, not at every start-up.
const require = createRequire(import.meta.url);
let diffLibrary: typeof import("diff") | undefined;

/** Lines of diff kept in a verdict; the rest is summarised so a report stays readable. */
export const MAX_DIFF_LINES = 40;

export function compactDiff(expected: unknown, actual: unknown, field = "value"): string {
  const e = withFinalNewline(renderForDiff(expected));
  const a = withFinalNewline(renderForDiff(actual));
  diffLibrary ??= require("diff") as typeof import("diff");
  const patch = diffLibrary.createTwoFilesPatch(`expected ${field}`, `actual ${field}`, e, a, undefined, undefined, { context: 2 });
  // Drop the "Index:" / "=====" preamble; keep the ---/+++ header and hunks.
  const lines = patch.split("\n").filter((line) => !line.startsWith("Index:") && !/^=+$/.test(line));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length <= MAX_DIFF_LINES) return lines.join("\n");
  return [...lines.slice(0, MAX_DIFF_LINES), `... ${lines.length - MAX_DIFF_LINES} more diff lines`].join("\n");
}

function renderForDiff(value: unknown): string {
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value, null, 2);
}

function withFinalNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}
