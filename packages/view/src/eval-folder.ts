/**
 * Eval folders in the runs folder, read for the view: `<runs_dir>/eval-<skill id>/iteration-<n>/`, as
 * `skillrig eval` writes them (the layout and every file's type: @skillrig/evals/format).
 *
 * A folder of the runs folder is an eval folder when it holds at least one `iteration-<n>/` folder with an
 * iteration.json (whatever the folder is called, so an `--out` inside the runs folder is found too).
 *
 * Everything here is read defensively. Each JSON file is read only when it is a regular file (never through a
 * link), under a size cap, and checked against its schema (`@skillrig/evals/format`'s, shipped by the writer): a file that breaks it is reported as
 * `<file> is not valid: <pointer> <what>` and not used. A run's folder (benchmark.json's `runs[].path`) must resolve,
 * through links, to a folder inside its iteration. `outputs/` is what an agent wrote: it is listed without following
 * a link, and its files are served as text or downloads only (view-server.ts).
 */
import { lstat, readdir, readFile, realpath } from "node:fs/promises";
import { join, relative, resolve, sep, isAbsolute } from "node:path";
import { compileSchema, formatViolations, type CompiledSchema, type JsonSchema } from "@skillrig/core";
import {
  ANSWER_SCHEMA,
  BENCHMARK_SCHEMA,
  type Benchmark,
  GRADING_SCHEMA,
  type Grading,
  ITERATION_SCHEMA,
  type IterationRecord,
  type RunAnswer,
  type RunDelta,
  TIMING_SCHEMA,
  TRIGGERS_SCHEMA,
  type Timing,
  type TriggerReport,
} from "@skillrig/evals/format";
import type { EvalSummary, IterationDetail, IterationSummary, OutputEntry, RunAssertions, RunDetail } from "./eval-api.js";
export type { EvalSummary, IterationDetail, IterationSummary, OutputEntry, RunAssertions, RunDetail } from "./eval-api.js";
import type { RunRecord } from "./run-record.js";

/** The largest JSON file the viewer parses (a benchmark of thousands of runs is a few megabytes). */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** The most entries an outputs/ listing shows; the rest is counted, not listed. */
export const MAX_OUTPUT_ENTRIES = 2000;
/** The largest file the view shows inline as text; anything bigger is a download only. */
export const MAX_SHOWN_BYTES = 2 * 1024 * 1024;

const ITERATION_DIR = /^iteration-([1-9][0-9]{0,8})$/;

/** A file read for the view: its value when it is there and valid, else why not (null for an optional file not there). */
export interface Loaded<T> {
  value: T | null;
  problem: string | null;
}

/** A folder name: no separators, no dot-only names. */
export function isFolderName(id: string): boolean {
  return /^[A-Za-z0-9._-]+$/.test(id) && id !== "." && id !== "..";
}

/** Whether `child` (absolute, resolved) lies strictly inside `parent`. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

const compiled = new Map<JsonSchema, CompiledSchema>();
function validator(schema: JsonSchema): CompiledSchema {
  let v = compiled.get(schema);
  if (!v) {
    v = compileSchema(schema);
    compiled.set(schema, v);
  }
  return v;
}

/**
 * Reads `file` as `label` (the name the page shows): a regular file, never a link, at most MAX_JSON_BYTES,
 * JSON valid against `schema`. A missing file is a problem only when `required`.
 */
export async function readChecked<T>(file: string, label: string, schema: JsonSchema, required: boolean): Promise<Loaded<T>> {
  const fail = (problem: string): Loaded<T> => ({ value: null, problem });
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return required ? fail(`${label} is missing`) : { value: null, problem: null };
    return fail(`${label} cannot be read: ${(error as Error).message}`);
  }
  if (info.isSymbolicLink()) return fail(`${label} is a link; the view does not follow links`);
  if (!info.isFile()) return fail(`${label} is not a file`);
  if (info.size > MAX_JSON_BYTES)
    return fail(`${label} is too large to read (${info.size} bytes; the view reads at most ${MAX_JSON_BYTES})`);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    return fail(`${label} is not valid JSON: ${(error as Error).message}`);
  }
  const violations = validator(schema).validate(value);
  if (violations.length > 0) {
    const shown = violations.slice(0, 5);
    const more = violations.length > shown.length ? ` (and ${violations.length - shown.length} more)` : "";
    return fail(`${label} is not valid: ${formatViolations(shown)}${more}`);
  }
  return { value: value as T, problem: null };
}

