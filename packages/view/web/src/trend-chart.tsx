/**
 * A trend (../../src/trends.ts) drawn with Observable Plot: one chart per unit (rates, the eval's delta, cost),
 * each point a link to its run, and beside it a table of the same numbers, each rate with its n and a delta with its
 * interval. Plot draws SVG: every point is an `<a>` a keyboard and a screen reader reach, and its text and axes take
 * the page's colour, so the chart follows a dark theme.
 */
import * as Plot from "@observablehq/plot";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Trend, TrendPoint, TrendSeries, TrendUnit } from "../../src/trends.js";
import { getJson, trendUrl } from "./api.js";
import { ErrorBox, Loading, percent, signed, usd, when } from "./kit/index.js";
import "./trend-chart.css";

const UNIT_TITLE: Record<TrendUnit, string> = { rate: "pass rate", delta: "delta (pp)", usd: "cost (USD)" };

/** A value as the table and a point's title say it: a rate with its n, a delta with its interval. */
export function pointText(series: TrendSeries, p: TrendPoint): string {
  if (series.unit === "usd") return usd(p.value);
  if (series.unit === "delta") {
    const about = [
      ...(p.ci95 ? [`95% CI ${signed(p.ci95[0], "rate")} to ${signed(p.ci95[1], "rate")}`] : []),
      ...(p.n !== null ? [`n = ${p.n} ${series.n_of}`] : []),
    ];
    return `${signed(p.value, "rate")}${about.length > 0 ? ` (${about.join(", ")})` : ""}`;
  }
  return `${percent(p.value)}${p.n !== null ? ` (n = ${p.n} ${series.n_of})` : ""}`;
}

interface Row extends TrendPoint {
  series: string;
  text: string;
}

function rowsOf(series: TrendSeries[]): Row[] {
  return series.flatMap((s) => s.points.map((p) => ({ ...p, series: s.label, text: pointText(s, p) })));
}

function yScale(unit: TrendUnit): Plot.ScaleOptions {
  if (unit === "rate") return { domain: [0, 1], tickFormat: (v: number) => `${Math.round(v * 100)}%`, grid: true, label: null };
  if (unit === "delta")
    return { domain: [-1, 1], tickFormat: (v: number) => `${v > 0 ? "+" : ""}${Math.round(v * 100)}`, grid: true, label: null };
  return { zero: true, tickFormat: (v: number) => `$${v}`, grid: true, label: null };
}

/** One unit's chart: a line per series, each point a dot linking its run, a delta's interval as a bar. */
function plotOf(trend: Trend, unit: TrendUnit, series: TrendSeries[], width: number): SVGSVGElement | HTMLElement {
  const rows = rowsOf(series);
  const withCi = rows.filter((r) => r.ci95 !== null);
  return Plot.plot({
    width,
    height: unit === "rate" ? 220 : 180,
    marginLeft: 48,
    style: { background: "transparent", color: "currentColor", fontSize: "12px" },
    x: { type: "point", domain: trend.runs.map((r) => r.label), label: trend.kind === "eval" ? "iteration" : "run", padding: 0.4 },
    y: yScale(unit),
    color: { legend: series.length > 1, domain: series.map((s) => s.label) },
    marks: [
      unit === "delta" ? Plot.ruleY([0], { strokeOpacity: 0.5 }) : null,
      Plot.ruleX(withCi, {
        x: "label",
        y1: (r: Row) => r.ci95![0],
        y2: (r: Row) => r.ci95![1],
        stroke: "series",
        strokeWidth: 2,
        strokeOpacity: 0.6,
      }),
      Plot.line(rows, { x: "label", y: "value", stroke: "series", z: "series", strokeWidth: 1.5 }),
      Plot.dot(rows, {
        x: "label",
        y: "value",
        fill: "series",
        r: 5,
        href: "href",
        title: (r: Row) => `${r.series} · ${r.label} · ${r.text}\n${when(r.started_at)} · ${r.status}\n${r.run}`,
        ariaLabel: (r: Row) => `${r.series}, ${r.label}: ${r.text}`,
      }),
    ],
  });
}

/** A chart drawn into a div once it is in the page (Plot builds DOM nodes; Preact only owns the div). */
function TrendPlot({ trend, unit, series }: { trend: Trend; unit: TrendUnit; series: TrendSeries[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const host = ref.current;
    if (!host) return;
    const chart = plotOf(trend, unit, series, Math.max(320, Math.min(host.clientWidth || 640, 960)));
    host.replaceChildren(chart);
    return () => host.replaceChildren();
  }, [trend, unit, series]);
  return (
    <figure class="trend-chart" data-unit={unit}>
      <figcaption>{UNIT_TITLE[unit]}</figcaption>
      <div ref={ref} />
    </figure>
  );
}

/** The same numbers as a table: a row per run, a column per series. */
function TrendTable({ trend }: { trend: Trend }) {
  return (
    <table class="trend-table" data-table="trend">
      <thead>
        <tr>
          <th>{trend.kind === "eval" ? "iteration" : "run"}</th>
          <th>when</th>
          {trend.series.map((s) => (
            <th key={s.key}>{s.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {trend.runs.map((r) => (
          <tr key={r.run} data-run={r.run}>
            <td>
              <a href={r.href}>{r.label}</a> <span class="muted">{r.status}</span>
            </td>
            <td>{when(r.started_at)}</td>
            {trend.series.map((s) => {
              const p = s.points.find((q) => q.run === r.run);
              return (
                <td key={s.key} data-series={s.key} class="num">
                  {p ? pointText(s, p) : "–"}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The trend of a run's kind and name, or of an eval folder, fetched from the view (or the bundle); nothing under two runs. */
export function TrendSection({ of, id }: { of: "runs" | "evals"; id: string }) {
  const [state, setState] = useState<{ trend?: Trend; error?: Error }>({});
  useEffect(() => {
    let live = true;
    getJson<Trend>(trendUrl(of, id)).then(
      (trend) => live && setState({ trend }),
      (error: Error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [of, id]);
  if (state.error) return <ErrorBox error={state.error} />;
  const trend = state.trend;
  if (!trend) return <Loading what="the trend" />;
  if (trend.runs.length < 2)
    return (
      <p class="muted trend-none">trend: one {of === "evals" ? "iteration" : "run"} recorded so far, a trend starts with the second</p>
    );
  const units = (["rate", "delta", "usd"] as const).filter((u) => trend.series.some((s) => s.unit === u));
  return (
    <details class="trend" open data-trend={trend.name}>
      <summary>
        trend across {trend.runs.length} {trend.kind === "eval" ? "iterations" : "runs"} of {trend.name}
      </summary>
      <div class="trend-charts">
        {units.map((u) => (
          <TrendPlot key={u} trend={trend} unit={u} series={trend.series.filter((s) => s.unit === u)} />
        ))}
      </div>
      <TrendTable trend={trend} />
    </details>
  );
}
