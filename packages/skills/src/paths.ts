import { isAbsolute, relative, resolve, sep } from "node:path";

/** A path as a user would type it: relative to the working directory when inside it, else absolute. */
export function displayPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** Whether `child` is `parent` or lies inside it (both absolute, already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** A relative path that stays inside its base: no absolute path, no `..` segment. */
export function isSafeRelativePath(path: string): boolean {
  if (path === "" || isAbsolute(path) || path.includes("\0")) return false;
  return !path.split(/[\\/]+/).some((segment) => segment === "..");
}

export function resolveInside(base: string, path: string): string | undefined {
  if (!isSafeRelativePath(path)) return undefined;
  const full = resolve(base, path);
  return isInside(base, full) ? full : undefined;
}
