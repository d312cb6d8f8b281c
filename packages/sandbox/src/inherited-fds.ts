/**
 * File descriptors the runner would pass on to the code without meaning to. Node opens its own files close-on-exec,
 * but a descriptor the runner itself inherited without that flag (from a shell, a CI agent, a supervisor) passes
 * through every exec into the sandbox, where the code could read or write it, whatever it points at. Such
 * descriptors are closed right before the code starts (by `bash`, the one standard tool that closes descriptors
 * above 9; only when there are any, so the usual run pays nothing).
 */
import { listOwnFds, ownFdFlags } from "@skillrig/process";

const O_CLOEXEC = 0o2000000;

/** Descriptors above stderr that this process holds open without close-on-exec; children inherit them. */
export function inheritableDescriptors(): number[] {
  const found: number[] = [];
  for (const fd of listOwnFds()) {
    if (fd <= 2) continue;
    // Closed meanwhile (readdir's own descriptor, for one): no flags, not inherited.
    const flags = ownFdFlags(fd);
    if (flags !== undefined && (flags & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/** A prefix that closes `fds` and execs into the command, or nothing when there are none to close. */
export function closeDescriptorsPrefix(fds: number[], bash = "/bin/bash"): string[] {
  if (fds.length === 0) return [];
  return [bash, "-c", `exec ${fds.map((fd) => `${fd}>&-`).join(" ")}; exec "$@"`, "skillrig-close-fds"];
}
