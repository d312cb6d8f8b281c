/**
 * Persistent state a later run trusts (the sandbox's probe cache, the function plugin's bytecode cache, and any
 * cache a plugin keeps across commands) is trusted only where no sandboxed code could have written it: the file and every folder above it
 * owned by this user or root and writable by neither group nor others (a sticky folder such as /tmp may be
 * world-writable: no one else can rename or remove what we own in it). As root, sandboxed code never runs as root
 * (@skillrig/sandbox's launch-plan.ts), so this is enough; as another user, weak levels run code as that very user, so callers do not
 * keep such state at all then (see docs/sandbox.md, "Persistent state").
 */
import { realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** Why `path` (existing or not yet) could have been written by someone else; undefined when it could not. */
export function notPrivate(path: string, uid = process.getuid?.() ?? -1): string | undefined {
  let existing = path;
  for (;;) {
    try {
      existing = realpathSync(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return `${path} cannot be resolved`;
      existing = parent;
    }
  }
  const chain: string[] = [];
  for (let at = existing; ; at = dirname(at)) {
    chain.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const [index, at] of chain.entries()) {
    const stat = statSync(at, { throwIfNoEntry: false });
    if (!stat) return `${at} vanished while it was checked`;
    const last = index === chain.length - 1;
    if (stat.uid !== uid && (last || stat.uid !== 0)) return `${at} is owned by uid ${stat.uid}, not by this user (uid ${uid})`;
    if ((stat.mode & 0o022) !== 0 && (last || !(stat.isDirectory() && (stat.mode & 0o1000) !== 0))) {
      const who = [stat.mode & 0o020 ? "its group" : "", stat.mode & 0o002 ? "others" : ""].filter(Boolean).join(" and ");
      return `${at} is writable by ${who} (mode ${(stat.mode & 0o7777).toString(8).padStart(4, "0")})`;
    }
  }
  return undefined;
}
