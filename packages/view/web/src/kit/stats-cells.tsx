/**
 * The statistics of a paired delta as table cells (95% interval, p-value, pairs), and a rate's Wilson interval:
 * the same numbers `runs diff --json`, benchmark.json and comparison.json hold, in the same words as the console.
 * The raw values ride along in data attributes (the browser tests compare them with the CLI's JSON).
 */
import type { PairedDelta } from "@skillrig/stats";

const pts = (x: number) => `${x < 0 ? "−" : ""}${Math.abs(Math.round(x * 1000) / 10)}`;

/** `−75 to −25 pp` (percentage points, as the page's deltas), or `–` with no pairs. */
export function ciText(ci: [number, number] | null | undefined): string {
  return ci ? `${pts(ci[0])} to ${pts(ci[1])} pp` : "–";
}

export function pText(p: number | null | undefined): string {
  if (p === null || p === undefined) return "–";
  return p < 0.0001 ? "< 0.0001" : String(Number(p.toPrecision(2)));
}

/** Not noise: the interval excludes 0 and p < 0.05 (@skillrig/stats' isSignificantDrop / Rise). */
export function significance(d: Pick<PairedDelta, "ci95" | "p_value">): "drop" | "rise" | "noise" {
  if (!d.ci95 || d.p_value === null || d.p_value >= 0.05) return "noise";
  return d.ci95[1] < 0 ? "drop" : d.ci95[0] > 0 ? "rise" : "noise";
}

export const STATS_HEAD = ["95% CI", "p", "pairs"] as const;

export function PairedCells({ d }: { d: Pick<PairedDelta, "ci95" | "p_value" | "pairs"> }) {
  const s = significance(d);
  return (
    <>
      <td
        class={`num ${s === "drop" ? "m-worse" : s === "rise" ? "m-better" : ""}`}
        data-ci95={JSON.stringify(d.ci95)}
        title={s === "noise" ? "could be noise" : `a significant ${s}`}
      >
        {ciText(d.ci95)}
      </td>
      <td class="num" data-p={String(d.p_value)}>
        {pText(d.p_value)}
      </td>
      <td class="num" data-pairs={String(d.pairs)}>
        {d.pairs}
      </td>
    </>
  );
}

/** A rate's Wilson interval, as `(21–94%)`. */
export function WilsonText({ ci }: { ci: [number, number] | null | undefined }) {
  if (!ci) return null;
  return (
    <span class="muted" data-wilson={JSON.stringify(ci)}>
      {" "}
      (95% CI {Math.round(ci[0] * 100)}–{Math.round(ci[1] * 100)}%)
    </span>
  );
}
