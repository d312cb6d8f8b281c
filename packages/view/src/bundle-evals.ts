/**
 * Eval iterations in a bundle (`skillrig view --bundle`): the answers the view server gives for their pages, stored
 * under the same URLs (bundle-format.ts's `api`), so the app's eval pages read them as they read the server. For
 * each eval folder with a chosen iteration: the folder's summary and trend (only its chosen iterations: a
 * comparison is between two of them), and per iteration its files (iteration.json, benchmark.json, triggers.json),
 * every run's assertions, every run's page, and each run's outputs/ files (`api_files`, base64, by the URL the page
 * asks for), within the bundle's caps.
 */
import { join } from "node:path";
import type { BundleFile } from "./bundle-format.js";
import { type BundleBudget, readBundleFile } from "./bundle-files.js";
import { parseEvalRecordId, readEval, readEvalRun, readIteration, readIterationAssertions } from "./eval-folder.js";
import { readEvalTrend } from "./trend-read.js";

export interface EvalBundlePart {
  api: Record<string, unknown>;
  api_files: Record<string, BundleFile>;
  /** Files the pages would read that were left out: the iteration's record id, the path inside it, why. */
  left_out: Array<{ run: string; path: string; reason: string }>;
}

const enc = (id: string) => encodeURIComponent(id);
const encPath = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/** The eval iterations among `ids` (`<folder>/iteration-<n>`), by folder. */
function byFolder(ids: string[]): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const id of ids) {
    const parsed = parseEvalRecordId(id);
    if (!parsed) continue;
    if (!out.has(parsed.id)) out.set(parsed.id, new Set());
    out.get(parsed.id)!.add(parsed.n);
  }
  return out;
}

/** One iteration's answers and files into `part`. */
async function addIteration(runsDir: string, folder: string, n: number, part: EvalBundlePart, budget: BundleBudget): Promise<void> {
  const base = `/api/evals/${enc(folder)}/iterations/${n}`;
  const detail = await readIteration(runsDir, folder, n);
  if (!detail) return;
  part.api[base] = detail;
  const assertions = await readIterationAssertions(runsDir, folder, n);
  if (assertions) part.api[`${base}/assertions`] = { runs: assertions };
  const iterDir = join(runsDir, folder, `iteration-${n}`);
  for (const run of detail.benchmark?.runs ?? []) {
    const page = await readEvalRun(runsDir, folder, n, run.path);
    if (!page) continue;
    part.api[`${base}/run/${encPath(run.path)}`] = page;
    for (const output of page.outputs) {
      if (output.type !== "file") continue;
      const path = `${run.path}/outputs/${output.path}`;
      const file = await readBundleFile(iterDir, path, budget);
      if (typeof file === "string") part.left_out.push({ run: `${folder}/iteration-${n}`, path, reason: file });
      else part.api_files[`${base}/files/${encPath(path)}`] = file;
    }
  }
}

/** The eval part of a bundle for the chosen record ids (ids of other runs are ignored). */
export async function bundleEvals(runsDir: string, ids: string[], budget: BundleBudget): Promise<EvalBundlePart> {
  const part: EvalBundlePart = { api: {}, api_files: {}, left_out: [] };
  for (const [folder, numbers] of byFolder(ids)) {
    const summary = await readEval(runsDir, folder);
    if (!summary) continue;
    part.api[`/api/evals/${enc(folder)}`] = { ...summary, iterations: summary.iterations.filter((it) => numbers.has(it.n)) };
    part.api[`/api/trends/evals/${enc(folder)}`] = await readEvalTrend(runsDir, folder, numbers);
    for (const n of [...numbers].sort((a, b) => a - b)) await addIteration(runsDir, folder, n, part, budget);
  }
  return part;
}
