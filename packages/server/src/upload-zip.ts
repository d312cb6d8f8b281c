/**
 * Extracts an uploaded zip into a folder, or refuses it with nothing written.
 *
 * Two passes over the zip (it is in memory, so a second open is cheap):
 *  1. the central directory only: every entry name, type, and declared size is checked (no `..`, no absolute
 *     paths, no symlinks, no encrypted entries, not too many entries, no path too deep or too long, declared bytes
 *     within the cap: an early refusal only, the declared sizes are never trusted);
 *  2. extraction into a staging folder beside the target, counting the bytes actually inflated as they are written
 *     (a zip bomb can lie about its sizes; yauzl also checks each entry against its declared size) against the
 *     upload's cap and `count` (the tenant's bytes per day): the extraction stops at the chunk that crosses either.
 *     Only when every entry is written is the staging folder renamed onto the target; on any failure it is removed.
 */
import { createWriteStream } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, rename, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { isSkillrigError, SkillrigError } from "@skillrig/core";

export interface ZipLimits {
  /** Most entries (files and folders) the zip may hold (`server.upload_max_files`). */
  maxFiles: number;
  /** Most bytes all entries together may extract to (`server.upload_max_extracted_bytes`). */
  maxBytes: number;
  /** Most folders an entry's path may go down (`a/b/c` is 3 deep; `server.upload_max_path_depth`). */
  maxPathDepth: number;
  /** Longest entry path in UTF-8 bytes (`server.upload_max_path_bytes`). */
  maxPathBytes: number;
}

/** A path segment longer than this cannot be a file name on Linux (NAME_MAX), whatever the config says. */
const MAX_SEGMENT_BYTES = 255;

export interface ExtractOptions extends ZipLimits {
  /**
   * Called with every file path after the listing pass, before anything is written; throws to refuse the zip. It
   * may return where each entry goes inside the target (a path with "/" separators; "" for a folder entry that is
   * the target itself); by default an entry keeps its path.
   */
  accept?: (paths: string[]) => ((entry: string) => string) | undefined;
  /**
   * Called once every file is extracted, with the staging folder that holds them, before it becomes the target;
   * throws to refuse the zip (nothing is left behind). For checks that need the files' bytes.
   */
  verify?: (staging: string, files: ExtractedFile[]) => Promise<void>;
  /**
   * Called with every chunk's size as it is inflated, before it is written; throws to stop the extraction there
   * (the tenant's bytes per day). Nothing of the upload is left when it throws.
   */
  count?: (bytes: number) => Promise<void>;
}

export interface ExtractedFile {
  /** Path inside the target folder, with "/" separators. */
  path: string;
  /** The entry's name in the zip, when it differs from `path`. */
  entry?: string;
  bytes: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** Whether the body starts like a zip (a local file header, or the end record of an empty zip). */
export function looksLikeZip(body: Buffer): boolean {
  return body.length >= 4 && body[0] === 0x50 && body[1] === 0x4b && ((body[2] === 3 && body[3] === 4) || (body[2] === 5 && body[3] === 6));
}

function unsafe(message: string, entry?: string): SkillrigError {
  return new SkillrigError("upload_unsafe", message, {
    field: entry,
    details: entry === undefined ? {} : { entry },
    hint: "zip only regular files with relative paths inside one folder; nothing of this upload was written",
  });
}

/** A limit of the upload's own size crossed: 413, naming the config key and the numbers. */
function tooLarge(message: string, limit: string, max: number, entry?: string): SkillrigError {
  return new SkillrigError("upload_too_large", message, {
    field: limit,
    details: { limit, max, ...(entry === undefined ? {} : { entry }) },
    hint: `nothing of this upload was written; send fewer or smaller files, or raise ${limit} in the server's config`,
  });
}

function notZip(message: string): SkillrigError {
  return new SkillrigError("upload_not_zip", message, { hint: "send a zip archive as the request body (Content-Type: application/zip)" });
}

function openZip(body: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(body, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true }, (error, zip) => {
      if (error || !zip) reject(notZip(`the upload is not a readable zip archive: ${error?.message ?? "unknown error"}`));
      else resolve(zip);
    });
  });
}

