/** Rows padded to their widest cell, the last column left ragged: the CLI's plain-text tables. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => [...r[col]!].length)));
  return rows
    .map((r) =>
      r
        .map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
