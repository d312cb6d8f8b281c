/**
 * The runs folder: every `skillrig test`, `solve` and `run` leaves one folder in it, so past runs can be listed,
 * viewed and cleaned. The layout (documented in docs/view.md):
 *
 *   <runs_dir>/<id>/                   id = <UTC stamp>-<kind>-<name>-<6 hex>
 *     record.json                      what `runs list` and the view show: RunRecord below
 *     report.json                      test: the JSON report; solve: the solve report
 *     jobs/<job_id>/                   solve: each attempt's job run folder
 *   <runs_dir>/<job_id>/               run: the job's run folder (see packages/skills run-folder.ts), plus
 *     record.json                      its record; the report is the folder's result.json
 *
 *   <runs_dir>/eval-<skill id>/        eval: `skillrig eval`'s folder (eval-folder.ts); each iteration-<n>/ is
 *     iteration-<n>/iteration.json     one record (kind eval, id <folder>/iteration-<n>), read from iteration.json
 *
 * A folder without record.json but with a result.json (a skill job recorded before records existed, or run with
 * --runs-dir) is listed as a `run` from its result.json; anything else in the folder is ignored.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { evalRunRecords, isFolderName, parseEvalRecordId } from "./eval-folder.js";
import { RUN_KINDS, type RunKind, type RunRecord } from "./run-record.js";

export { RUN_KINDS, type RunKind, type RunRecord };

export interface NewRecord {
  kind: RunKind;
  name: string;
  engines?: string[];
  startedAt: Date;
  durationMs: number | null;
  status: Exclude<RunRecord["status"], "running" | "finished">;
  passed: number | null;
  total: number | null;
}

const RECORD = "record.json";

/** A name safe as part of a folder name: letters, digits, dot, dash, underscore; at most 60 characters. */
export function folderSafeName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .slice(0, 60);
  return safe === "" ? "unnamed" : safe;
}

function stamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

function toRecord(id: string, r: NewRecord, report: string): RunRecord {
  return {
    format: "skillrig-run-record",
    version: 1,
    id,
    kind: r.kind,
    name: r.name,
    engines: r.engines ?? [],
    started_at: r.startedAt.toISOString(),
    duration_ms: r.durationMs,
    status: r.status,
    passed: r.passed,
    total: r.total,
    pass_rate: r.passed !== null && r.total ? Math.round((r.passed / r.total) * 10_000) / 10_000 : null,
    report,
  };
}

/** A new run folder's name: `<UTC stamp>-<kind>-<name>-<6 hex>`. */
export function newRunId(kind: RunKind, name: string, startedAt: Date): string {
  return `${stamp(startedAt)}-${kind}-${folderSafeName(name)}-${randomBytes(3).toString("hex")}`;
}

/**
 * Writes record.json and report.json into a run folder, created when it does not exist yet; `id` names a folder
 * made earlier with newRunId (a solve puts its attempts' job folders in it while it runs). Returns its path.
 */
export async function writeRunRecord(
  runsDir: string,
  record: NewRecord,
  report: unknown,
  id = newRunId(record.kind, record.name, record.startedAt),
): Promise<string> {
  const dir = join(resolve(runsDir), id);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(dir, RECORD), `${JSON.stringify(toRecord(id, record, "report.json"), null, 2)}\n`);
  return dir;
}

/** Adds record.json to an existing folder inside the runs folder (a skill job's run folder, whose report is result.json). */
export async function recordExistingFolder(folder: string, record: NewRecord, report = "result.json"): Promise<string> {
  const dir = resolve(folder);
  const id = dir.split(/[\\/]/).pop()!;
  await writeFile(join(dir, RECORD), `${JSON.stringify(toRecord(id, record, report), null, 2)}\n`);
  return dir;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, "utf8"));
}

/** A record read back, checked field by field: a hand-edited or truncated record.json is skipped, not trusted. */
function checkRecord(id: string, value: unknown): RunRecord | undefined {
  if (!isObject(value) || value.format !== "skillrig-run-record") return undefined;
  const kind = value.kind;
  if (kind !== "test" && kind !== "solve" && kind !== "run") return undefined;
  if (typeof value.name !== "string" || typeof value.started_at !== "string" || typeof value.report !== "string") return undefined;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  const status = value.status === "passed" || value.status === "failed" ? value.status : "error";
  return {
    format: "skillrig-run-record",
    version: 1,
    id,
    kind,
    name: value.name,
    engines: Array.isArray(value.engines) ? value.engines.filter((e): e is string => typeof e === "string") : [],
    started_at: value.started_at,
    duration_ms: num(value.duration_ms),
    status,
    passed: num(value.passed),
    total: num(value.total),
    pass_rate: num(value.pass_rate),
    report: value.report,
  };
}

