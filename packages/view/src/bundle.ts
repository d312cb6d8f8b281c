/**
 * `skillrig view --bundle DIR`: a static site of chosen runs that opens from disk (file://, no server) and from any
 * static host. The built app (dist/web) is copied, its index.html loads the script as a classic one (Chromium
 * refuses module scripts and crossorigin styles from file://), and data.js embeds every chosen run's record, report
 * and the files its pages read (bundle-format.ts), so the app needs no fetch; eval iterations carry the answers their
 * pages read (bundle-evals.ts), test and solve runs their trends. Pages that need a live server (a jobs server, a
 * new job) are absent. No absolute path of the machine is written: every string and text file is redacted first
 * (bundle-redact.ts).
 *
 * Nothing an agent wrote lands in the bundle as a file of its own: artifacts and logs are base64 inside data.js and
 * shown as data: URLs (text as text/plain), so an agent's report.html cannot run as a page of the host's origin.
 */
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { SkillrigError } from "@skillrig/core";
import { bundleEvals } from "./bundle-evals.js";
import { type BundleBudget, BUNDLE_MAX, readBundleFile } from "./bundle-files.js";
import { BUNDLE_GLOBAL, type BundleData, type BundleRun } from "./bundle-format.js";
import { pathRedactor, redactJson } from "./bundle-redact.js";
import { isInside, parseEvalRecordId, readIteration } from "./eval-folder.js";
import { listRunRecords, readRunReport, type RunRecord } from "./runs-folder.js";
import { readRunTrend } from "./trend-read.js";

export interface BundleOptions {
  runsDir: string;
  /** The folder to write; it must not exist or be empty, unless `force`. */
  outDir: string;
  /** Run ids to include (eval iterations too, `<folder>/iteration-<n>`); default the newest `limit` runs. */
  runs?: string[];
  /** How many of the newest runs when `runs` is not given (default 20). */
  limit?: number;
  /** Write into a folder that is not empty: what a bundle writes there (index.html, data.js, assets/) is replaced. */
  force?: boolean;
  /** The built web app; default the package's dist/web. */
  assetsDir?: string;
  /** The project the runs belong to: paths under it are written relative to it (default: the working folder). */
  projectDir?: string;
  now?: Date;
}

export interface BundleResult {
  dir: string;
  index: string;
  runs: string[];
  /** Files the pages would read that were left out, per run. */
  left_out: Array<{ run: string; path: string; reason: string }>;
  bytes: number;
}

export { BUNDLE_FILE_MAX, BUNDLE_MAX } from "./bundle-files.js";
export const BUNDLE_DEFAULT_LIMIT = 20;

const here = dirname(fileURLToPath(import.meta.url));

function usage(message: string, field: string, hint?: string): SkillrigError {
  return new SkillrigError("usage", message, { field, ...(hint ? { hint } : {}) });
}

/** The files a run's pages read: a skill job's run.json, events and artifacts (test and solve pages read only the report). */
function filesOf(record: RunRecord, report: unknown): string[] {
  if (record.kind !== "run") return [];
  const artifacts =
    typeof report === "object" && report !== null && Array.isArray((report as { artifacts?: unknown }).artifacts)
      ? ((report as { artifacts: Array<{ relativePath?: unknown }> }).artifacts
          .map((a) => a.relativePath)
          .filter((p): p is string => typeof p === "string") as string[])
      : [];
  return ["run.json", "logs/events.jsonl", ...artifacts];
}

/** The records to bundle: the ids named (runs or eval iterations, `<folder>/iteration-<n>`) or the newest `limit`. */
async function chooseRecords(options: BundleOptions): Promise<RunRecord[]> {
  const all = await listRunRecords(options.runsDir);
  if (!options.runs || options.runs.length === 0) return all.slice(0, options.limit ?? BUNDLE_DEFAULT_LIMIT);
  return [...new Set(options.runs)].map((id) => {
    const record = all.find((r) => r.id === id);
    if (!record)
      throw usage(`--run "${id}": no recorded run with that id in ${options.runsDir}`, "--run", "skillrig runs list shows the ids");
    return record;
  });
}

/** A run's record and report, and the files its pages read, into the bundle (an eval iteration's report is its benchmark.json). */
async function bundleRun(runsDir: string, record: RunRecord, budget: BundleBudget): Promise<BundleRun> {
  const evalId = parseEvalRecordId(record.id);
  const report = evalId
    ? ((await readIteration(runsDir, evalId.id, evalId.n))?.benchmark ?? null)
    : ((await readRunReport(runsDir, record.id))?.report ?? null);
  const run: BundleRun = { record: { ...record }, report, files: {}, left_out: [] };
  for (const path of filesOf(record, report)) {
    const file = await readBundleFile(join(runsDir, record.id), path, budget);
    if (typeof file === "string") run.left_out.push({ path, reason: file });
    else run.files[path] = file;
  }
  return run;
}

