/**
 * Records a finished `skillrig test`, `solve` or `run` in the project's runs folder (layout: docs/view.md and
 * @skillrig/view's runs-folder.ts), so `skillrig runs` and `skillrig view` can show it later. One call per
 * command; the record's name, status and pass counts are read from the report's own shape.
 */
import { runsFolderOf, type Runner } from "@skillrig/core";
import { join, resolve } from "node:path";
import type { NewRecord, RunKind } from "@skillrig/view";
import type { CommandContext } from "./context.js";

/** The cached Python environments' folder (skills.python.env_dir), which `runs clean` also prunes. */
export function pythonEnvDirOf(runner: Pick<Runner, "config" | "configDir">): string {
  return resolve(runner.configDir, runner.config.skills?.python?.env_dir ?? ".skillrig/python-envs");
}

type Report = Record<string, unknown>;

let view: Promise<typeof import("@skillrig/view")> | undefined;

/** @skillrig/view's runs folder code, imported when a run is recorded, not when a command starts. */
function loadView(): Promise<typeof import("@skillrig/view")> {
  view ??= import("@skillrig/view");
  return view;
}

const isObject = (v: unknown): v is Report => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Report[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** name, status and pass counts of a report of any of the shapes the commands write. */
export function describeReport(kind: RunKind, report: Report): Omit<NewRecord, "kind" | "startedAt" | "durationMs"> {
  if (kind === "run") {
    const ok = report.status === "succeeded";
    return {
      name: String(report.skill_id ?? "skill"),
      engines: typeof report.engine === "string" ? [report.engine] : [],
      status: ok ? "passed" : "failed",
      passed: ok ? 1 : 0,
      total: 1,
    };
  }
  const tasks = list(report.tasks);
  const taskNames = tasks.map((t) => String(t.task_id ?? "")).filter(Boolean);
  const name =
    taskNames.length > 0
      ? taskNames.length > 3
        ? `${taskNames.slice(0, 3).join(",")}+${taskNames.length - 3}`
        : taskNames.join(",")
      : String(report.task_id ?? kind);
  if (report.kind === "skillrig-solve-report") {
    const summary = isObject(report.summary) ? report.summary : {};
    const passed = Number(summary.passed ?? 0);
    const total = Number(summary.attempts ?? 0);
    return {
      name,
      engines: list(report.engines).map((e) => String(e.engine)),
      status: total > 0 && passed === total ? "passed" : "failed",
      passed,
      total,
    };
  }
  if (tasks.length > 0) {
    // A suite: every sample of every task counts once; a sample passes when all of its cases pass.
    const samples = tasks.flatMap((t) => list(t.samples));
    if (samples.some((s) => isObject(s.incomplete))) {
      const counted = samples.filter((s) => list(s.cases).length > 0 && list(s.cases).every((c) => c.status === "passed")).length;
      return { name, status: "error", passed: counted, total: samples.length };
    }
    const passed = samples.filter((s) => list(s.cases).length > 0 && list(s.cases).every((c) => c.status === "passed")).length;
    return { name, status: samples.length > 0 && passed === samples.length ? "passed" : "failed", passed, total: samples.length };
  }
  const summary = isObject(report.summary) ? report.summary : {};
  const passed = Number(summary.passed ?? 0);
  const total = Number(summary.total ?? 0);
  // A report that ended early (`incomplete`) is recorded as an error: runs list/show and the viewer never read it as complete.
  if (isObject(report.incomplete)) return { name, status: "error", passed, total };
  return { name, status: total > 0 && passed === total ? "passed" : "failed", passed, total };
}

/**
 * Writes the run's record (and, for test and solve, its report) into the runs folder and says where on stderr.
 * A skill run's folder already is in the runs folder: it only gets its record.
 */
export async function recordRun(
  ctx: CommandContext,
  kind: RunKind,
  report: unknown,
  startedAt: Date,
  folder?: RunFolderReservation,
): Promise<string | undefined> {
  if (!isObject(report)) return undefined;
  const runner = await ctx.runner();
  const described = describeReport(kind, report);
  const durationMs =
    typeof report.duration_ms === "number"
      ? report.duration_ms
      : isObject(report.timings) && typeof report.timings.duration_ms === "number"
        ? report.timings.duration_ms
        : Date.now() - startedAt.getTime();
  const record: NewRecord = { kind, startedAt, durationMs, ...described };
  const { recordExistingFolder, writeRunRecord } = await loadView();
  const runsDir = kind === "run" && typeof report.run_dir === "string" ? report.run_dir : runsFolderOf(runner);
  let dir: string;
  try {
    dir =
      kind === "run" && typeof report.run_dir === "string"
        ? await recordExistingFolder(report.run_dir, record)
        : await writeRunRecord(runsDir, record, report, folder?.id);
  } catch (error) {
    // The report is already out (stdout or the report file): a runs folder the user cannot write costs the record,
    // not the command's result. Say where and why, and how to choose another place.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== "string") throw error;
    ctx.out.warn(
      `the run was not recorded: ${runsDir} cannot be written (${code}); the report is complete. Set SKILLRIG_RUNS_DIR or runs_dir in the config to a folder you can write, or pass --no-record`,
    );
    return undefined;
  }
  ctx.out.info(`recorded in ${dir} (skillrig runs list; skillrig view)`);
  return dir;
}

export interface RunFolderReservation {
  id: string;
  /** Where the run's own job folders go (a solve's attempts), inside its run folder. */
  jobsDir: string;
}

/** Names the run folder before the run starts, so what the run creates lands inside it (and is cleaned with it). */
export async function reserveRunFolder(ctx: CommandContext, kind: RunKind, name: string, startedAt: Date): Promise<RunFolderReservation> {
  const id = (await loadView()).newRunId(kind, name, startedAt);
  return { id, jobsDir: join(runsFolderOf(await ctx.runner()), id, "jobs") };
}
