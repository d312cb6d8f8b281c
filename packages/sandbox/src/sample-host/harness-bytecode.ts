/**
 * sample_harness.py as bytecode, compiled once per host, interpreter and harness version, so that the sample host
 * imports it without compiling its ~1,000 lines at every command (~15-20 ms of each `skillrig test`: the harness is
 * copied into a fresh folder for each runtime, and the sandbox's Python writes no bytecode, so it never finds any).
 *
 * Who compiles: the runner, on the host, with the interpreter the sandbox runs (`-I -S -B`, py_compile only: no code
 * of the harness runs), into a per-user cache the sandbox cannot reach: $SKILLRIG_BYTECODE_CACHE, else
 * $XDG_CACHE_HOME/skillrig/bytecode, else ~/.cache/skillrig/bytecode; SKILLRIG_BYTECODE_CACHE=off turns it off.
 * Bytecode written inside a sandbox is never reused: a runtime is untrusted once a sample has run beside it.
 *
 * The file is a checked-hash pyc (PEP 552): Python hashes the source it sits beside (the copy in the runtime's
 * folder) and compiles that source instead when the hashes differ. That checks the source, never the code in the
 * pyc: a pyc with the right header and any code in it runs that code. So the protection is who can write the cache.
 * A deliverable graded at a weak level as root (before it ran as a per-run uid) once rewrote it, and every later
 * grading at "namespaces" passed a deliverable that returns None
 * (packages/oracle/test/reward-hacking-persistent-state.test.ts). Now:
 * - the cache is kept by root only: as root no sandboxed code of any level runs as root, so a cache owned by root
 *   and writable by no one else is out of its reach. Other users' weak-level runs run code as that very user, and
 *   the shared host (the only reader) is used only as root anyway, so for them there is no cache;
 * - it is used only when the entry's file and every folder above it are owned by root and writable by neither
 *   group nor others (core's `notPrivate`, the same check as the sandbox's probe cache); a cache that fails it is ignored
 *   and never written to.
 * A manifest of pyc hashes beside the files would prove nothing: whoever could swap a pyc could swap it too.
 * A miss compiles in the background for the next command (this one does not wait for it); an entry's key is the
 * interpreter (path, size, mtime, inode) and the source's sha256.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { mkdir, readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { notPrivate } from "@skillrig/core";

/** The cache folder, or undefined when it is turned off (always, for users other than root: see above). */
export function bytecodeCacheDir(env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): string | undefined {
  if (uid !== 0) return undefined;
  const setting = env.SKILLRIG_BYTECODE_CACHE;
  if (setting === "off" || setting === "0") return undefined;
  if (setting) return resolve(setting);
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "skillrig", "bytecode");
}

export interface CachedBytecode {
  /** The pyc in the cache. */
  file: string;
  /** Its name in a `__pycache__` folder beside the source: `<module>.<interpreter's cache tag>.pyc`. */
  name: string;
}

function moduleName(sourceFile: string): string {
  return basename(sourceFile).replace(/\.py$/, "");
}

async function entryDir(cacheDir: string, python: string, sourceFile: string): Promise<string> {
  const [interpreter, source] = await Promise.all([stat(python), readFile(sourceFile)]);
  const key = createHash("sha256")
    .update(JSON.stringify([python, interpreter.size, interpreter.mtimeMs, interpreter.ino]))
    .update(source)
    .digest("hex");
  return join(cacheDir, key.slice(0, 32));
}

/** The cached bytecode of `sourceFile` for `python`, or undefined when there is none (or the cache is unreadable). */
export async function cachedBytecode(cacheDir: string, python: string, sourceFile: string): Promise<CachedBytecode | undefined> {
  try {
    const dir = await entryDir(cacheDir, python, sourceFile);
    const prefix = `${moduleName(sourceFile)}.`;
    const name = (await readdir(dir)).find((entry) => entry.startsWith(prefix) && entry.endsWith(".pyc"));
    if (name === undefined) return undefined;
    const file = join(dir, name);
    return notPrivate(file) === undefined && statSync(file).isFile() ? { file, name } : undefined;
  } catch {
    return undefined;
  }
}

// Written to a temporary name and renamed: a command that reads the cache meanwhile sees the whole file or none.
const COMPILE = `import os, py_compile, sys
source, out = sys.argv[1], sys.argv[2]
tag = sys.implementation.cache_tag
if tag is None:
    sys.exit("this interpreter does not read cached bytecode")
name = os.path.splitext(os.path.basename(source))[0]
temp = os.path.join(out, f".{name}.{os.getpid()}.tmp")
py_compile.compile(source, cfile=temp, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
os.replace(temp, os.path.join(out, f"{name}.{tag}.pyc"))
`;

/** Compiles `sourceFile` with `python` into the cache; rejects with py_compile's message when it cannot. */
export async function compileBytecode(cacheDir: string, python: string, sourceFile: string): Promise<void> {
  const dir = await entryDir(cacheDir, python, sourceFile);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const unsafe = notPrivate(dir);
  if (unsafe !== undefined) throw new Error(`the bytecode cache ${cacheDir} is not private, so it is not used: ${unsafe}`);
  await new Promise<void>((done, fail) => {
    const child = spawn(python, ["-I", "-S", "-B", "-c", COMPILE, sourceFile, dir], {
      stdio: ["ignore", "ignore", "pipe"],
      env: {},
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    child.on("error", fail);
    child.on("close", (code) => {
      if (code === 0) done();
      else fail(new Error(`compiling ${sourceFile} with ${python} failed (exit ${code}): ${stderr.trim()}`));
    });
  });
}
