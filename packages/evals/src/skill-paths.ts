/** Paths an eval author wrote, resolved inside the skill folder. */
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";

/** Whether `path` (relative, as written) stays inside `base`, with no `..` and no link on the way out. */
export function insideFolder(base: string, path: string): { ok: true; abs: string } | { ok: false; why: string } {
  if (isAbsolute(path)) return { ok: false, why: "must be a path relative to the skill folder, not an absolute path" };
  if (path.split(/[\\/]/).includes("..")) return { ok: false, why: 'must not contain ".."' };
  const abs = resolve(base, path);
  if (!existsSync(abs)) return { ok: false, why: `does not exist (looked for ${abs})` };
  let real: string;
  let realBase: string;
  try {
    real = realpathSync(abs);
    realBase = realpathSync(base);
  } catch (error) {
    return { ok: false, why: `cannot be resolved: ${(error as Error).message}` };
  }
  if (real !== realBase && !real.startsWith(realBase + sep)) return { ok: false, why: `is a link out of the folder (to ${real})` };
  return { ok: true, abs };
}
