/**
 * The host probe, cached across commands in a per-user file ($SKILLRIG_PROBE_CACHE, else
 * $XDG_CACHE_HOME/skillrig/probe.json, else ~/.cache/skillrig/probe.json). Probing costs several process starts
 * (a trial sandbox, `python3` through whatever wrapper is on PATH: a pyenv shim alone takes ~100 ms to seconds);
 * every `skillrig` command would pay it.
 *
 * An entry is used only when the host still looks the same: the key is built from the tools' paths, sizes and
 * mtimes (bwrap, prlimit, setpriv, the python3 found on PATH), what decides which python3 a wrapper picks (pyenv's
 * version file and variables, a virtualenv), the kernel settings that decide whether namespaces work, the kernel,
 * the boot and the user. The interpreter the probe found is checked again on read (its path, size and mtime), so
 * upgrading Python in place invalidates the entry too. A file that is missing, unreadable or malformed is ignored
 * and rewritten: the cache can make a command faster, never wrong. SKILLRIG_PROBE_CACHE=off disables it.
 *
 * Who may write it: a probe names the programs the sandbox runs and the folders it binds in, so a forged entry
 * would undo the sandbox of every later run. It is kept only by root, and read only when the file and every folder
 * above it are owned by root and writable by no one else (core's `notPrivate`): as root, no sandboxed process of any
 * level runs as root. Another user's weak-level runs (rlimits, none) run the code as that very user, who could
 * rewrite the file; so for users other than root there is no cache file, and every command probes afresh.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir, release } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { HostProbe } from "./host-probe.js";
import { notPrivate } from "@skillrig/core";

/** Bump when HostProbe's shape or meaning changes: old entries are then ignored. */
const FORMAT = 2;
/** Entries kept (different PATHs, virtualenvs, pyenv versions on one host). */
const MAX_ENTRIES = 16;

/** Kernel settings that decide whether unprivileged namespaces (bubblewrap) work. */
const KERNEL_SETTINGS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
  "/proc/sys/kernel/unprivileged_bpf_disabled",
  "/proc/sys/kernel/random/boot_id",
];

export interface ProbedTools {
  bwrap?: string;
  prlimit?: string;
  setpriv?: string;
  /** The python3 found on PATH (possibly a wrapper such as a pyenv shim). */
  python3?: string;
}

export interface ProbeCacheOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** The cache file, or undefined when caching is turned off (always, for users other than root: see above). */
export function probeCacheFile(env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): string | undefined {
  if (uid !== 0) return undefined;
  const setting = env.SKILLRIG_PROBE_CACHE;
  if (setting === "off" || setting === "0") return undefined;
  if (setting) return resolve(setting);
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "skillrig", "probe.json");
}

function statOf(path: string | undefined): string {
  if (!path) return "-";
  try {
    const s = statSync(path);
    return `${path}:${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return `${path}:missing`;
  }
}

function contentOf(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "-";
  }
}

/** pyenv picks the version from PYENV_VERSION, the nearest .python-version up from cwd, then $PYENV_ROOT/version. */
function pythonSelection(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const facts = [env.PYENV_VERSION ?? "-", env.VIRTUAL_ENV ?? "-", env.CONDA_PREFIX ?? "-"];
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, ".python-version");
    const found = contentOf(file);
    if (found !== "-") {
      facts.push(`${file}=${found}`);
      break;
    }
    if (dirname(dir) === dir) break;
  }
  const root = env.PYENV_ROOT || join(homedir(), ".pyenv");
  facts.push(`pyenv-global=${contentOf(join(root, "version"))}`);
  return facts;
}

/** The key an entry is stored under: a hash of everything that could change what the probe finds. */
export function hostFingerprint(tools: ProbedTools, options: ProbeCacheOptions = {}): string {
  const env = options.env ?? process.env;
  const parts = [
    `format=${FORMAT}`,
    `uid=${process.getuid?.() ?? "-"}`,
    `kernel=${release()}`,
    `PATH=${env.PATH ?? ""}`,
    ...[tools.bwrap, tools.prlimit, tools.setpriv, tools.python3].map(statOf),
    ...pythonSelection(env, options.cwd ?? process.cwd()),
    ...KERNEL_SETTINGS.map((file) => `${file}=${contentOf(file)}`),
  ];
  return createHash("sha256").update(parts.join("\n")).digest("hex");
}

interface CacheEntry {
  probe: HostProbe;
  /** statOf(probe.python.executable) when it was probed. */
  python: string;
  at: string;
}

interface CacheFile {
  format: number;
  entries: Record<string, CacheEntry>;
}

function readCacheFile(file: string): CacheFile {
  // A file someone else could have written is not read (nor extended: the next write replaces it).
  if (notPrivate(file) !== undefined) return { format: FORMAT, entries: {} };
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as CacheFile;
    if (value && value.format === FORMAT && typeof value.entries === "object" && value.entries !== null) return value;
  } catch {
    // missing or malformed: start afresh
  }
  return { format: FORMAT, entries: {} };
}

function isProbe(value: unknown): value is HostProbe {
  const p = value as HostProbe;
  return typeof p === "object" && p !== null && typeof p.isRoot === "boolean" && typeof p.namespacesWork === "boolean";
}

/** The cached probe for this fingerprint, when there is one and its interpreter is unchanged. */
export function readCachedProbe(fingerprint: string, file = probeCacheFile()): HostProbe | undefined {
  if (!file) return undefined;
  const entry = readCacheFile(file).entries[fingerprint];
  if (!entry || !isProbe(entry.probe)) return undefined;
  if (statOf(entry.probe.python?.executable) !== entry.python) return undefined;
  return entry.probe;
}

/** Stores a probe (atomically: a concurrent command reads the old file or the new one, never half of one). */
export function writeCachedProbe(fingerprint: string, probe: HostProbe, file = probeCacheFile()): void {
  if (!file) return;
  try {
    const cache = readCacheFile(file);
    cache.entries[fingerprint] = { probe, python: statOf(probe.python?.executable), at: new Date().toISOString() };
    const keys = Object.keys(cache.entries).sort((a, b) => {
      const [at, bt] = [cache.entries[a]!.at, cache.entries[b]!.at];
      return at < bt ? 1 : at > bt ? -1 : 0; // newest first
    });
    for (const key of keys.slice(MAX_ENTRIES)) delete cache.entries[key];
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // A folder others may write into is no place for it: they could swap the file after us.
    if (notPrivate(dirname(file)) !== undefined) return;
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(cache, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // A read-only home or a full disk costs the next command a probe, nothing else.
  }
}