/** Walks every entry, calling `visit` and waiting for it before reading the next; rejects on the first error. */
function eachEntry(zip: yauzl.ZipFile, visit: (entry: yauzl.Entry) => Promise<void>, wrapError: (error: Error) => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      zip.close();
      reject(error);
    };
    zip.on("error", (error: Error) => fail(wrapError(error)));
    zip.on("end", () => {
      if (!failed) resolve();
    });
    zip.on("entry", (entry: yauzl.Entry) => {
      visit(entry).then(
        () => {
          if (!failed) zip.readEntry();
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    });
    zip.readEntry();
  });
}

function checkName(name: string, limits: ZipLimits): void {
  // yauzl already refuses absolute paths and `..` (strictFileNames also backslashes); these say why in our words.
  if (name.includes("\u0000")) throw unsafe(`zip entry "${name}" has a NUL byte in its name`, name);
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) throw unsafe(`zip entry "${name}" is an absolute path`, name);
  if (name.includes("\\")) throw unsafe(`zip entry "${name}" uses "\\" in its path`, name);
  const segments = name.split("/").filter((segment) => segment !== "");
  if (segments.some((segment) => segment === "..")) throw unsafe(`zip entry "${name}" points outside the upload folder ("..")`, name);
  checkPathSize(name, segments, limits);
}

function checkPathSize(name: string, segments: string[], limits: ZipLimits): void {
  const shown = name.length > 120 ? `${name.slice(0, 120)}...` : name;
  const bytes = Buffer.byteLength(name);
  if (bytes > limits.maxPathBytes) {
    throw pathRefusal(
      `zip entry "${shown}" has a path of ${bytes} bytes; the server takes at most ${limits.maxPathBytes} (server.upload_max_path_bytes)`,
      "server.upload_max_path_bytes",
      limits.maxPathBytes,
      name,
    );
  }
  if (segments.length > limits.maxPathDepth) {
    throw pathRefusal(
      `zip entry "${shown}" is ${segments.length} levels deep; the server takes at most ${limits.maxPathDepth} (server.upload_max_path_depth)`,
      "server.upload_max_path_depth",
      limits.maxPathDepth,
      name,
    );
  }
  const long = segments.find((segment) => Buffer.byteLength(segment) > MAX_SEGMENT_BYTES);
  if (long !== undefined) throw unsafe(`zip entry "${shown}" has a name longer than ${MAX_SEGMENT_BYTES} bytes`, name);
}

function pathRefusal(message: string, limit: string, max: number, entry: string): SkillrigError {
  return new SkillrigError("upload_unsafe", message, {
    field: limit,
    details: { limit, max, entry },
    hint: "zip only regular files with short relative paths; nothing of this upload was written",
  });
}

function yauzlNameError(error: Error): Error {
  if (isSkillrigError(error)) return error;
  // yauzl's own name checks ("invalid relative path", "absolute path") and structural errors.
  if (/path|file ?name/i.test(error.message)) return unsafe(`zip refused: ${error.message}`);
  return notZip(`the upload is not a readable zip archive: ${error.message}`);
}

/**
 * Checks and extracts `body` into `target` (which must not exist yet, or be empty). Throws `upload_not_zip` or
 * `upload_unsafe` with nothing written.
 */
