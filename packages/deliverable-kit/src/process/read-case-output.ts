/**
 * Reading what a case left in its folder: untrusted data crossing out of the sandbox. Called only once the case's
 * process tree is gone, so nothing changes under us while we read.
 *
 * - Nothing is followed: every entry is lstat'ed, a symlink is reported as a symlink (with its target text, which
 *   is only a string), and no folder under a symlink is entered. A symlink to the runner's config, to /dev/zero or
 *   to another case's folder is never opened.
 * - Only regular files with one link are read: a hard link shares its content with a file elsewhere (perhaps one
 *   only the runner may read), so it is reported, not read. FIFOs, sockets and devices are reported as what they
 *   are, never opened (a FIFO would block the reader forever).
 * - Opening is O_NOFOLLOW|O_NONBLOCK and the opened file is fstat'ed again: it must be the same regular file.
 * - Every read is capped: entries in the folder, bytes per file, bytes in all. Past a cap the walk stops and the
 *   case gets `output_limit` naming the cap.
 */
import { constants, type Stats } from "node:fs";
import { lstat, open, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";

export interface OutputCaps {
  /** Files, folders and other entries in the case folder, all counted. */
  entries: number;
  /** Bytes read from one file. */
  fileBytes: number;
  /** Bytes read from all files together. */
  totalBytes: number;
}

export const DEFAULT_OUTPUT_ENTRIES = 1000;
export const DEFAULT_OUTPUT_TOTAL_BYTES = 64 * 1024 * 1024;

export type OutputEntry =
  | { type: "file"; bytes: Buffer }
  | { type: "folder" }
  | { type: "symlink"; target: string }
  | { type: "hard_link"; links: number; size: number }
  | { type: "fifo" | "socket" | "char_device" | "block_device" | "unknown" }
  | { type: "unreadable"; reason: string };

export interface CaseOutput {
  /** Relative path (with /) -> what is there. */
  entries: Map<string, OutputEntry>;
  /** Set when a cap was passed: the walk stopped there. */
  overflow?: { cap: keyof OutputCaps; message: string };
}

type SpecialType = "fifo" | "socket" | "char_device" | "block_device" | "unknown";

function specialType(stat: Stats): SpecialType {
  if (stat.isFIFO()) return "fifo";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "char_device";
  if (stat.isBlockDevice()) return "block_device";
  return "unknown";
}

/** Reads one regular file without following a link or blocking; `undefined` bytes when it is not what lstat said. */
async function readRegularFile(path: string, expected: Stats, cap: number): Promise<OutputEntry> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return { type: "unreadable", reason: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.ino !== expected.ino || stat.dev !== expected.dev) return { type: specialType(stat) };
    if (stat.nlink !== 1) return { type: "hard_link", links: stat.nlink, size: stat.size };
    // One byte past the cap tells a file at the cap from one beyond it.
    const buffer = Buffer.alloc(Math.min(stat.size, cap) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { type: "file", bytes: buffer.subarray(0, filled) };
  } finally {
    await handle.close();
  }
}

export async function readCaseOutput(dir: string, caps: OutputCaps): Promise<CaseOutput> {
  const entries = new Map<string, OutputEntry>();
  let totalBytes = 0;
  let overflow: CaseOutput["overflow"];

  async function walk(folder: string, prefix: string): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(folder)).sort();
    } catch (error) {
      if (prefix) entries.set(prefix.slice(0, -1), { type: "unreadable", reason: (error as NodeJS.ErrnoException).code ?? String(error) });
      return;
    }
    for (const name of names) {
      if (overflow) return;
      if (entries.size >= caps.entries) {
        overflow = { cap: "entries", message: `the case folder holds more than ${caps.entries} files and folders` };
        return;
      }
      const full = join(folder, name);
      const rel = `${prefix}${name}`;
      let stat: Stats;
      try {
        stat = await lstat(full);
      } catch (error) {
        entries.set(rel, { type: "unreadable", reason: (error as NodeJS.ErrnoException).code ?? String(error) });
        continue;
      }
      if (stat.isSymbolicLink()) {
        entries.set(rel, { type: "symlink", target: await readlink(full).catch(() => "?") });
      } else if (stat.isDirectory()) {
        entries.set(rel, { type: "folder" });
        await walk(full, `${rel}/`);
      } else if (!stat.isFile()) {
        entries.set(rel, { type: specialType(stat) });
      } else if (stat.nlink !== 1) {
        entries.set(rel, { type: "hard_link", links: stat.nlink, size: stat.size });
      } else if (stat.size > caps.fileBytes) {
        overflow = { cap: "fileBytes", message: `file ${rel} is ${stat.size} bytes, more than the ${caps.fileBytes} read from one file` };
      } else if (totalBytes + stat.size > caps.totalBytes) {
        overflow = { cap: "totalBytes", message: `the files in the case folder hold more than ${caps.totalBytes} bytes in all` };
      } else {
        const entry = await readRegularFile(full, stat, caps.fileBytes);
        if (entry.type === "file") {
          if (entry.bytes.length > caps.fileBytes) {
            overflow = { cap: "fileBytes", message: `file ${rel} holds more than the ${caps.fileBytes} bytes read from one file` };
            return;
          }
          totalBytes += entry.bytes.length;
        }
        entries.set(rel, entry);
      }
    }
  }

  await walk(dir, "");
  return overflow ? { entries, overflow } : { entries };
}

/**
 * What stands at `path` (a relative path with /), looking at each folder on the way: a symlink or special file on
 * the path is what is reported, since nothing beyond it was (or may be) looked at.
 */
export function entryAt(output: CaseOutput, path: string): { at: string; entry: OutputEntry } | undefined {
  const parts = path.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const at = parts.slice(0, i).join("/");
    const entry = output.entries.get(at);
    if (!entry) return undefined;
    if (i === parts.length || entry.type !== "folder") return { at, entry };
  }
  return undefined;
}

/** How a non-file entry is described in a report and a verdict message. */
export function describeEntry(entry: Exclude<OutputEntry, { type: "file" }>): string {
  switch (entry.type) {
    case "symlink":
      return `a symlink (to ${JSON.stringify(entry.target)}), which is never followed`;
    case "hard_link":
      return `a hard link (${entry.links} names for one file), which is never read: its content may belong to a file outside the case`;
    case "folder":
      return "a folder";
    case "unreadable":
      return `unreadable (${entry.reason})`;
    case "char_device":
      return "a character device, which is never opened";
    case "block_device":
      return "a block device, which is never opened";
    case "fifo":
      return "a FIFO (named pipe), which is never opened";
    case "socket":
      return "a socket, which is never opened";
    default:
      return "a special file, which is never opened";
  }
}
