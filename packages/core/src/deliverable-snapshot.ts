/**
 * Copies the deliverable's folder once per task run into the run's temp folder: every case imports the same
 * snapshot, nothing a case does can touch the user's files, and the sandbox's unprivileged user can read it
 * wherever it came from (a home folder the user alone can read, say).
 * Shared by every deliverable plugin (function, script, cli, and third-party ones), so they snapshot alike.
 */
import { cp, readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { SkillrigError } from "./errors.js";
import type { Deliverable } from "./oracle-types.js";

/** Folders that are never part of a deliverable's code. */
const SKIPPED = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "__pycache__",
  ".venv",
  "venv",
  ".mypy_cache",
  ".pytest_cache",
  ".skillrig",
]);
export const MAX_DELIVERABLE_FILES = 2000;
export const MAX_DELIVERABLE_BYTES = 100 * 1024 * 1024;

/** Copies `deliverable.dir` to `target`; returns the entry file's path inside the copy. */
export async function copyDeliverable(deliverable: Deliverable, target: string): Promise<string> {
  let files = 0;
  let bytes = 0;
  const tooLarge = () =>
    new SkillrigError(
      "usage",
      `deliverable folder ${deliverable.dir} is too large to copy for testing (more than ${MAX_DELIVERABLE_FILES} files or ${MAX_DELIVERABLE_BYTES / 1024 / 1024} MiB)`,
      {
        field: "--deliverable",
        file: deliverable.dir,
        hint: "put the deliverable in a folder of its own and pass that folder, or pass the .py file",
      },
    );
  async function measure(dir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await measure(full);
      else if (entry.isFile()) {
        files += 1;
        bytes += (await stat(full)).size;
        if (files > MAX_DELIVERABLE_FILES || bytes > MAX_DELIVERABLE_BYTES) throw tooLarge();
      }
    }
  }
  await measure(deliverable.dir);
  await cp(deliverable.dir, target, {
    recursive: true,
    filter: (source) => !SKIPPED.has(source.split(/[\\/]/).pop() ?? ""),
  });
  return join(target, relative(deliverable.dir, deliverable.entryFile));
}
