/** Text views of compared values: strings stay as they are, anything else is its JSON text. */

export function renderText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return JSON.stringify(value);
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** `trim` mode's view: CRLF to LF, trailing whitespace on each line and trailing blank lines dropped. */
export function trimLines(text: string): string {
  return normalizeNewlines(text)
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v]+$/, ""))
    .join("\n")
    .replace(/\n+$/, "");
}
