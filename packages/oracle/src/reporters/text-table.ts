/** Plain-text helpers the console reporters share: one-line messages, truncation and a padded table. */

/** A message on one line: line breaks shown as ⏎. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ");
}

export function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}

/** A header, a rule and the rows, columns padded to their widest cell (the last column is not padded). */
export function textTable(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((r) => [...(r[col] ?? "")].length)));
  const line = (r: string[]) =>
    r
      .map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}
