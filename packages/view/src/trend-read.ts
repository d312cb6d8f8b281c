/**
 * Trends from the runs folder (trends.ts computes them): the runs of the same kind and name as a given run, or an
 * eval folder's iterations. `only` narrows them to chosen runs (a bundle's: a point must open a page the bundle has).
 */
import { isFolderName, readEval, readIteration } from "./eval-folder.js";
import { listRunRecords, readRunReport } from "./runs-folder.js";
import { evalTrend, runTrend, type Trend, type TrendIteration } from "./trends.js";

/** The trend of the runs like `id` (same kind and name); undefined when `id` names no run, or a run with no trend. */
export async function readRunTrend(runsDir: string, id: string, only?: ReadonlySet<string>): Promise<Trend | undefined> {
  const records = await listRunRecords(runsDir);
  const record = records.find((r) => r.id === id);
  if (!record || (record.kind !== "test" && record.kind !== "solve")) return undefined;
  const like = records.filter((r) => r.kind === record.kind && r.name === record.name && (!only || only.has(r.id)));
  const runs = await Promise.all(like.map(async (r) => ({ record: r, report: (await readRunReport(runsDir, r.id))?.report ?? null })));
  return runTrend(runs);
}

/** An eval folder's trend across its iterations (`only`: those whose numbers are in it); undefined when no eval folder. */
export async function readEvalTrend(runsDir: string, folder: string, only?: ReadonlySet<number>): Promise<Trend | undefined> {
  if (!isFolderName(folder)) return undefined;
  const summary = await readEval(runsDir, folder);
  if (!summary) return undefined;
  const iterations: TrendIteration[] = [];
  for (const it of summary.iterations) {
    if (only && !only.has(it.n)) continue;
    const detail = await readIteration(runsDir, folder, it.n);
    iterations.push({ n: it.n, started_at: it.started_at, status: it.status, benchmark: detail?.benchmark ?? null });
  }
  return evalTrend(folder, summary.skill_name, iterations);
}