async function childDirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
}

/** The iteration numbers of an eval folder (folders `iteration-<n>` holding an iteration.json), ascending. */
async function iterationNumbers(evalDir: string): Promise<number[]> {
  const numbers: number[] = [];
  for (const name of await childDirs(evalDir)) {
    const match = ITERATION_DIR.exec(name);
    if (!match) continue;
    try {
      if ((await lstat(join(evalDir, name, "iteration.json"))).isFile()) numbers.push(Number(match[1]));
    } catch {
      // not an iteration (yet)
    }
  }
  return numbers.sort((a, b) => a - b);
}

function iterationDir(runsDir: string, id: string, n: number): string {
  if (!isFolderName(id) || !Number.isInteger(n) || n < 1) throw new Error(`not an eval iteration: ${id} ${n}`);
  return join(resolve(runsDir), id, `iteration-${n}`);
}

function summarize(n: number, iteration: Loaded<IterationRecord>, benchmark: Loaded<Benchmark>): IterationSummary {
  const it = iteration.value;
  const pass_rates: Record<string, number> = {};
  let delta: RunDelta | null = null;
  if (benchmark.value) {
    for (const [name, summary] of Object.entries(benchmark.value.run_summary)) {
      if (name !== "delta" && summary && "pass_rate" in summary && typeof summary.pass_rate === "object")
        pass_rates[name] = summary.pass_rate.mean;
    }
    delta = benchmark.value.run_summary.delta ?? null;
  }
  return {
    n,
    status: it?.status ?? "unknown",
    started_at: it?.started_at ?? null,
    finished_at: it?.finished_at ?? null,
    engines: it?.engines ?? [],
    configurations: it?.configurations ?? [],
    pass_rates,
    delta,
    problems: [iteration.problem, benchmarkProblem(iteration, benchmark)].filter((p): p is string => p !== null),
  };
}

/** A running iteration has no benchmark.json yet: that is not a problem. */
function benchmarkProblem(iteration: Loaded<IterationRecord>, benchmark: Loaded<Benchmark>): string | null {
  return iteration.value?.status === "running" && benchmark.problem === "benchmark.json is missing" ? null : benchmark.problem;
}

async function readIterationFiles(dir: string): Promise<{ iteration: Loaded<IterationRecord>; benchmark: Loaded<Benchmark> }> {
  const [iteration, benchmark] = await Promise.all([
    readChecked<IterationRecord>(join(dir, "iteration.json"), "iteration.json", ITERATION_SCHEMA, true),
    readChecked<Benchmark>(join(dir, "benchmark.json"), "benchmark.json", BENCHMARK_SCHEMA, true),
  ]);
  return { iteration, benchmark };
}

