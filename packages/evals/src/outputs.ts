/**
 * A run's outputs/: a copy of what the agent left in its workspace, for grading and for people to read. The agent
 * controlled the workspace, so the copy trusts none of it: regular files and folders only, a link is never
 * followed (not even to look), special files (fifos, sockets, devices) are never opened, and the copy stops at a
 * byte cap. What is left out is listed with why (answer.json's `outputs_skipped`). Left out without a listing:
 * the skill's installed copies (`.agents/skills/`, `.claude/skills/`, ...) and the engine's context file when it
 * is still exactly what skillrig wrote.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmdirSync,
  writeSync,
  type Stats,
} from "node:fs";
import { join } from "node:path";
import { SKILL_INSTALL_DIRS, SKILLRIG_WORKSPACE_FOLDER } from "@skillrig/skills/protocol";

/** 50 MiB: a run's outputs are read by grading and by people; an agent that writes more is not copied in full. */
export const DEFAULT_OUTPUTS_CAP_BYTES = 50 * 1024 * 1024;

/**
 * Left out of outputs/: the folders at the workspace's top where engines find skills (the installed copies, never
 * the agent's work), and `.skillrig/`, skillrig's answer channel (the answer is in answer.json). Both lists are
 * the skills package's (workspace-folders.ts).
 */
const LEFT_OUT: readonly string[] = [...SKILL_INSTALL_DIRS, SKILLRIG_WORKSPACE_FOLDER];

export interface CopyOutputsOptions {
  /** Top-level files skillrig wrote into the workspace (the engine's context file), with the text it wrote: left
   * out when unchanged, copied as the agent's when it changed them. */
  writtenBySkillrig?: Array<{ path: string; text: string }>;
  capBytes?: number;
  /** The name each entry gets in `dest` (result-names.ts: the agent's `grading.json` is stored under another name). */
  rename?: (name: string) => string;
}

export interface CopyOutputsResult {
  bytes: number;
  files: number;
  /** The files copied, relative to the destination, in a stable (sorted) order. */
  paths: string[];
  skipped: Array<{ path: string; reason: string }>;
}

const CHUNK = 64 * 1024;

/**
 * Copies `workspace` into `dest` (created) as described above. Never throws for what the agent left; a
 * workspace that is missing gives an empty outputs/ and one skipped entry saying so.
 */
export function copyOutputs(workspace: string, dest: string, options: CopyOutputsOptions = {}): CopyOutputsResult {
  const cap = options.capBytes ?? DEFAULT_OUTPUTS_CAP_BYTES;
  const result: CopyOutputsResult = { bytes: 0, files: 0, paths: [], skipped: [] };
  mkdirSync(dest, { recursive: true });
  const written = new Map((options.writtenBySkillrig ?? []).map((w) => [w.path, w.text]));
  const rename = options.rename ?? ((name: string) => name);

  /** Copies one folder; says whether it left out one of LEFT_OUT (so a folder that held only that is not kept). */
  const walk = (from: string, to: string, rel: string): boolean => {
    let leftOut = false;
    let entries: string[];
    try {
      entries = readdirSync(from).sort();
    } catch (error) {
      result.skipped.push({
        path: rel || ".",
        reason: `cannot be listed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      });
      return false;
    }
    for (const name of entries) {
      const relPath = rel === "" ? name : `${rel}/${name}`;
      if (LEFT_OUT.includes(relPath)) {
        leftOut = true;
        continue;
      }
      const source = join(from, name);
      let st: Stats;
      try {
        st = lstatSync(source);
      } catch (error) {
        result.skipped.push({ path: relPath, reason: `cannot be read: ${(error as NodeJS.ErrnoException).code ?? "error"}` });
        continue;
      }
      if (st.isSymbolicLink()) {
        result.skipped.push({ path: relPath, reason: "a symbolic link (links are never followed)" });
      } else if (st.isDirectory()) {
        const target = join(to, rename(name));
        mkdirSync(target);
        if (walk(source, target, relPath) && readdirSync(target).length === 0) rmdirSync(target);
      } else if (!st.isFile()) {
        result.skipped.push({ path: relPath, reason: `a special file (${kindOf(st)}), not a regular file` });
      } else if (written.has(relPath) && unchanged(source, written.get(relPath)!)) {
        // skillrig's own context file, as skillrig wrote it
      } else {
        copyFile(source, join(to, rename(name)), relPath);
      }
    }
    return leftOut;
  };

  const copyFile = (source: string, target: string, relPath: string): void => {
    let fd: number;
    try {
      // O_NOFOLLOW: a file swapped for a link after the lstat is refused, not followed; O_NONBLOCK: a file swapped
      // for a fifo does not hang the open (fstat below refuses it).
      fd = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      result.skipped.push({ path: relPath, reason: `cannot be opened: ${(error as NodeJS.ErrnoException).code ?? "error"}` });
      return;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) {
        result.skipped.push({ path: relPath, reason: "changed into something other than a regular file while being copied" });
        return;
      }
      if (result.bytes + st.size > cap) {
        result.skipped.push({ path: relPath, reason: `over the outputs size cap (${st.size} bytes; ${cap} bytes in all per run)` });
        return;
      }
      const out = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try {
        const buffer = Buffer.allocUnsafe(CHUNK);
        let copied = 0;
        for (;;) {
          const n = readSync(fd, buffer, 0, CHUNK, null);
          if (n === 0) break;
          // A file that grows after its fstat is cut at the cap, and says so.
          if (result.bytes + copied + n > cap) {
            result.skipped.push({ path: relPath, reason: `cut at the outputs size cap (${cap} bytes in all per run)` });
            break;
          }
          writeSync(out, buffer, 0, n);
          copied += n;
        }
        result.bytes += copied;
        result.files += 1;
        result.paths.push(relPath);
      } finally {
        closeSync(out);
      }
    } finally {
      closeSync(fd);
    }
  };

  try {
    if (!lstatSync(workspace).isDirectory()) throw new Error("not a folder");
  } catch {
    result.skipped.push({ path: ".", reason: "the job left no workspace folder" });
    return result;
  }
  walk(workspace, dest, "");
  return result;
}

function unchanged(file: string, text: string): boolean {
  try {
    const st = lstatSync(file);
    if (st.size !== Buffer.byteLength(text)) return false;
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(st.size);
      readSync(fd, buffer, 0, st.size, 0);
      return buffer.toString("utf8") === text;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return "fifo";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice()) return "character device";
  if (st.isBlockDevice()) return "block device";
  return "unknown type";
}
