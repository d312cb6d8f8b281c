/**
 * Where a function deliverable is (the type's answers to `task.resolveDeliverable` and `task.deliverableFile`):
 * - a user's path: a `.py` file, or a folder holding exactly one obvious module: its top-level `.py` files other
 *   than tests and packaging files (`test_*.py`, `*_test.py`, `conftest.py`, `setup.py`, `__init__.py`,
 *   `__main__.py`). When there are several, `solution.py` is taken if present; otherwise it is an error listing them.
 * - written from text (a sample's `solution`, the solve skill's output): `solution.py`, since the task's `entrypoint`
 *   names the function, not a file.
 */
import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { SkillrigError, type Deliverable, type DeliverablePathRequest } from "@skillrig/core";

export const SOLUTION_FILE = "solution.py";

const NOT_A_SOLUTION = /^(test_.*|.*_test|conftest|setup|__init__|__main__)\.py$/;

export async function functionDeliverable({ path, target, kind }: DeliverablePathRequest): Promise<Deliverable> {
  if (kind === "file") {
    if (!target.endsWith(".py")) {
      throw new SkillrigError(
        "usage",
        `deliverable ${path} is not a Python file (.py); a function deliverable is a .py module or a folder holding one`,
        { field: "--deliverable", file: path },
      );
    }
    return { dir: dirname(target), entryFile: target, entryOnly: true };
  }
  return { dir: target, entryFile: join(target, await findModule(target, path)) };
}

async function findModule(dir: string, shown: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  const candidates = entries
    .filter((e) => e.isFile() && e.name.endsWith(".py") && !NOT_A_SOLUTION.test(e.name))
    .map((e) => e.name)
    .sort();
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.includes(SOLUTION_FILE)) return SOLUTION_FILE;
  const found = candidates.length === 0 ? "it has none" : `it has ${candidates.length}: ${candidates.join(", ")}`;
  throw new SkillrigError("usage", `deliverable folder ${shown} must hold exactly one Python module (or a solution.py); ${found}`, {
    field: "--deliverable",
    file: shown,
    hint: candidates.length > 0 ? `name the module itself, e.g. --deliverable ${join(shown, candidates[0]!)}` : undefined,
  });
}
