/**
 * The deliverable snapshot: what of the deliverable crosses into the sandbox. Copied once per task run into the
 * run's temp folder: every case imports the same snapshot and nothing a case does can touch the user's files.
 * Shared by every deliverable plugin (function, script, cli, and third-party ones), so they snapshot alike.
 *
 * - A deliverable given as a file (`Deliverable.entryOnly`) is snapshotted as that file alone, not its folder:
 *   whatever lies beside it (the task file, other tasks, notes) stays outside.
 * - A deliverable folder holding a task file of the run (the same file by realpath or inode, or a symlink to it)
 *   is refused, naming the file (`assertNoTaskFiles`, called by the oracle before any plugin starts). We refuse
 *   rather than quietly leave it out: a task file inside the code's folder is a mistake the user should see.
 * - Content is copied, never modes: folders become 0755 and files 0644 (0755 when executable), so the sandbox's
 *   unprivileged user can read the snapshot wherever it came from (a 0700 folder from mktemp -d, 0600 files).
 * - Nothing is followed out of the folder: a symlink is copied as a symlink only when what it points at lies
 *   inside the deliverable folder; one pointing anywhere else (/etc/shadow, the task file) is left out. A file with
 *   more than one hard link is refused: its content may be that of a file outside (hard links cannot be told apart
 *   from the original). FIFOs, sockets and devices are left out, never opened.
 */
import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, readdir, realpath, stat, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { byCodeUnit } from "./code-unit-order.js";
import { SkillrigError } from "./errors.js";
import type { Deliverable } from "./oracle-types.js";

/** Folders that are never part of a deliverable's code (nor of its identity: oracle's deliverable digest). */
export const SKIPPED_DELIVERABLE_FOLDERS: ReadonlySet<string> = new Set([
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

function isWithin(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Reads a regular file without following a link or blocking on a FIFO; refuses a file with more than one link. */
async function readOwnFile(path: string, shown: string): Promise<{ bytes: Buffer; executable: boolean } | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return undefined; // turned into a symlink meanwhile: not followed
    throw new SkillrigError("usage", `deliverable file ${shown} cannot be read (${code ?? (error as Error).message})`, {
      field: "--deliverable",
      file: shown,
    });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    if (info.nlink > 1) {
      throw new SkillrigError(
        "usage",
        `deliverable file ${shown} is a hard link (one of ${info.nlink} names for the same file); it is not copied for testing, because its content may belong to a file outside the deliverable`,
        {
          field: "--deliverable",
          file: shown,
          hint: `replace it with a plain copy: cp --remove-destination "$(realpath ${shown})" ${shown}`,
        },
      );
    }
    return { bytes: await handle.readFile(), executable: (info.mode & 0o111) !== 0 };
  } finally {
    await handle.close();
  }
}

function tooLarge(deliverable: Deliverable): SkillrigError {
  return new SkillrigError(
    "usage",
    `deliverable folder ${deliverable.dir} is too large to copy for testing (more than ${MAX_DELIVERABLE_FILES} files or ${MAX_DELIVERABLE_BYTES / 1024 / 1024} MiB)`,
    {
      field: "--deliverable",
      file: deliverable.dir,
      hint: "put the deliverable in a folder of its own and pass that folder, or pass the .py file",
    },
  );
}

/**
 * Refuses a deliverable whose snapshot would hold a task file of the run: the same file (by realpath, or by
 * device and inode, which also catches a hard link) or a symlink that resolves to it. `taskFiles` are paths.
 */
export async function assertNoTaskFiles(deliverable: Deliverable, taskFiles: string[]): Promise<void> {
  const tasks: Array<{ path: string; real: string; id: string }> = [];
  for (const path of taskFiles) {
    try {
      const info = await stat(path);
      tasks.push({ path, real: await realpath(path), id: `${info.dev}:${info.ino}` });
    } catch {
      // a task file that is gone cannot be copied either
    }
  }
  if (tasks.length === 0) return;
  const refuse = (found: string, task: { path: string }, how: string) =>
    new SkillrigError(
      "usage",
      `deliverable ${deliverable.entryOnly ? "file" : "folder"} ${deliverable.entryOnly ? deliverable.entryFile : deliverable.dir} would carry the task file into the sandbox: ${found} ${how} ${task.path}; hidden tests must never reach the code under test`,
      {
        field: "--deliverable",
        file: found,
        hint: "keep task files outside the deliverable folder, or pass the entry file itself (--deliverable <folder>/<file>.py), which is copied alone",
      },
    );
  const check = async (path: string): Promise<void> => {
    const info = await lstat(path);
    for (const task of tasks) {
      if (info.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        if (target === task.real) throw refuse(path, task, "is a symlink to");
      } else if (`${info.dev}:${info.ino}` === task.id) {
        throw refuse(path, task, (await realpath(path)) === task.real ? "is" : "is a hard link to");
      }
    }
  };
  if (deliverable.entryOnly) return check(deliverable.entryFile);
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (SKIPPED_DELIVERABLE_FOLDERS.has(entry.name)) continue;
      const full = join(dir, entry.name);
      await check(full);
      if (entry.isDirectory()) await walk(full);
    }
  };
  await walk(deliverable.dir);
}

