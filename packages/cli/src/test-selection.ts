/**
 * Which cases `skillrig test` grades: `-k/--filter EXPR` (pytest's -k over task ids and case names), `--last-failed`
 * (the cases that did not pass in the newest recorded run of the same tasks) and `--limit N` (the first N selected
 * cases of each task), composed into one selection per task. A selection that leaves nothing to grade is a usage
 * error naming what selected nothing.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runsFolderOf, SkillrigError, type LoadedTask } from "@skillrig/core";
import { parseCaseFilter, type CaseFilter, type CaseSelection } from "@skillrig/oracle/one-task";
import type { CommandContext } from "./context.js";

export interface SelectionOptions {
  filter?: string;
  lastFailed?: boolean;
  limit?: number;
}

/** The cases that did not pass, by task id: a set of case names, or "all" when the task or a sample was not graded at all. */
type Failing = Map<string, Set<string> | "all">;

export interface TestSelection {
  /** The selection for one task; undefined when every case runs. */
  of(loaded: LoadedTask): CaseSelection | undefined;
  /** How many of the task's cases the selection keeps. */
  count(loaded: LoadedTask): number;
  /** Says what selected nothing, as a usage error, when no case of `tasks` is selected. */
  assertSelects(tasks: LoadedTask[]): void;
}

/** undefined when no option selects (every case of every task runs). */
export async function testSelection(
  ctx: CommandContext,
  tasks: LoadedTask[],
  options: SelectionOptions,
): Promise<TestSelection | undefined> {
  const filter: CaseFilter | undefined = options.filter !== undefined ? parseCaseFilter(options.filter, "-k") : undefined;
  const failing = options.lastFailed ? await lastFailed(ctx, tasks) : undefined;
  if (!filter && !failing && options.limit === undefined) return undefined;

  const chosen = (loaded: LoadedTask): Set<number> => {
    const taskId = loaded.task.task_id;
    const failed = failing?.get(taskId);
    const keep = new Set<number>();
    loaded.task.tests.forEach((testCase, index) => {
      if (filter && !filter.matches(taskId, testCase.name)) return;
      if (failing && failed === undefined) return;
      if (failed instanceof Set && !failed.has(testCase.name)) return;
      if (options.limit !== undefined && keep.size >= options.limit) return;
      keep.add(index);
    });
    return keep;
  };
  const cache = new Map<LoadedTask, Set<number>>();
  const indexes = (loaded: LoadedTask) => {
    let found = cache.get(loaded);
    if (!found) cache.set(loaded, (found = chosen(loaded)));
    return found;
  };
  return {
    of: (loaded) => {
      const keep = indexes(loaded);
      return keep.size === loaded.task.tests.length ? undefined : (_testCase, index) => keep.has(index);
    },
    count: (loaded) => indexes(loaded).size,
    assertSelects(all) {
      if (all.some((loaded) => indexes(loaded).size > 0)) return;
      const what = filter ? `-k "${filter.text}"` : "--last-failed";
      throw new SkillrigError("usage", `${what} selects no case of the ${all.length} task(s) given`, {
        field: filter ? "--filter" : "--last-failed",
        hint: filter
          ? "the words are matched, case-insensitively, as parts of task ids and case names; join them with and, or, not"
          : undefined,
      });
    },
  };
}

/**
 * The cases that did not pass in the newest recorded `skillrig test` run of exactly these tasks (by task id); as
 * pytest does, with no such run or nothing failing in it, says so and selects everything (undefined).
 */
async function lastFailed(ctx: CommandContext, tasks: LoadedTask[]): Promise<Failing | undefined> {
  const { listRunRecords } = await import("@skillrig/view");
  const runsDir = runsFolderOf(await ctx.runner());
  const wanted = [...new Set(tasks.map((t) => t.task.task_id))].sort().join("\n");
  for (const record of await listRunRecords(runsDir)) {
    if (record.kind !== "test") continue;
    const report = await readFile(join(runsDir, record.id, record.report), "utf8")
      .then((text) => JSON.parse(text) as unknown)
      .catch(() => undefined);
    const failing = failingOf(report);
    if (!failing || [...failing.ids].sort().join("\n") !== wanted) continue;
    if (failing.cases.size === 0) {
      ctx.out.info(`--last-failed: nothing failed in the last run of these tasks (${record.id}); running every case`);
      return undefined;
    }
    const count = [...failing.cases.values()].reduce((n, c) => n + (c === "all" ? 1 : c.size), 0);
    ctx.out.info(`--last-failed: re-running ${count} case(s) of ${failing.cases.size} task(s) that did not pass in ${record.id}`);
    return failing.cases;
  }
  ctx.out.info(`--last-failed: no recorded run of these tasks in ${runsDir}; running every case`);
  return undefined;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** A recorded test report's task ids and what did not pass in it (a one-task report or a suite's). */
function failingOf(report: unknown): { ids: string[]; cases: Failing } | undefined {
  if (!isObject(report)) return undefined;
  const cases: Failing = new Map();
  const add = (taskId: string, report: Json) => {
    const names = [...list(report.cases).filter((c) => c.status !== "passed"), ...list(report.not_run)].map((c) => String(c.name));
    if (names.length === 0) return;
    const known = cases.get(taskId);
    if (known === "all") return;
    cases.set(taskId, new Set([...(known ?? []), ...names]));
  };
  if (Array.isArray(report.tasks)) {
    const tasks = list(report.tasks);
    for (const task of tasks) {
      const taskId = String(task.task_id);
      if (task.problem) cases.set(taskId, "all");
      for (const sample of list(task.samples)) {
        if (sample.status === "error") cases.set(taskId, "all");
        else add(taskId, sample);
      }
    }
    return { ids: tasks.map((t) => String(t.task_id)), cases };
  }
  if (typeof report.task_id !== "string") return undefined;
  add(report.task_id, report);
  return { ids: [report.task_id], cases };
}