/** A skill job folder without a record (see the header): its record is derived from result.json. */
function recordFromJobResult(id: string, result: unknown): RunRecord | undefined {
  if (!isObject(result) || typeof result.skill_id !== "string") return undefined;
  const timings = isObject(result.timings) ? result.timings : {};
  const started = typeof timings.started_at === "string" ? timings.started_at : undefined;
  if (!started) return undefined;
  const ok = result.status === "succeeded";
  return {
    format: "skillrig-run-record",
    version: 1,
    id,
    kind: "run",
    name: result.skill_id,
    engines: typeof result.engine === "string" ? [result.engine] : [],
    started_at: started,
    duration_ms: typeof timings.duration_ms === "number" ? timings.duration_ms : null,
    status: ok ? "passed" : "failed",
    passed: ok ? 1 : 0,
    total: 1,
    pass_rate: ok ? 1 : 0,
    report: "result.json",
  };
}

/** Whether `id` can name a record: a folder of the runs folder, or an eval iteration `<folder>/iteration-<n>`. */
export function isRunId(id: string): boolean {
  return isFolderName(id) || parseEvalRecordId(id) !== undefined;
}

/**
 * Reads one run folder's record, or an eval iteration's (`<folder>/iteration-<n>`); undefined when there is no
 * such run.
 */
export async function readRunRecord(runsDir: string, id: string): Promise<RunRecord | undefined> {
  const evalIteration = parseEvalRecordId(id);
  if (evalIteration) return (await evalRunRecords(runsDir, evalIteration.id)).find((r) => r.id === id);
  if (!isFolderName(id)) return undefined;
  const dir = join(resolve(runsDir), id);
  try {
    if (existsSync(join(dir, RECORD))) return checkRecord(id, await readJson(join(dir, RECORD)));
    if (existsSync(join(dir, "result.json"))) return recordFromJobResult(id, await readJson(join(dir, "result.json")));
  } catch {
    // Unreadable or half-written JSON: not a run we can show.
  }
  return undefined;
}

/**
 * One run's record and its report (parsed JSON; null when the file is missing, not JSON or outside the run's
 * folder); undefined when there is no such run.
 */
export async function readRunReport(runsDir: string, id: string): Promise<{ record: RunRecord; report: unknown } | undefined> {
  const record = isRunId(id) ? await readRunRecord(runsDir, id) : undefined;
  if (!record) return undefined;
  const folder = join(resolve(runsDir), id);
  const file = resolve(folder, record.report);
  let report: unknown = null;
  if (file.startsWith(`${folder}/`)) {
    try {
      report = await readJson(file);
    } catch {
      report = null;
    }
  }
  return { record, report };
}

/** Every run in the folder, newest first. A missing folder has no runs. */
export async function listRunRecords(runsDir: string): Promise<RunRecord[]> {
  let names: string[];
  try {
    names = (await readdir(resolve(runsDir), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const records = await Promise.all(
    names.map(async (name) => {
      const record = await readRunRecord(runsDir, name);
      return record ? [record] : evalRunRecords(runsDir, name);
    }),
  );
  return records.flat().sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0));
}

/** "30m", "12h", "7d", "2w" (also s) as milliseconds; undefined for anything else. */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as "s" | "m" | "h" | "d" | "w"];
  return Number(match[1]) * unit;
}

export interface CleanOptions {
  /** Remove what is older than this many milliseconds. */
  olderThanMs: number;
  /** The cached Python environments' folder (skills.python.env_dir), cleaned by the age of their last build. */
  pythonEnvDir?: string;
  /** Only say what would be removed. */
  dryRun?: boolean;
  now?: Date;
}

export interface CleanResult {
  runs: string[];
  pythonEnvs: string[];
}

/**
 * Removes run folders started before now - olderThan (folders without a readable record by their modification
 * time), and cached Python environments whose ready marker is that old. An environment being built (its lock
 * folder exists) is left alone.
 */
export async function cleanRuns(runsDir: string, options: CleanOptions): Promise<CleanResult> {
  const cutoff = (options.now ?? new Date()).getTime() - options.olderThanMs;
  const result: CleanResult = { runs: [], pythonEnvs: [] };
  const root = resolve(runsDir);
  const entries = existsSync(root) ? await readdir(root, { withFileTypes: true }) : [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, entry.name);
    const record = await readRunRecord(root, entry.name);
    // An eval folder goes when its newest iteration is that old (the iterations are numbered on from the highest).
    const iterations = record ? [] : await evalRunRecords(root, entry.name);
    const when = record
      ? Date.parse(record.started_at)
      : iterations.length > 0
        ? Math.max(...iterations.map((r) => Date.parse(r.started_at)))
        : (await stat(dir)).mtimeMs;
    if (!(when < cutoff)) continue;
    if (!options.dryRun) await rm(dir, { recursive: true, force: true });
    result.runs.push(dir);
  }
  const envRoot = options.pythonEnvDir ? resolve(options.pythonEnvDir) : undefined;
  if (envRoot && existsSync(envRoot)) {
    for (const entry of await readdir(envRoot, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.endsWith(".lock")) continue;
      const dir = join(envRoot, entry.name);
      if (existsSync(`${dir}.lock`)) continue;
      const marker = join(dir, ".skillrig-ready");
      const when = (await stat(existsSync(marker) ? marker : dir)).mtimeMs;
      if (!(when < cutoff)) continue;
      if (!options.dryRun) await rm(dir, { recursive: true, force: true });
      result.pythonEnvs.push(dir);
    }
  }
  return result;
}
