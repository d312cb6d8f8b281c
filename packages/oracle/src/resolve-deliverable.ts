/**
 * Where a deliverable is, asked of the deliverable type's plugin through the runner's hooks; the oracle owns only
 * the rule for types whose plugin has none of its own.
 *
 * - `resolveDeliverable`: `--deliverable <file-or-folder>` -> core's `Deliverable` ({dir, entryFile}). The path must
 *   exist; then `task.resolveDeliverable[type]` answers (the function type: a `.py` file or a folder holding one
 *   module). With no answer: the entry file itself (any name), or a folder that contains the task's `entrypoint`.
 * - `deliverableFileOf`: the entry file a deliverable given as text is written to, relative to its folder:
 *   `task.deliverableFile[type]` (the function type: `solution.py`), else the task's `entrypoint`.
 * A file given by itself is snapshotted alone (`entryOnly`): nothing beside it crosses into the sandbox.
 */
import { stat } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { SkillrigError, type Deliverable, type DeliverablePathRequest, type Runner, type Task } from "@skillrig/core";

type TaskShape = Pick<Task, "deliverable_type" | "entrypoint">;

export async function resolveDeliverable(runner: Runner, path: string, task: TaskShape, cwd = process.cwd()): Promise<Deliverable> {
  const target = resolve(cwd, path);
  const kind = await statKind(target);
  if (kind === undefined) {
    throw new SkillrigError("usage", `deliverable ${path} does not exist`, { field: "--deliverable", file: path });
  }
  const request: DeliverablePathRequest = { path, target, kind, task };
  const answer = await runner.hooks.task.resolveDeliverable.get(task.deliverable_type)?.promise(request);
  return answer ?? entrypointDeliverable(request);
}

/** The entry file of a deliverable skillrig writes from text, relative to its folder. */
export function deliverableFileOf(runner: Runner, task: TaskShape): string {
  return runner.hooks.task.deliverableFile.get(task.deliverable_type)?.call({ task }) ?? task.entrypoint;
}

/** The rule of types without their own: the file itself, or a folder holding the task's `entrypoint` file. */
async function entrypointDeliverable({ path, target, kind, task }: DeliverablePathRequest): Promise<Deliverable> {
  if (kind === "file") return { dir: dirname(target), entryFile: target, entryOnly: true };
  const entryFile = resolve(target, task.entrypoint);
  const rel = relative(target, entryFile);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new SkillrigError("invalid_task", `entrypoint "${task.entrypoint}" points outside the deliverable folder ${path}`, {
      pointer: "/entrypoint",
    });
  }
  if ((await statKind(entryFile)) !== "file") {
    throw new SkillrigError("usage", `deliverable folder ${path} has no entrypoint file "${task.entrypoint}" (the task's /entrypoint)`, {
      field: "--deliverable",
      file: path,
      hint: `pass the entry file itself, or a folder that contains ${task.entrypoint}`,
    });
  }
  return { dir: target, entryFile };
}

async function statKind(path: string): Promise<"file" | "dir" | undefined> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}
