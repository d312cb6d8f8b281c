/**
 * The one place that installs process-wide exit and signal handlers for child cleanup. Children that run detached
 * (their own process group: engine CLIs, sandboxed trees) are not reached by a Ctrl-C on skillrig, which signals
 * skillrig's own group, nor do they end with it: each live one registers a cleanup here, and every cleanup runs when
 * this process exits or is ended by a signal (SIGINT, SIGTERM, SIGHUP, ...).
 *
 * The handlers come from `signal-exit` (isaacs; what execa's own `cleanup` uses): it hooks `exit` and the fatal
 * signals, and after the cleanups re-raises a signal nobody else handles, so the signal keeps its default meaning
 * (the process ends by it). When another listener handles the signal (the CLI's own graceful Ctrl-C), the cleanups
 * run at exit instead. The hook is installed while at least one cleanup is registered and removed after the last.
 */
import { onExit } from "signal-exit";

const cleanups = new Set<() => void>();
let removeHook: (() => void) | undefined;

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    try {
      cleanup();
    } catch {
      // One failing cleanup must not keep the others from running.
    }
  }
}

/** Runs `cleanup` (synchronous: the process is ending) if this process exits while it is registered; returns the unregister function. */
export function cleanUpOnExit(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  removeHook ??= onExit(runCleanups);
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0 && removeHook) {
      removeHook();
      removeHook = undefined;
    }
  };
}

/** How many cleanups are registered (for tests: the hook is installed exactly while this is above 0). */
export function pendingExitCleanups(): number {
  return cleanups.size;
}