/** One eval folder with its iterations (newest first), or undefined when `id` is not an eval folder. */
export async function readEval(runsDir: string, id: string): Promise<EvalSummary | undefined> {
  if (!isFolderName(id)) return undefined;
  const evalDir = join(resolve(runsDir), id);
  try {
    if (!(await lstat(evalDir)).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const numbers = await iterationNumbers(evalDir);
  if (numbers.length === 0) return undefined;
  const read = await Promise.all(numbers.map(async (n) => ({ n, ...(await readIterationFiles(iterationDir(runsDir, id, n))) })));
  const newest = [...read].reverse();
  const named = newest.find((r) => r.iteration.value)?.iteration.value?.skill_name;
  return {
    id,
    skill_name: named ?? id.replace(/^eval-/, ""),
    iterations: newest.map((r) => summarize(r.n, r.iteration, r.benchmark)),
  };
}

/** Every eval folder of the runs folder, by folder name. */
export async function listEvals(runsDir: string): Promise<EvalSummary[]> {
  const names = (await childDirs(resolve(runsDir))).sort();
  const evals = await Promise.all(names.map((name) => readEval(runsDir, name)));
  return evals.filter((e): e is EvalSummary => e !== undefined);
}

/** One iteration's files; undefined when the iteration folder has no iteration.json. */
export async function readIteration(runsDir: string, id: string, n: number): Promise<IterationDetail | undefined> {
  if (!isFolderName(id) || !Number.isInteger(n) || n < 1) return undefined;
  const evalDir = join(resolve(runsDir), id);
  if (!(await iterationNumbers(evalDir)).includes(n)) return undefined;
  const dir = iterationDir(runsDir, id, n);
  const [{ iteration, benchmark }, triggers] = await Promise.all([
    readIterationFiles(dir),
    readChecked<TriggerReport>(join(dir, "triggers.json"), "triggers.json", TRIGGERS_SCHEMA, false),
  ]);
  return {
    id,
    n,
    iteration: iteration.value,
    iteration_problem: iteration.problem,
    benchmark: benchmark.value,
    benchmark_problem: benchmarkProblem(iteration, benchmark),
    triggers: triggers.value,
    triggers_problem: triggers.problem,
  };
}

/**
 * A folder inside an iteration, named by a path relative to it: its real path when it is a folder strictly
 * inside the iteration's real folder (links resolved), else undefined.
 */
async function folderInside(iterDir: string, path: string): Promise<string | undefined> {
  if (path.includes("\0") || isAbsolute(path)) return undefined;
  try {
    const root = await realpath(iterDir);
    const real = await realpath(resolve(root, path));
    if (!isInside(root, real) || !(await lstat(real)).isDirectory()) return undefined;
    return real;
  } catch {
    return undefined;
  }
}

/** outputs/ listed without following a link: files with their size, links and special files marked, capped. */
async function listOutputs(dir: string): Promise<{ entries: OutputEntry[]; unlisted: number; problem: string | null }> {
  const entries: OutputEntry[] = [];
  let unlisted = 0;
  try {
    const top = await lstat(dir);
    if (top.isSymbolicLink() || !top.isDirectory()) return { entries, unlisted, problem: "outputs/ is not a folder" };
  } catch {
    return { entries, unlisted, problem: null };
  }
  const walk = async (folder: string, prefix: string, depth: number): Promise<void> => {
    const children = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const path = `${prefix}${child.name}`;
      if (child.isDirectory() && depth < 32) {
        await walk(join(folder, child.name), `${path}/`, depth + 1);
        continue;
      }
      if (entries.length >= MAX_OUTPUT_ENTRIES) {
        unlisted++;
        continue;
      }
      const info = await lstat(join(folder, child.name));
      entries.push({ path, type: info.isSymbolicLink() ? "link" : info.isFile() ? "file" : "other", size: info.isFile() ? info.size : 0 });
    }
  };
  try {
    await walk(dir, "", 0);
  } catch (error) {
    return { entries, unlisted, problem: `outputs/ could not be listed: ${(error as Error).message}` };
  }
  return { entries, unlisted, problem: null };
}

/** One run of an iteration: its answer, grading, timing and outputs/ listing; undefined when the path is not a run folder inside it. */
export async function readEvalRun(runsDir: string, id: string, n: number, path: string): Promise<RunDetail | undefined> {
  if (!isFolderName(id) || !Number.isInteger(n) || n < 1) return undefined;
  const folder = await folderInside(iterationDir(runsDir, id, n), path);
  if (!folder) return undefined;
  const [answer, grading, timing, outputs] = await Promise.all([
    readChecked<RunAnswer>(join(folder, "answer.json"), "answer.json", ANSWER_SCHEMA, true),
    readChecked<Grading>(join(folder, "grading.json"), "grading.json", GRADING_SCHEMA, true),
    readChecked<Timing>(join(folder, "timing.json"), "timing.json", TIMING_SCHEMA, true),
    listOutputs(join(folder, "outputs")),
  ]);
  return {
    path,
    answer: answer.value,
    answer_problem: answer.problem,
    grading: grading.value,
    grading_problem: grading.problem,
    timing: timing.value,
    timing_problem: timing.problem,
    outputs: outputs.entries,
    outputs_unlisted: outputs.unlisted,
    outputs_problem: outputs.problem,
    max_shown_bytes: MAX_SHOWN_BYTES,
  };
}

/** Every run's assertion results (text and passed) of an iteration, for comparing it with another; undefined without a valid benchmark.json. */
export async function readIterationAssertions(runsDir: string, id: string, n: number): Promise<RunAssertions[] | undefined> {
  const detail = await readIteration(runsDir, id, n);
  if (!detail?.benchmark) return undefined;
  const dir = iterationDir(runsDir, id, n);
  return Promise.all(
    detail.benchmark.runs.map(async (run): Promise<RunAssertions> => {
      const key = {
        eval_id: run.eval_id,
        configuration: run.configuration,
        engine: run.engine,
        run_number: run.run_number,
        path: run.path,
      };
      const folder = await folderInside(dir, run.path);
      if (!folder) return { ...key, assertions: null, problem: `${run.path} is not a run folder inside the iteration` };
      const grading = await readChecked<Grading>(join(folder, "grading.json"), `${run.path}/grading.json`, GRADING_SCHEMA, true);
      return {
        ...key,
        assertions: grading.value ? grading.value.assertion_results.map((a) => ({ text: a.text, passed: a.passed })) : null,
        problem: grading.problem,
      };
    }),
  );
}

/**
 * The runs folder's records of an eval folder: one per iteration with a valid iteration.json (kind `eval`, id
 * `<folder>/iteration-<n>`), pass rate the with_skill mean from benchmark.json. Empty when `id` is no eval folder.
 */
export async function evalRunRecords(runsDir: string, id: string): Promise<RunRecord[]> {
  if (!isFolderName(id)) return [];
  const evalDir = join(resolve(runsDir), id);
  const numbers = await iterationNumbers(evalDir);
  const records = await Promise.all(
    numbers.map(async (n): Promise<RunRecord | undefined> => {
      const { iteration, benchmark } = await readIterationFiles(iterationDir(runsDir, id, n));
      const it = iteration.value;
      if (!it) return undefined;
      const finished = it.finished_at ? Date.parse(it.finished_at) - Date.parse(it.started_at) : Number.NaN;
      const withSkill = benchmark.value?.run_summary.with_skill;
      const rate = withSkill && "pass_rate" in withSkill && typeof withSkill.pass_rate === "object" ? withSkill.pass_rate.mean : null;
      return {
        format: "skillrig-run-record",
        version: 1,
        id: `${id}/iteration-${n}`,
        kind: "eval",
        name: it.skill_name,
        engines: it.engines,
        started_at: it.started_at,
        duration_ms: Number.isFinite(finished) && finished >= 0 ? finished : null,
        status: it.status,
        passed: null,
        total: null,
        pass_rate: rate === null ? null : Math.round(rate * 10_000) / 10_000,
        report: "benchmark.json",
      };
    }),
  );
  return records.filter((r): r is RunRecord => r !== undefined);
}

/** `<folder>/iteration-<n>`, the id of an eval iteration's record, split; undefined for any other id. */
export function parseEvalRecordId(id: string): { id: string; n: number } | undefined {
  const match = /^([^/]+)\/iteration-([1-9][0-9]{0,8})$/.exec(id);
  if (!match || !isFolderName(match[1]!)) return undefined;
  return { id: match[1]!, n: Number(match[2]) };
}
