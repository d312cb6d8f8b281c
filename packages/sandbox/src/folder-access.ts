/**
 * Making the case folder usable by the per-run uid the code runs as when skillrig is root.
 */
import { chmodSync, existsSync, lchownSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { SkillrigError } from "@skillrig/core";

/** Hands the case folder (and everything in it) to `uid` (and group `gid`, by default the same number). */
export function giveCaseFolderTo(folder: string, uid: number, gid: number = uid): void {
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    // lchown, never chown: a symlink left by earlier code (to /etc/passwd, say) must not hand its target over.
    if (stat.uid !== uid || stat.gid !== gid) lchownSync(path, uid, gid);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(folder);
}

function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/**
 * Without a mount namespace (level rlimits) the code reaches its folders through the host's tree, so every
 * parent must be searchable by others and the read-only folders readable. Temp folders made with mkdtemp are
 * 0700: under the temp folder we open them (o+x to enter; o+rx for the read-only folders themselves).
 * Anywhere else we say what to change rather than change it.
 */
export function makeReachable(caseFolder: string, readOnlyPaths: string[]): void {
  const temp = resolve(tmpdir());
  const needs: Array<{ folder: string; bits: number; path: string }> = [];
  for (const path of [caseFolder, ...readOnlyPaths].map((p) => resolve(p))) {
    for (let folder = dirname(path); folder !== "/"; folder = dirname(folder)) needs.push({ folder, bits: 0o001, path });
  }
  // The read-only folders themselves are read (listed, for Python's imports) as well as entered.
  for (const path of readOnlyPaths.map((p) => resolve(p))) {
    if (existsSync(path) && lstatSync(path).isDirectory()) needs.push({ folder: path, bits: 0o005, path });
  }
  for (const { folder, bits, path } of needs) {
    if (!existsSync(folder)) continue; // a read-only path that does not exist is simply not there for the code
    const mode = lstatSync(folder).mode;
    if ((mode & bits) === bits) continue;
    if (isWithin(folder, temp) && folder !== temp) {
      chmodSync(folder, (mode & 0o7777) | bits);
      continue;
    }
    throw new SkillrigError(
      "sandbox_unavailable",
      `sandbox: at level "rlimits" the code runs as an unprivileged user, which cannot reach ${path}: folder ${folder} is not open to others`,
      {
        file: path,
        hint: `put case and deliverable folders under ${temp}, or open ${folder} to others (chmod o+${bits === 0o005 ? "rx" : "x"})`,
      },
    );
  }
}

/** What keeps others (a per-run uid: not the owner, in no group) from a path, when something does. */
export interface ClosedToOthers {
  /** The folder or file whose mode stops them. */
  blocker: string;
  mode: number;
  owner: number;
  /** The permission others lack there: "x" to enter a folder or run a file, "rx" to list a folder. */
  lacks: "x" | "rx";
}

/**
 * Whether an unprivileged uid can run `path` (`need: "run"`: every folder on the way searchable, the file
 * executable by others) or read the folder `path` (`need: "read"`: searchable and listable), through symlinks.
 * Decided from mode bits alone: an ACL that opens a folder to others is not seen (the run is then refused by name,
 * never run as root). Undefined when nothing stops it, or when the path does not exist (not this check's problem).
 */
export function closedToOthers(path: string, need: "run" | "read"): ClosedToOthers | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  for (const target of new Set([resolve(path), real])) {
    const chain: string[] = [];
    for (let folder = dirname(target); folder !== "/"; folder = dirname(folder)) chain.unshift(folder);
    for (const folder of chain) {
      const stat = statSync(folder, { throwIfNoEntry: false });
      if (stat && (stat.mode & 0o001) === 0) return { blocker: folder, mode: stat.mode & 0o7777, owner: stat.uid, lacks: "x" };
    }
  }
  const stat = statSync(real);
  const bits = need === "read" || stat.isDirectory() ? 0o005 : 0o001;
  if ((stat.mode & bits) !== bits) return { blocker: real, mode: stat.mode & 0o7777, owner: stat.uid, lacks: bits === 0o005 ? "rx" : "x" };
  return undefined;
}