/** Copies the deliverable to `target` (see the module comment); returns the entry file's path inside the copy. */
export async function copyDeliverable(deliverable: Deliverable, target: string): Promise<string> {
  await mkdir(target, { recursive: true });
  await chmod(target, 0o755);
  if (deliverable.entryOnly) {
    const info = await lstat(deliverable.entryFile);
    if (!info.isFile()) {
      throw new SkillrigError(
        "usage",
        `deliverable ${deliverable.entryFile} is ${info.isSymbolicLink() ? "a symlink" : "not a regular file"}; pass the file itself`,
        { field: "--deliverable", file: deliverable.entryFile },
      );
    }
    const file = await readOwnFile(deliverable.entryFile, deliverable.entryFile);
    if (!file) throw new SkillrigError("usage", `deliverable ${deliverable.entryFile} is not a regular file`, { field: "--deliverable" });
    const copy = join(target, basename(deliverable.entryFile));
    await writeFile(copy, file.bytes, { mode: file.executable ? 0o755 : 0o644 });
    await chmod(copy, file.executable ? 0o755 : 0o644);
    return copy;
  }

  const root = await realpath(deliverable.dir);
  let files = 0;
  let bytes = 0;
  const walk = async (source: string, into: string): Promise<void> => {
    for (const entry of (await readdir(source, { withFileTypes: true })).sort((a, b) => byCodeUnit(a.name, b.name))) {
      if (SKIPPED_DELIVERABLE_FOLDERS.has(entry.name)) continue;
      const from = join(source, entry.name);
      const to = join(into, entry.name);
      const info = await lstat(from);
      if (info.isDirectory()) {
        await mkdir(to, { mode: 0o755 });
        await chmod(to, 0o755);
        await walk(from, to);
      } else if (info.isSymbolicLink()) {
        // Kept only when it stays inside: resolved relative to where it lies, the real target must be in the folder.
        const resolved = await realpath(from).catch(() => undefined);
        if (resolved === undefined || !isWithin(resolved, root)) continue;
        // Rewritten from the real target, so `..` in the link text cannot climb out of the copy into the run's folder.
        await symlink(relative(dirname(join(root, relative(deliverable.dir, from))), resolved) || ".", to);
      } else if (info.isFile()) {
        files += 1;
        bytes += info.size;
        if (files > MAX_DELIVERABLE_FILES || bytes > MAX_DELIVERABLE_BYTES) throw tooLarge(deliverable);
        const file = await readOwnFile(from, from);
        if (!file) continue;
        await writeFile(to, file.bytes, { mode: file.executable ? 0o755 : 0o644 });
        await chmod(to, file.executable ? 0o755 : 0o644);
      }
      // FIFOs, sockets and devices are not code: left out, never opened.
    }
  };
  await walk(deliverable.dir, target);
  return join(target, relative(deliverable.dir, deliverable.entryFile));
}
