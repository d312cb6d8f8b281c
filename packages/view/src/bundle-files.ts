/**
 * Reading a file into a bundle (bundle.ts): only a regular file whose real path (links resolved) is inside the
 * folder it belongs to, within the bundle's caps; a text file with the machine's paths redacted (bundle-redact.ts).
 * Anything else is left out, and the reason is what the bundle's `left_out` says.
 */
import { lstat, readFile, realpath } from "node:fs/promises";
import { extname, resolve } from "node:path";
import type { BundleFile } from "./bundle-format.js";
import { isInside } from "./eval-folder.js";

/** A file larger than this is left out of the bundle (the page says so); the whole bundle is capped at BUNDLE_MAX. */
export const BUNDLE_FILE_MAX = 8 * 1024 * 1024;
export const BUNDLE_MAX = 64 * 1024 * 1024;

const IMAGES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** What the reads of one bundle share: the bytes left under BUNDLE_MAX, and the redactor of its text. */
export interface BundleBudget {
  left: number;
  redact: (text: string) => string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as stored: text (valid UTF-8) with the machine's paths redacted, anything else as it is. */
function storedBytes(bytes: Buffer, image: boolean, redact: (text: string) => string): Buffer {
  if (image) return bytes;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return bytes; // not text: nothing in it is read as a path
  }
  return Buffer.from(redact(text), "utf8");
}

/** A file of `folder` (path relative to it) when its real path is a regular file inside the folder, within the caps; else why not. */
export async function readBundleFile(folder: string, path: string, budget: BundleBudget): Promise<BundleFile | string> {
  let real: string;
  try {
    real = await realpath(resolve(folder, path));
  } catch {
    return "missing";
  }
  if (!isInside(await realpath(folder), real)) return "not inside its run's folder";
  const info = await lstat(real);
  if (!info.isFile()) return "not a regular file";
  if (info.size > BUNDLE_FILE_MAX) return `${info.size} bytes, over the ${BUNDLE_FILE_MAX} a bundle holds per file`;
  if (info.size > budget.left) return `over the ${BUNDLE_MAX} bytes a bundle holds in all`;
  const type = IMAGES[extname(real).toLowerCase()];
  const bytes = storedBytes(await readFile(real), type !== undefined, budget.redact);
  budget.left -= bytes.length;
  return { type: type ?? "text/plain;charset=utf-8", base64: bytes.toString("base64") };
}
