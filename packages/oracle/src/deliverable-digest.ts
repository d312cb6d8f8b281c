/**
 * A sample's identity for comparisons: the SHA-256 of its deliverable's content, so `runs diff` matches a sample of
 * one run with the same program in another whatever their positions in the samples files. What is hashed follows
 * the snapshot (core's deliverable-snapshot.ts): the entry file alone for a deliverable given as a file, else the
 * folder's regular files by relative path (the same folders left out), links as their target text, never followed;
 * FIFOs, sockets and devices are never opened. Past the snapshot's own bounds there is no digest (null): that
 * deliverable is refused by the snapshot anyway.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, readdir, readlink } from "node:fs/promises";
import { join, relative } from "node:path";
import { MAX_DELIVERABLE_BYTES, MAX_DELIVERABLE_FILES, SKIPPED_DELIVERABLE_FOLDERS, type Deliverable } from "@skillrig/core";

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `sha256:<hex>` of the deliverable's content, or null when it cannot be read or is over the snapshot's bounds. */
export async function deliverableDigest(deliverable: Deliverable): Promise<string | null> {
  const hash = createHash("sha256");
  let files = 0;
  let bytes = 0;
  const add = async (path: string, name: string): Promise<boolean> => {
    const info = await lstat(path);
    if (info.isSymbolicLink()) {
      hash.update(`link\0${name}\0${await readlink(path)}\0`);
    } else if (info.isFile()) {
      files += 1;
      bytes += info.size;
      if (files > MAX_DELIVERABLE_FILES || bytes > MAX_DELIVERABLE_BYTES) return false;
      // Opened without following a link or blocking on a FIFO swapped in since the lstat; read only if still a file.
      const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        if (!(await handle.stat()).isFile()) return true;
        const content = await handle.readFile();
        hash.update(`file\0${name}\0${content.length}\0`);
        hash.update(content);
      } finally {
        await handle.close();
      }
    } else if (info.isDirectory()) {
      for (const entry of (await readdir(path)).sort(byCodeUnit)) {
        if (SKIPPED_DELIVERABLE_FOLDERS.has(entry)) continue;
        if (!(await add(join(path, entry), relative(deliverable.dir, join(path, entry))))) return false;
      }
    }
    return true;
  };
  try {
    const ok = deliverable.entryOnly ? await add(deliverable.entryFile, "") : await add(deliverable.dir, "");
    return ok ? `sha256:${hash.digest("hex")}` : null;
  } catch {
    return null;
  }
}