/** The trend of each bundled test and solve run, over the bundled runs like it (a point opens a page of the bundle). */
async function runTrends(runsDir: string, records: RunRecord[]): Promise<Record<string, unknown>> {
  const ids = new Set(records.map((r) => r.id));
  const api: Record<string, unknown> = {};
  for (const record of records) {
    if (record.kind !== "test" && record.kind !== "solve") continue;
    const trend = await readRunTrend(runsDir, record.id, ids);
    if (trend) api[`/api/trends/runs/${encodeURIComponent(record.id)}`] = trend;
  }
  return api;
}

/**
 * The page's own policy, as the view server's header says it (a static host sends none): scripts and styles from
 * the bundle only, images also as data: URLs (a job's artifacts), no requests anywhere.
 */
const BUNDLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The app's index.html, made to load from file://: classic deferred scripts after data.js, no crossorigin. */
export function bundleIndexHtml(html: string): string {
  const scripts = html.replace(/<script type="module" crossorigin src="([^"]+)"><\/script>/g, '<script defer src="$1"></script>');
  if (scripts === html) throw new Error("the built index.html has no module script to rewrite: rebuild @skillrig/view");
  return scripts
    .replace(/ crossorigin(?=[ >])/g, "")
    .replace(
      "</title>",
      `</title>\n    <meta http-equiv="Content-Security-Policy" content="${BUNDLE_CSP}" />\n    <script src="./data.js"></script>`,
    );
}

async function prepareOutDir(dir: string, force: boolean): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return void (await mkdir(dir, { recursive: true }));
    if (code === "ENOTDIR") throw usage(`--bundle "${dir}" is a file, not a folder`, "--bundle");
    throw error;
  }
  if (entries.length === 0) return;
  if (!force)
    throw usage(`--bundle "${dir}" exists and is not empty`, "--bundle", "name a new or empty folder, or pass --force to write over it");
  // Only what a bundle writes is replaced; anything else in the folder is left alone.
  for (const name of ["index.html", "data.js", "assets"]) await rm(join(dir, name), { recursive: true, force: true });
}

/**
 * The app's files into the bundle. Its scripts are loaded there as classic scripts: each is wrapped in a strict
 * function, as a module's code would run (Vite's output for this app is one file with no import or export).
 */
async function copyApp(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyApp(join(from, entry.name), join(to, entry.name));
    else if (!entry.isFile()) continue;
    else if (!entry.name.endsWith(".js")) await copyFile(join(from, entry.name), join(to, entry.name));
    else {
      const code = `(function () {\n"use strict";\n${await readFile(join(from, entry.name), "utf8")}\n})();\n`;
      try {
        new Script(code, { filename: entry.name }); // compiled only, never run: import/export do not compile here
      } catch (error) {
        throw new Error(`${entry.name} of the built app cannot load as a classic script from file://: ${(error as Error).message}`);
      }
      await writeFile(join(to, entry.name), code);
    }
  }
}

/** Writes the bundle; see the header. */
export async function writeBundle(options: BundleOptions): Promise<BundleResult> {
  const dir = resolve(options.outDir);
  const runsDir = resolve(options.runsDir);
  if (isInside(runsDir, dir) || dir === runsDir) throw usage(`--bundle "${dir}" is inside the runs folder ${runsDir}`, "--bundle");
  const assetsDir = options.assetsDir ?? join(here, "web");
  const html = bundleIndexHtml(await readFile(join(assetsDir, "index.html"), "utf8"));
  const records = await chooseRecords({ ...options, runsDir });
  const redact = pathRedactor({ projectDir: options.projectDir ?? process.cwd(), runsDir });
  const budget: BundleBudget = { left: BUNDLE_MAX, redact };
  const runs: BundleRun[] = [];
  for (const record of records) runs.push(await bundleRun(runsDir, record, budget));
  const evals = await bundleEvals(
    runsDir,
    records.map((r) => r.id),
    budget,
  );
  const leftOut: BundleResult["left_out"] = [
    ...runs.flatMap((r) => r.left_out.map((l) => ({ run: r.record.id, ...l }))),
    ...evals.left_out,
  ];
  const api = { ...(await runTrends(runsDir, records)), ...evals.api };
  const data: BundleData = redactJson(
    {
      format: "skillrig-view-bundle",
      version: 1,
      created_at: (options.now ?? new Date()).toISOString(),
      runs,
      api,
      api_files: evals.api_files,
      left_out: leftOut,
    },
    redact,
  );
  // JSON is a JavaScript expression; U+2028/2029 are escaped for older parsers.
  const json = JSON.stringify(data)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  const script = `globalThis.${BUNDLE_GLOBAL} = ${json};\n`;
  await prepareOutDir(dir, options.force === true);
  await copyApp(join(assetsDir, "assets"), join(dir, "assets"));
  await writeFile(join(dir, "index.html"), html);
  await writeFile(join(dir, "data.js"), script);
  return {
    dir,
    index: join(dir, "index.html"),
    runs: records.map((r) => r.id),
    left_out: data.left_out ?? [],
    bytes: Buffer.byteLength(script),
  };
}
