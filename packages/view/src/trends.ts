/**
 * Trends: how a task, a suite, a solve batch or an eval did across its recorded runs (or iterations), as series of
 * points the view draws (web/src/trend-chart.tsx). Pure and browser-safe: the view server computes a trend from the
 * runs folder (trend-read.ts), a bundle carries the same answer, and nothing here reads a file.
 *
 * Which runs make one trend: the runs of the same kind and name (the task id, a suite's task ids, a solve batch's
 * task ids), as `skillrig runs diff latest~1 latest` counts them; an eval's iterations. A skill job (`run`) has no
 * trend: one job is one sample, its "pass rate" is 0 or 1.
 */

/** What a series' values are: a rate (0..1), a difference of rates (-1..1), or US dollars. */
export type TrendUnit = "rate" | "delta" | "usd";

export interface TrendPoint {
  /** The run's id (an eval iteration: `<folder>/iteration-<n>`). */
  run: string;
  /** The page that opens it (a hash route). */
  href: string;
  /** 1, 2 ... in the order they ran (oldest first). */
  index: number;
  /** How the axis names it: `#3` for a run, `3` for an iteration. */
  label: string;
  started_at: string | null;
  status: string;
  value: number;
  /** What a rate is of: cases, samples, attempts, tasks (pass@k), runs (an eval configuration); null when unknown. */
  n: number | null;
  /** A delta's 95% interval, where the data has one (an eval's paired delta). */
  ci95: [number, number] | null;
}

export interface TrendSeries {
  /** Stable key: `pass_rate`, `pass@3`, `engine:gemini`, `with_skill`, `delta`, `cost`. */
  key: string;
  label: string;
  unit: TrendUnit;
  /** What `n` counts, in words (`cases`, `samples`, `tasks with ≥ 3 samples`, `runs`, `eval cases`). */
  n_of: string;
  points: TrendPoint[];
}

export interface Trend {
  kind: "test" | "solve" | "eval";
  name: string;
  /** Every run of the trend, oldest first: the x axis. */
  runs: Array<{ run: string; href: string; label: string; started_at: string | null; status: string }>;
  series: TrendSeries[];
}

