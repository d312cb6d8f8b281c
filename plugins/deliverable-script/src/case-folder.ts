/**
 * A case's working folder: written from the case's `files`, snapshotted before and after the run so that
 * the files the deliverable created or changed can be reported and compared.
 */
import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

/** Largest file text kept in a report; longer content is cut with a marker (comparison reads the whole file). */
export const REPORTED_FILE_BYTES = 256 * 1024;

/** Relative path (with /) -> content hash. */
export type FolderSnapshot = Map<string, string>;

export async function writeCaseFiles(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, ...path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

export async function snapshotFolder(dir: string): Promise<FolderSnapshot> {
  const snapshot: FolderSnapshot = new Map();
  async function walk(current: string): Promise<void> {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return; // unreadable folders (made so by the deliverable) are skipped, not fatal
    }
    for (const entry of entries) {
      const full = join(current, entry.name);
      const rel = relative(dir, full).split("\\").join("/");
      if (entry.isDirectory()) await walk(full);
      else if (entry.isSymbolicLink()) snapshot.set(rel, `symlink:${(await lstat(full)).mtimeMs}`);
      else if (entry.isFile()) {
        try {
          snapshot.set(
            rel,
            createHash("sha1")
              .update(await readFile(full))
              .digest("hex"),
          );
        } catch {
          snapshot.set(rel, "unreadable");
        }
      }
    }
  }
  await walk(dir);
  return snapshot;
}

export interface FolderChanges {
  /** Created or changed files, relative path -> text. */
  changed: Record<string, unknown>;
  deleted: string[];
}

export async function folderChanges(dir: string, before: FolderSnapshot, after: FolderSnapshot): Promise<FolderChanges> {
  const changed: Record<string, unknown> = {};
  for (const [path, hash] of [...after.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (before.get(path) === hash) continue;
    changed[path] = await readCaseFile(dir, path, REPORTED_FILE_BYTES);
  }
  const deleted = [...before.keys()].filter((p) => !after.has(p)).sort();
  return { changed, deleted };
}

/**
 * A file of the case folder as text; undefined when it does not exist. Bytes that are not UTF-8 are reported
 * as {encoding: "base64", data} so nothing is silently mangled.
 */
export async function readCaseFile(dir: string, path: string, maxBytes = Number.POSITIVE_INFINITY): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, ...path.split("/")));
  } catch {
    return undefined;
  }
  const cut = bytes.length > maxBytes;
  const kept = cut ? bytes.subarray(0, maxBytes) : bytes;
  try {
    const text = new TextDecoder("utf-8", { fatal: !cut }).decode(kept);
    return cut ? `${text}\n... [${bytes.length - maxBytes} more bytes not shown]` : text;
  } catch {
    return { encoding: "base64", data: kept.toString("base64") };
  }
}
