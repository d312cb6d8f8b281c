/**
 * What `extensions` on a file input means in skillrig (the reference project accepts it but does not enforce it):
 *
 * 1. Name: when the file's original name is known (the host path of `--file field=path` / `request.files`), its
 *    extension must be one of the list (case-insensitive). The name in uploads/ is always the bare field name,
 *    so the original name is the only place an extension can come from.
 * 2. Content: the file's magic bytes are sniffed (`file-type`); a recognised binary format (PDF, PNG, ZIP, ...)
 *    whose extension is not in the list is refused, whatever the file was called.
 * 3. Text: when every allowed extension is a text format (.txt, .md, .csv, .json ...), the content must be
 *    UTF-8 text without NUL bytes.
 * Uploads whose original name is unknown (an extracted zip, a file placed in uploads/ by hand) get checks 2 and 3.
 */
import { open } from "node:fs/promises";
import { extname } from "node:path";
import { fileTypeFromBuffer } from "file-type";

export const TEXT_EXTENSIONS = new Set([
  ".txt",
  ".md",
  ".markdown",
  ".csv",
  ".tsv",
  ".json",
  ".jsonl",
  ".ndjson",
  ".yaml",
  ".yml",
  ".toml",
  ".xml",
  ".html",
  ".htm",
  ".ini",
  ".log",
  ".py",
  ".js",
  ".ts",
  ".sql",
  ".tex",
  ".bib",
  ".rst",
  ".srt",
  ".vtt",
  ".svg",
]);

const SNIFF_BYTES = 1 << 20;

async function head(path: string): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function isUtf8Text(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    // stream: true so a multi-byte character cut at the end of the sniffed chunk is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Returns why the file does not match `allowed` (lower-case extensions with a dot), or undefined when it does. */
export async function checkFileExtensions(path: string, allowed: string[], originalName?: string): Promise<string | undefined> {
  const list = allowed.join(", ");
  if (originalName !== undefined) {
    const ext = extname(originalName).toLowerCase();
    if (!allowed.includes(ext)) {
      return `the uploaded file "${originalName}" ${ext === "" ? "has no extension" : `has extension "${ext}"`}; allowed: ${list}`;
    }
  }
  const bytes = await head(path);
  const sniffed = await fileTypeFromBuffer(bytes);
  if (sniffed && !allowed.includes(`.${sniffed.ext}`) && !(sniffed.ext === "xml" && allowed.some((a) => a === ".svg" || a === ".html"))) {
    return `the file's content is ${sniffed.mime} (.${sniffed.ext}); allowed: ${list}`;
  }
  if (allowed.every((a) => TEXT_EXTENSIONS.has(a)) && !isUtf8Text(bytes)) {
    return `the file's content is not UTF-8 text, but only text types are allowed: ${list}`;
  }
  return undefined;
}
