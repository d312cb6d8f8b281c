/**
 * A case's working folder: written from the case's `files` before the run; after it, what the deliverable created,
 * changed or removed, from what read-case-output.ts read (never by following a link).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type CaseOutput, describeEntry } from "./read-case-output.js";

/** Largest file text kept in a report; longer content is cut with a marker (comparison uses the whole file). */
export const REPORTED_FILE_BYTES = 256 * 1024;

export async function writeCaseFiles(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, ...path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

export interface FolderChanges {
  /** Created or changed files, relative path -> text (or, for what is not a regular file, what it is). */
  changed: Record<string, unknown>;
  deleted: string[];
}

/** The case's input files against what is in the folder now. */
export function folderChanges(inputs: Record<string, string>, output: CaseOutput): FolderChanges {
  const changed: Record<string, unknown> = {};
  for (const [path, entry] of output.entries) {
    if (entry.type === "folder") continue;
    if (entry.type === "file") {
      const input = inputs[path];
      if (input !== undefined && Buffer.from(input).equals(entry.bytes)) continue;
      changed[path] = fileText(entry.bytes, REPORTED_FILE_BYTES);
    } else {
      changed[path] = { not_read: entry.type, ...(entry.type === "symlink" ? { target: entry.target } : {}), what: describeEntry(entry) };
    }
  }
  const deleted = Object.keys(inputs)
    .filter((path) => {
      const entry = output.entries.get(path);
      return entry === undefined;
    })
    .sort();
  return { changed, deleted };
}

/**
 * File bytes as text. Bytes that are not UTF-8 are reported as {encoding: "base64", data} so nothing is silently
 * mangled; past `maxBytes` the text is cut with a marker.
 */
export function fileText(bytes: Buffer, maxBytes = Number.POSITIVE_INFINITY): unknown {
  const cut = bytes.length > maxBytes;
  const kept = cut ? bytes.subarray(0, maxBytes) : bytes;
  try {
    const text = new TextDecoder("utf-8", { fatal: !cut }).decode(kept);
    return cut ? `${text}\n... [${bytes.length - maxBytes} more bytes not shown]` : text;
  } catch {
    return { encoding: "base64", data: kept.toString("base64") };
  }
}
