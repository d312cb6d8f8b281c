/**
 * Reading one file of a run's outputs/ for a deterministic assertion. The outputs are the agent's, so hostile: the
 * path must name a regular file inside outputs/ (no `..`, no absolute path, no link anywhere on the way, checked
 * with lstat component by component), the file is opened O_NOFOLLOW|O_NONBLOCK (a FIFO or device is never opened:
 * lstat says what it is first), checked again with fstat (same inode, one link) and read up to a cap. Whatever is
 * wrong is a reason the assertion fails, never an exception.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, realpath } from "node:fs/promises";
import { join, sep } from "node:path";

/** The most bytes read of one output file; a larger file fails its assertion unread (say so in the evidence). */
export const OUTPUT_READ_CAP_BYTES = 8 * 1024 * 1024;

export type OutputRead = { ok: true; text: string; bytes: number } | { ok: false; reason: string };

/** What lstat says a non-regular entry is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** `path` split into its components when it is a safe relative path, else why not. */
export function outputPathParts(path: string): string[] | string {
  if (path === "") return "the path is empty";
  if (path.includes("\0")) return "the path holds a NUL character";
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path)) return "the path is absolute; it must be relative to outputs/";
  const parts = path.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) return "the path has a '..' component; it must stay inside outputs/";
  if (parts.length === 0) return "the path names outputs/ itself, not a file";
  return parts;
}

export async function readOutputFile(outputsDir: string, path: string, cap = OUTPUT_READ_CAP_BYTES): Promise<OutputRead> {
  const parts = outputPathParts(path);
  if (typeof parts === "string") return { ok: false, reason: `${path}: ${parts}` };
  let root: string;
  try {
    root = await realpath(outputsDir);
  } catch {
    return { ok: false, reason: `the run has no outputs folder, so ${path} does not exist` };
  }
  let current = root;
  let seen: Stats | undefined;
  for (const [i, part] of parts.entries()) {
    current = join(current, part);
    const shown = parts.slice(0, i + 1).join("/");
    let stats: Stats;
    try {
      stats = await lstat(current);
    } catch {
      return { ok: false, reason: `${shown} does not exist in outputs/` };
    }
    const last = i === parts.length - 1;
    if (stats.isSymbolicLink()) {
      const target = await readlink(current).catch(() => "?");
      return { ok: false, reason: `${shown} is a symbolic link (to ${target}); links in outputs/ are never followed` };
    }
    if (!last && !stats.isDirectory()) return { ok: false, reason: `${shown} is ${kindOf(stats)}, not a folder` };
    if (last && !stats.isFile()) return { ok: false, reason: `${shown} is ${kindOf(stats)}, not a regular file` };
    seen = stats;
  }
  let handle: FileHandle;
  try {
    handle = await open(current, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return { ok: false, reason: `${path} could not be opened (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: `${path} is ${kindOf(stats)}, not a regular file` };
    if (stats.ino !== seen?.ino || stats.dev !== seen.dev) return { ok: false, reason: `${path} changed while it was opened; not read` };
    if (stats.nlink > 1) return { ok: false, reason: `${path} is a hard link (${stats.nlink} names); its content may be another file's` };
    // What was opened must still be inside outputs/ (nothing swapped a folder on the way for a link).
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined && !opened.startsWith(root + sep))
      return { ok: false, reason: `${path} resolved outside outputs/ (${opened}); not read` };
    if (stats.size > cap)
      return {
        ok: false,
        reason: `${path} is ${stats.size} bytes, over the ${cap} bytes (${cap / 1024 / 1024} MiB) an assertion reads; not read`,
      };
    const buffer = Buffer.alloc(Math.min(stats.size, cap) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > cap) return { ok: false, reason: `${path} grew past ${cap} bytes while it was read; not read` };
    return { ok: true, text: buffer.subarray(0, length).toString("utf8"), bytes: length };
  } finally {
    await handle.close();
  }
}
