export {
  cleanRuns,
  folderSafeName,
  isRunId,
  listRunRecords,
  newRunId,
  parseAge,
  RUN_KINDS,
  readRunRecord,
  readRunReport,
  recordExistingFolder,
  writeRunRecord,
  type CleanOptions,
  type CleanResult,
  type NewRecord,
  type RunKind,
  type RunRecord,
} from "./runs-folder.js";
export {
  listEvals,
  readEval,
  readEvalRun,
  readIteration,
  readIterationAssertions,
  type EvalSummary,
  type IterationDetail,
  type IterationSummary,
  type OutputEntry,
  type RunAssertions,
  type RunDetail,
} from "./eval-folder.js";
export type { RunningView, ViewServerOptions } from "./view-server.js";
import type { RunningView, ViewServerOptions } from "./view-server.js";

/**
 * Starts the browser view's HTTP server. Loaded on first use: commands that only record runs (`skillrig test`,
 * `run`, `solve`) import this package for its runs folder and should not pay for the server's dependencies.
 */
export async function startViewServer(options: ViewServerOptions): Promise<RunningView> {
  return (await import("./view-server.js")).startViewServer(options);
}

export type { BundleOptions, BundleResult } from "./bundle.js";
import type { BundleOptions, BundleResult } from "./bundle.js";

/** Writes a static site of chosen runs (`skillrig view --bundle`); loaded on first use, as the server is. */
export async function writeBundle(options: BundleOptions): Promise<BundleResult> {
  return (await import("./bundle.js")).writeBundle(options);
}