/** The record fields a trend reads (runs-folder.ts's RunRecord). */
export interface TrendRecord {
  id: string;
  kind: string;
  name: string;
  started_at: string;
  status: string;
  passed: number | null;
  total: number | null;
  pass_rate: number | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Collects points into series by key, keeping the order series first appear in. */
class SeriesBuilder {
  private readonly byKey = new Map<string, TrendSeries>();
  add(head: Omit<TrendSeries, "points">, point: TrendPoint): void {
    let series = this.byKey.get(head.key);
    if (!series) this.byKey.set(head.key, (series = { ...head, points: [] }));
    series.points.push(point);
  }
  list(): TrendSeries[] {
    return [...this.byKey.values()];
  }
}

function passAtKOrder(key: string): number {
  return Number(key.replace(/^pass@/, ""));
}

/** A suite report's pass@k over the suite: `{value, tasks}` per `pass@<k>`. */
function suitePassAtK(report: Record<string, unknown>): Array<[string, number, number]> {
  if (!isObject(report.pass_at_k)) return [];
  return Object.entries(report.pass_at_k)
    .filter((e): e is [string, { value: number; tasks: number }] => isObject(e[1]) && isNumber(e[1].value) && isNumber(e[1].tasks))
    .sort((a, b) => passAtKOrder(a[0]) - passAtKOrder(b[0]))
    .map(([k, v]) => [k, v.value, v.tasks]);
}

interface SolveEngine {
  engine: string;
  attempts: number;
  passed: number;
  usage?: { costUsd?: number; unpricedAttempts?: number };
}

function solveEngines(report: Record<string, unknown>): SolveEngine[] {
  if (!Array.isArray(report.engines)) return [];
  return report.engines.filter(
    (e): e is SolveEngine => isObject(e) && typeof e.engine === "string" && isNumber(e.attempts) && isNumber(e.passed),
  );
}

/** The cost of a solve batch when every attempt had a price; null when any ran an unpriced model. */
function solveCost(engines: SolveEngine[]): number | null {
  if (engines.length === 0) return null;
  let total = 0;
  for (const e of engines) {
    if (!e.usage || !isNumber(e.usage.costUsd) || (e.usage.unpricedAttempts ?? 0) > 0) return null;
    total += e.usage.costUsd;
  }
  return Math.round(total * 1e6) / 1e6;
}

/** What a record's own pass rate counts, by the report's shape. */
function rateOf(report: unknown): string {
  if (!isObject(report)) return "cases";
  if (report.kind === "skillrig-solve-report") return "attempts";
  return Array.isArray(report.tasks) ? "samples" : "cases";
}

/**
 * The trend of runs of one kind and name (test or solve), from their records and reports in any order: the pass
 * rate the runs list shows (with its n), pass@k over a suite (n: the tasks it is the mean of), a solve batch's pass
 * rate per engine (n: its attempts) and its cost when every attempt was priced.
 */
export function runTrend(runs: Array<{ record: TrendRecord; report: unknown }>): Trend {
  const sorted = [...runs].sort((a, b) => a.record.started_at.localeCompare(b.record.started_at) || a.record.id.localeCompare(b.record.id));
  const series = new SeriesBuilder();
  const axis: Trend["runs"] = [];
  sorted.forEach(({ record, report }, i) => {
    const at = {
      run: record.id,
      href: `#/run/${encodeURIComponent(record.id)}`,
      label: `#${i + 1}`,
      started_at: record.started_at,
      status: record.status,
    };
    axis.push(at);
    const point = (value: number, n: number | null): TrendPoint => ({ ...at, index: i + 1, value, n, ci95: null });
    const of = rateOf(report);
    if (isNumber(record.pass_rate))
      series.add({ key: "pass_rate", label: `pass rate (${of})`, unit: "rate", n_of: of }, point(record.pass_rate, record.total));
    if (!isObject(report)) return;
    if (report.kind === "skillrig-suite-report")
      for (const [k, value, tasks] of suitePassAtK(report))
        series.add({ key: k, label: `${k} (suite)`, unit: "rate", n_of: `tasks with ≥ ${k.slice(5)} samples` }, point(value, tasks));
    if (report.kind === "skillrig-solve-report") {
      const engines = solveEngines(report);
      if (engines.length > 1)
        for (const e of engines)
          if (e.attempts > 0)
            series.add(
              { key: `engine:${e.engine}`, label: `${e.engine} pass rate`, unit: "rate", n_of: "attempts" },
              point(e.passed / e.attempts, e.attempts),
            );
      const cost = solveCost(engines);
      if (cost !== null) series.add({ key: "cost", label: "cost (USD, all attempts)", unit: "usd", n_of: "attempts" }, point(cost, null));
    }
  });
  const first = sorted[0]?.record;
  return { kind: first?.kind === "solve" ? "solve" : "test", name: first?.name ?? "", runs: axis, series: series.list() };
}

/** The benchmark.json fields an eval trend reads (`@skillrig/evals/format`'s Benchmark). */
export interface TrendBenchmark {
  run_summary: Record<string, unknown>;
}

export interface TrendIteration {
  n: number;
  started_at: string | null;
  status: string;
  benchmark: TrendBenchmark | null;
}

interface ConfigurationFigures {
  pass_rate: { mean: number };
  runs: number;
  cost_usd?: { mean: number; unpriced_runs: number };
}

function configurationsOf(summary: Record<string, unknown>): Array<[string, ConfigurationFigures]> {
  return Object.entries(summary).filter(
    (e): e is [string, ConfigurationFigures] =>
      e[0] !== "delta" && isObject(e[1]) && isObject(e[1].pass_rate) && isNumber(e[1].pass_rate.mean) && isNumber(e[1].runs),
  );
}

interface DeltaFigures {
  of: [string, string];
  pass_rate: number;
  paired?: { pass_rate: { ci95: [number, number] | null; pairs: number } };
}

function deltaOf(summary: Record<string, unknown>): DeltaFigures | null {
  const d = summary.delta;
  return isObject(d) && Array.isArray(d.of) && isNumber(d.pass_rate) ? (d as unknown as DeltaFigures) : null;
}

/**
 * An eval's trend across its iterations: each configuration's mean pass rate (n: its runs), the delta
 * (with_skill minus without_skill, or old_skill) with its paired 95% interval (n: the eval cases paired), and each
 * configuration's mean cost per run when every run was priced. A running iteration (no benchmark.json yet) is on
 * the axis with no point.
 */
export function evalTrend(folder: string, name: string, iterations: TrendIteration[]): Trend {
  const sorted = [...iterations].sort((a, b) => a.n - b.n);
  const series = new SeriesBuilder();
  const axis: Trend["runs"] = [];
  for (const it of sorted) {
    const run = `${folder}/iteration-${it.n}`;
    const at = {
      run,
      href: `#/eval/${encodeURIComponent(folder)}/${it.n}`,
      label: String(it.n),
      started_at: it.started_at,
      status: it.status,
    };
    axis.push(at);
    const point = (value: number, n: number | null, ci95: [number, number] | null = null): TrendPoint => ({
      ...at,
      index: it.n,
      value,
      n,
      ci95,
    });
    const summary = it.benchmark?.run_summary;
    if (!summary) continue;
    for (const [configuration, figures] of configurationsOf(summary))
      series.add(
        { key: configuration, label: `${configuration} pass rate`, unit: "rate", n_of: "runs" },
        point(figures.pass_rate.mean, figures.runs),
      );
    const delta = deltaOf(summary);
    if (delta) {
      const paired = delta.paired?.pass_rate;
      series.add(
        { key: "delta", label: `delta (${delta.of[0]} − ${delta.of[1]})`, unit: "delta", n_of: "eval cases" },
        point(delta.pass_rate, paired?.pairs ?? null, paired?.ci95 ?? null),
      );
    }
    for (const [configuration, figures] of configurationsOf(summary))
      if (figures.cost_usd && figures.cost_usd.unpriced_runs === 0)
        series.add(
          { key: `cost:${configuration}`, label: `${configuration} cost per run (USD)`, unit: "usd", n_of: "runs" },
          point(figures.cost_usd.mean, figures.runs),
        );
  }
  return { kind: "eval", name, runs: axis, series: series.list() };
}
