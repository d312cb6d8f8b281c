/**
 * Case `files` keys become paths inside the case folder. Only plain relative paths are accepted, so a test case
 * can never write outside its folder or depend on the host's path conventions.
 */

/** Why `key` is not a safe relative path, or undefined when it is. */
export function unsafePathReason(key: string): string | undefined {
  if (key === "") return "is empty";
  if (key.includes("\u0000")) return "contains a NUL character";
  if (key.includes("\\")) return "contains a backslash (use / between folders)";
  if (key.startsWith("/")) return "is absolute";
  if (/^[A-Za-z]:/.test(key)) return "starts with a drive letter";
  // Control characters make names that tools and reports cannot show faithfully.
  if ([...key].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return "contains a control character";
  const segments = key.split("/");
  if (segments.includes("..")) return 'contains ".."';
  if (segments.includes(".")) return 'contains "." as a path segment';
  if (segments.includes("")) return "has an empty path segment (// or a trailing /)";
  return undefined;
}

/** Pairs like {"a": ..., "a/b": ...}: "a" cannot be both a file and a folder. */
export function fileFolderClash(keys: string[]): [file: string, nested: string] | undefined {
  const set = new Set(keys);
  for (const key of keys) {
    const segments = key.split("/");
    for (let i = 1; i < segments.length; i++) {
      const prefix = segments.slice(0, i).join("/");
      if (set.has(prefix)) return [prefix, key];
    }
  }
  return undefined;
}
