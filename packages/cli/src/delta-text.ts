/**
 * One way to write a paired delta for people, shared by `runs diff`, `skillrig eval`'s closing lines and the
 * Markdown reports: `100% -> 50% (-50 pts, 95% CI -75 to -25, p = 0.0039, 12 pairs)`.
 */
import type { PairedDelta } from "@skillrig/stats";

export const percent = (rate: number | null) => (rate === null ? "-" : `${Math.round(rate * 1000) / 10}%`);

/** Points: a rate difference of 0.25 is 25 pts. */
export function points(value: number | null, sign = true): string {
  if (value === null) return "-";
  const v = Math.round(value * 1000) / 10;
  return `${sign ? (v > 0 ? "+" : v < 0 ? "-" : "±") : v < 0 ? "-" : ""}${Math.abs(v)}`;
}

/** `95% CI -75 to -25 pts, p = 0.0039, 12 pairs`, or `no pairs` when nothing could be paired. */
export function statsText(d: Pick<PairedDelta, "ci95" | "p_value" | "pairs">): string {
  if (d.pairs === 0 || d.ci95 === null || d.p_value === null) return "no pairs";
  const p = d.p_value < 0.0001 ? "p < 0.0001" : `p = ${Number(d.p_value.toPrecision(2))}`;
  return `95% CI ${points(d.ci95[0], false)} to ${points(d.ci95[1], false)} pts, ${p}, ${d.pairs} pair${d.pairs === 1 ? "" : "s"}`;
}

/** `100% -> 50% (-50 pts, 95% CI ...)`. */
export function deltaText(d: PairedDelta): string {
  return `${percent(d.before)} -> ${percent(d.after)} (${points(d.delta)} pts, ${statsText(d)})`;
}