export async function extractZip(body: Buffer, target: string, limits: ExtractOptions): Promise<ExtractedFile[]> {
  if (!looksLikeZip(body)) throw notZip("the upload is not a zip archive (it does not start with a zip signature)");

  // Pass 1: the central directory.
  const files: Array<{ name: string; declared: number }> = [];
  const seen = new Set<string>();
  let declaredTotal = 0;
  let entries = 0;
  await eachEntry(
    await openZip(body),
    async (entry) => {
      const name = entry.fileName;
      entries += 1;
      if (entries > limits.maxFiles) {
        throw tooLarge(
          `the zip holds more than ${limits.maxFiles} entries (files and folders); the server takes at most ${limits.maxFiles} (server.upload_max_files)`,
          "server.upload_max_files",
          limits.maxFiles,
        );
      }
      checkName(name, limits);
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      if (mode === S_IFLNK) throw unsafe(`zip entry "${name}" is a symbolic link`, name);
      if (entry.isEncrypted()) throw unsafe(`zip entry "${name}" is encrypted`, name);
      if (name.endsWith("/")) return;
      const key = name.normalize("NFC");
      if (seen.has(key)) throw unsafe(`zip entry "${name}" appears twice`, name);
      seen.add(key);
      files.push({ name, declared: entry.uncompressedSize });
      declaredTotal += entry.uncompressedSize;
      if (declaredTotal > limits.maxBytes) {
        throw tooLarge(
          `the zip says it extracts to more than ${limits.maxBytes} bytes (at entry "${name}"); the server takes at most ${limits.maxBytes} per upload (server.upload_max_extracted_bytes)`,
          "server.upload_max_extracted_bytes",
          limits.maxBytes,
          name,
        );
      }
    },
    yauzlNameError,
  );

  const placeOf = limits.accept?.(files.map((f) => f.name)) ?? ((entry: string) => entry);

  // Pass 2: extraction into a staging folder, counting real bytes.
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const staging = await mkdtemp(join(parent, `.${basename(target)}-staging-`));
  // mkdtemp makes it 0700; once renamed it is an ordinary folder that sandboxed users must be able to read.
  await chmod(staging, 0o755);
  const extracted: ExtractedFile[] = [];
  let actualTotal = 0;
  try {
    const zip = await openZip(body);
    await eachEntry(
      zip,
      async (entry) => {
        const name = entry.fileName;
        const path = placeOf(name);
        if (name.endsWith("/")) {
          if (path !== "") await mkdir(join(staging, path), { recursive: true });
          return;
        }
        const dest = join(staging, path);
        await mkdir(dirname(dest), { recursive: true });
        const source = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
          zip.openReadStream(entry, (error, stream) => (error || !stream ? reject(error) : resolve(stream))),
        );
        let bytes = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            bytes += chunk.length;
            actualTotal += chunk.length;
            if (actualTotal > limits.maxBytes) {
              callback(
                tooLarge(
                  `the zip extracts to more than ${limits.maxBytes} bytes (at entry "${name}", whatever its sizes say); the server takes at most ${limits.maxBytes} per upload (server.upload_max_extracted_bytes)`,
                  "server.upload_max_extracted_bytes",
                  limits.maxBytes,
                  name,
                ),
              );
              return;
            }
            if (!limits.count) return callback(null, chunk);
            limits.count(chunk.length).then(
              () => callback(null, chunk),
              (error: unknown) => callback(error as Error),
            );
          },
        });
        await pipeline(source, counter, createWriteStream(dest, { flags: "wx" }));
        extracted.push({ path, ...(path === name ? {} : { entry: name }), bytes });
      },
      yauzlNameError,
    );
    await limits.verify?.(staging, extracted);
    await removeEmptyTarget(target);
    await rename(staging, target);
    return extracted;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (isSkillrigError(error)) throw error;
    // yauzl's size checks ("too many bytes in the stream", "invalid compressed data") land here: the zip lied.
    throw unsafe(`zip refused while extracting: ${(error as Error).message}`);
  }
}

async function removeEmptyTarget(target: string): Promise<void> {
  try {
    const entries = await readdir(target);
    if (entries.length > 0) throw new SkillrigError("job_state_conflict", `the upload folder ${basename(target)}/ already holds files`);
    await rmdir(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
