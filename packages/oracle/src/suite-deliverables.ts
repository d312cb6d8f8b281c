/**
 * Where a suite's deliverables come from: one per task from a folder (`--deliverable DIR`), or any number per task
 * from a samples file (`--samples FILE.jsonl`, see samples-jsonl.ts). A task whose deliverable cannot be found is
 * not a reason to stop the others: it gets a `problem` and the rest of the suite still runs.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { isSkillrigError, type Deliverable, type LoadedTask, type Runner } from "@skillrig/core";
import { resolveDeliverable } from "./resolve-deliverable.js";

/** One sample of a task: a deliverable to grade, or why there is none. */
export interface SuiteSample {
  /** 0-based position of the sample among its task's samples (the order of the samples file). */
  index: number;
  /** Where it came from, for reports: a path, or `samples.jsonl:12`. */
  source: string;
  deliverable?: Deliverable;
  /** Set instead of `deliverable` when this sample cannot be graded (a missing path, no module in a folder ...). */
  problem?: string;
}

export interface SuiteEntry {
  loaded: LoadedTask;
  samples: SuiteSample[];
  /** Set when the task has no deliverable at all (nothing of it is graded). */
  problem?: string;
}

/**
 * `--deliverable DIR` for a suite: per task, `DIR/<task_id>.py` or the folder `DIR/<task_id>/` (a task_id with
 * slashes, like `HumanEval/0`, is a path below DIR), read by the type's `task.resolveDeliverable`. Both present is
 * ambiguous and is said so.
 */
export async function deliverablesFromFolder(runner: Runner, tasks: LoadedTask[], dir: string, cwd = process.cwd()): Promise<SuiteEntry[]> {
  const root = resolve(cwd, dir);
  const entries: SuiteEntry[] = [];
  for (const loaded of tasks) {
    const id = loaded.task.task_id;
    const folder = resolve(root, id);
    const file = `${folder}.py`;
    const inside = relative(root, folder);
    if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
      entries.push({
        loaded,
        samples: [],
        problem: `task_id "${id}" does not name a path inside ${dir}; give this task's deliverable with --samples`,
      });
      continue;
    }
    const [folderKind, fileKind] = await Promise.all([kindOf(folder), kindOf(file)]);
    const shownFile = relative(cwd, file) || file;
    const shownFolder = relative(cwd, folder) || folder;
    let path: string | undefined;
    if (folderKind === "dir" && fileKind === "file") {
      entries.push({
        loaded,
        samples: [],
        problem: `both ${shownFile} and ${shownFolder}/ exist; keep one as the deliverable of task ${id}`,
      });
      continue;
    }
    if (folderKind === "dir") path = folder;
    else if (fileKind === "file") path = file;
    if (!path) {
      entries.push({ loaded, samples: [], problem: `no deliverable for task ${id}: neither ${shownFile} nor ${shownFolder}/ exists` });
      continue;
    }
    const shown = relative(cwd, path) || path;
    try {
      const deliverable = await resolveDeliverable(runner, path, loaded.task, cwd);
      entries.push({ loaded, samples: [{ index: 0, source: shown, deliverable }] });
    } catch (error) {
      if (!isSkillrigError(error)) throw error;
      entries.push({ loaded, samples: [], problem: `task ${id}: ${error.message}` });
    }
  }
  return entries;
}

async function kindOf(path: string): Promise<"file" | "dir" | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isDirectory() ? "dir" : info?.isFile() ? "file" : undefined;
}
