/**
 * Turns `--deliverable <file-or-folder>` into core's `Deliverable` ({dir, entryFile}).
 *
 * - function: a `.py` file, or a folder holding exactly one obvious module: its top-level `.py` files other than
 *   tests and packaging files (`test_*.py`, `*_test.py`, `conftest.py`, `setup.py`, `__init__.py`, `__main__.py`).
 *   When there are several, `solution.py` is taken if present; otherwise it is an error listing them.
 * - script / cli (and types plugins add): the entry file itself (any name), or a folder that contains the task's
 *   `entrypoint` file.
 * A file given by itself is snapshotted alone (`entryOnly`): nothing beside it crosses into the sandbox.
 */
import { stat, readdir } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { SkillrigError, type Deliverable, type Task } from "@skillrig/core";

const NOT_A_SOLUTION = /^(test_.*|.*_test|conftest|setup|__init__|__main__)\.py$/;

export async function resolveDeliverable(
  path: string,
  task: Pick<Task, "deliverable_type" | "entrypoint">,
  cwd = process.cwd(),
): Promise<Deliverable> {
  const target = resolve(cwd, path);
  const kind = await statKind(target);
  if (kind === undefined) {
    throw new SkillrigError("usage", `deliverable ${path} does not exist`, { field: "--deliverable", file: path });
  }
  if (task.deliverable_type === "function") {
    if (kind === "file") {
      if (!target.endsWith(".py")) {
        throw new SkillrigError(
          "usage",
          `deliverable ${path} is not a Python file (.py); a function deliverable is a .py module or a folder holding one`,
          {
            field: "--deliverable",
            file: path,
          },
        );
      }
      return { dir: dirname(target), entryFile: target, entryOnly: true };
    }
    return { dir: target, entryFile: join(target, await findModule(target, path)) };
  }
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

async function findModule(dir: string, shown: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  const candidates = entries
    .filter((e) => e.isFile() && e.name.endsWith(".py") && !NOT_A_SOLUTION.test(e.name))
    .map((e) => e.name)
    .sort();
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.includes("solution.py")) return "solution.py";
  const found = candidates.length === 0 ? "it has none" : `it has ${candidates.length}: ${candidates.join(", ")}`;
  throw new SkillrigError("usage", `deliverable folder ${shown} must hold exactly one Python module (or a solution.py); ${found}`, {
    field: "--deliverable",
    file: shown,
    hint: candidates.length > 0 ? `name the module itself, e.g. --deliverable ${join(shown, candidates[0]!)}` : undefined,
  });
}

async function statKind(path: string): Promise<"file" | "dir" | undefined> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}
