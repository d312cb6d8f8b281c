/**
 * Making the case folder usable by the per-run uid the code runs as when skillrig is root.
 */
import { chmodSync, existsSync, lchownSync, lstatSync, readdirSync } from "node:fs";
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
