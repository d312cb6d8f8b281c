/**
 * File descriptors the runner would pass on to the code without meaning to. Node opens its own files close-on-exec,
 * but a descriptor the runner itself inherited without that flag (from a shell, a CI agent, a supervisor) passes
 * through every exec into the sandbox, where the code could read or write it, whatever it points at. Such
 * descriptors are closed right before the code starts (by `bash`, the one standard tool that closes descriptors
 * above 9; only when there are any, so the usual run pays nothing).
 */
import { readFileSync, readdirSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/** Descriptors above stderr that this process holds open without close-on-exec; children inherit them. */
export function inheritableDescriptors(): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc/self/fdinfo");
  } catch {
    return found;
  }
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags && (Number.parseInt(flags[1] as string, 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // closed meanwhile (readdir's own descriptor, for one)
    }
  }
  return found.sort((a, b) => a - b);
}

/** A prefix that closes `fds` and execs into the command, or nothing when there are none to close. */
export function closeDescriptorsPrefix(fds: number[], bash = "/bin/bash"): string[] {
  if (fds.length === 0) return [];
  return [bash, "-c", `exec ${fds.map((fd) => `${fd}>&-`).join(" ")}; exec "$@"`, "skillrig-close-fds"];
}
