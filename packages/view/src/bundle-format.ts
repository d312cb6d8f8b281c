/**
 * What `skillrig view --bundle` embeds in a bundle's data.js, read back by the web app (web/src/bundle.ts).
 * Browser-safe: types and names only.
 *
 * data.js is one statement, `globalThis.__SKILLRIG_BUNDLE__ = <BundleData as JSON>;`, loaded by a classic script
 * before the app: Chromium does not let a page opened from file:// fetch files beside it, and a script it may load.
 */
export const BUNDLE_GLOBAL = "__SKILLRIG_BUNDLE__";

/**
 * A file of a run the pages read (a job's run.json, its events, its artifacts; an eval run's outputs), base64 of its
 * bytes; a text file's absolute paths of the machine that wrote it are redacted (src/bundle-redact.ts).
 */
export interface BundleFile {
  /** The media type it is shown with: text/plain for anything not an image, whatever its name. */
  type: string;
  base64: string;
}

export interface BundleRun {
  /** The run's record.json (RunRecord). */
  record: { id: string } & Record<string, unknown>;
  /** Its report (null when it was missing or not JSON). */
  report: unknown;
  /** Files by their path in the run folder. */
  files: Record<string, BundleFile>;
  /** Files the pages would read that were left out, and why (too large, not a regular file inside the run). */
  left_out: Array<{ path: string; reason: string }>;
}

export interface BundleData {
  format: "skillrig-view-bundle";
  version: 1;
  created_at: string;
  /** Newest first, as the runs list shows them (eval iterations too: their report is benchmark.json). */
  runs: BundleRun[];
  /**
   * The view server's answers to other GET routes, by URL (`/api/evals/<folder>/iterations/<n>`,
   * `/api/trends/runs/<id>` ...): what an eval iteration's pages and the trends read.
   */
  api?: Record<string, unknown>;
  /** Files the pages open by URL (an eval run's outputs: `/api/evals/<folder>/iterations/<n>/files/<path>`). */
  api_files?: Record<string, BundleFile>;
  /** What a reader of this bundle will not find, and why (files over the caps, links, pages that need a server). */
  left_out?: Array<{ run: string; path: string; reason: string }>;
}
