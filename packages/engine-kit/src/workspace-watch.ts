/**
 * The agent's writable folders (the workspace, the engine folder with its HOME and TMPDIR) are on the host's disk;
 * RLIMIT_FSIZE caps one file, not their number. Like the deliverable sandbox's disk watchdog (usage-watchdog.ts),
 * their allocated size is sampled, sooner as it nears the cap: at the rate it grew since the last look, the next
 * look comes before half of what is left could be used, never sooner than 20 ms, and never later than 20 times what
 * the last scan took (at least 100 ms, at most a second): a small workspace is looked at ten times a second, a big
 * one (a node_modules) less often, so the scans cost the runner about 5% of a core at most. Past
 * `sandbox.agent.workspace_bytes` the budget is passed (`workspace_bytes`), which stops the process tree. A writer
 * gets one interval's worth of writes past the cap (RLIMIT_FSIZE still caps each file).
 */
import { DISK_ENTRY_LIMIT } from "@skillrig/core";
import type { OutputBudget } from "@skillrig/process/run-process";
import { folderUsage } from "@skillrig/process";

const MAX_WAIT_MS = 1000;
const MIN_WAIT_MS = 20;
/** The longest wait between looks at a folder whose scan is quick. */
const QUICK_WAIT_MS = 100;
/** Entries the folders may hold before a scan stops counting (a workspace with a node_modules is big). */
const ENTRY_SCAN_CAP = DISK_ENTRY_LIMIT * 100;

/** Allocated bytes of the folders together (a scan stops once past `capBytes`). */
export function foldersBytes(folders: string[], capBytes: number): number {
  let bytes = 0;
  for (const folder of folders) {
    bytes += folderUsage(folder, capBytes - bytes, ENTRY_SCAN_CAP).bytes;
    if (bytes > capBytes) break;
  }
  return bytes;
}

/** Watches the folders until the returned stop is called; passes the budget's `workspace_bytes` bound past `capBytes`. */
export function watchWorkspace(folders: string[], capBytes: number, budget: OutputBudget): () => void {
  let timer: NodeJS.Timeout | undefined;
  let last = { at: Date.now(), bytes: foldersBytes(folders, capBytes) };
  const look = () => {
    const now = Date.now();
    const bytes = foldersBytes(folders, capBytes);
    if (bytes > capBytes) {
      budget.pass({ bound: "workspace_bytes", limit: capBytes });
      return;
    }
    const longest = Math.min(MAX_WAIT_MS, Math.max(QUICK_WAIT_MS, 20 * (Date.now() - now)));
    const rate = (bytes - last.bytes) / Math.max(1, now - last.at);
    const wait = rate > 0 ? Math.min(longest, (capBytes - bytes) / rate / 2) : longest;
    last = { at: now, bytes };
    timer = setTimeout(look, Math.max(MIN_WAIT_MS, wait));
  };
  timer = setTimeout(look, MIN_WAIT_MS);
  return () => clearTimeout(timer);
}
