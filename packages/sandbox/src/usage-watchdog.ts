/**
 * What a run's whole tree uses of the CPU and of the disk, sampled, so that a case's verdict depends on what its
 * own processes did and on nothing else on the machine.
 *
 * CPU: the sum over every process of the tree (found from the root by parent pids; at `namespaces` everything in the
 * run's pid namespace descends from bubblewrap's monitor) of its user and system time, threads included, plus the
 * time of the children it reaped (`cutime`/`cstime`), so a process that forks short-lived workers is charged for
 * them. The kernel's own `RLIMIT_CPU` bounds each process exactly; this bounds the tree (a case that spreads its
 * work over many processes, or unpins itself to use every core, meets the same limit).
 *
 * Disk: the allocated size (blocks, so a sparse file counts what it really holds) and the number of entries of the
 * run's working folder, plus files the tree holds open after deleting them (they use the disk until closed).
 * `RLIMIT_FSIZE` caps each file, not their number.
 *
 * Both are sampled every 100 ms by one scan of /proc that serves every watched run (like memory-watchdog.ts): a
 * tree can pass a limit by what it uses in one tick. cgroups would count both in the kernel, but they are often not
 * writable (containers) and not ours to reorganise.
 */
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CLOCK_TICKS_PER_SECOND, type ProcStat, childrenByParent, descendantsOf, listFds, readAllStats, statFd } from "@skillrig/process";

const TICK_MS = 100;

export type UsageExceeded = "cpu" | "disk" | "entries";

export interface TreeUsageWatch {
  /** The tree's root process (the spawned one), once known. */
  root(): number | undefined;
  /** CPU time of the whole tree allowed; Infinity for none. */
  cpuLimitMs: number;
  /** The run's working folder, and what it may hold; Infinity for no cap. */
  folder: string;
  diskBytes: number;
  diskEntries: number;
  /**
   * How often this run is sampled: a case every tick (100 ms); a long-lived process (a harness, the warm runtime,
   * whose cases are watched one by one by the harness) every second, a backstop that costs the runner little.
   */
  intervalMs?: number;
  onExceeded(what: UsageExceeded): void;
}

interface WatchState {
  nextCheck: number;
  /** Files deleted but held open are looked for once a second: reading every descriptor of the tree costs most. */
  nextDeletedCheck: number;
}
const DELETED_CHECK_MS = 1000;

/** Allocated bytes and entries under `folder`; stops counting once past the caps. */
export function folderUsage(folder: string, capBytes: number, capEntries: number): { bytes: number; entries: number } {
  let bytes = 0;
  let entries = 0;
  const pending = [folder];
  while (pending.length > 0 && bytes <= capBytes && entries <= capEntries) {
    const dir = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      // A folder the code closed to its owner (chmod 000) still counts: open it again (the runner owns it, or is root).
      if ((error as NodeJS.ErrnoException).code !== "EACCES") continue;
      try {
        chmodSync(dir, 0o700);
        names = readdirSync(dir);
      } catch {
        continue;
      }
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const stat = lstatSync(path);
        entries++;
        bytes += stat.blocks * 512;
        if (stat.isDirectory()) pending.push(path);
      } catch {
        // Removed meanwhile.
      }
    }
  }
  return { bytes, entries };
}

/** Bytes of files the processes hold open after they were deleted (no name left in any folder to count them by). */
function deletedOpenBytes(pids: number[]): number {
  let bytes = 0;
  for (const pid of pids) {
    for (const fd of listFds(pid)) {
      const stat = statFd(pid, fd);
      if (stat?.isFile() && stat.nlink === 0) bytes += stat.blocks * 512;
    }
  }
  return bytes;
}

/** CPU time of a process (own and reaped children's, threads included), in clock ticks. */
function cpuTicks(stat: ProcStat | undefined): number {
  if (!stat) return 0;
  const ticks = stat.utime + stat.stime + stat.cutime + stat.cstime;
  return Number.isFinite(ticks) ? ticks : 0;
}

const watches = new Map<TreeUsageWatch, WatchState>();
let ticker: NodeJS.Timeout | undefined;

function tick(): void {
  const now = performance.now();
  const due = [...watches].filter(([, state]) => now >= state.nextCheck);
  if (due.length === 0) return;
  for (const [watch, state] of due) state.nextCheck = now + (watch.intervalMs ?? TICK_MS);
  // /proc is read only when a due run needs its tree: for its CPU, or for the files it holds open.
  const needsTree = due.some(
    ([watch, state]) => Number.isFinite(watch.cpuLimitMs) || (Number.isFinite(watch.diskBytes) && now >= state.nextDeletedCheck),
  );
  const processes = needsTree ? readAllStats() : new Map<number, ProcStat>();
  const children = childrenByParent(processes);
  for (const [watch, state] of due) {
    const root = watch.root();
    if (root === undefined) continue;
    const tree = needsTree && processes.has(root) ? descendantsOf(root, children) : [];
    if (Number.isFinite(watch.cpuLimitMs)) {
      const ticks = tree.reduce((sum, pid) => sum + cpuTicks(processes.get(pid)), 0);
      if ((ticks * 1000) / CLOCK_TICKS_PER_SECOND > watch.cpuLimitMs) {
        watches.delete(watch);
        watch.onExceeded("cpu");
        continue;
      }
    }
    if (Number.isFinite(watch.diskBytes)) {
      const usage = folderUsage(watch.folder, watch.diskBytes, watch.diskEntries);
      let held = 0;
      if (now >= state.nextDeletedCheck && usage.bytes <= watch.diskBytes) {
        state.nextDeletedCheck = now + DELETED_CHECK_MS;
        held = deletedOpenBytes(tree);
      }
      const over = usage.entries > watch.diskEntries ? "entries" : usage.bytes + held > watch.diskBytes ? "disk" : undefined;
      if (over) {
        watches.delete(watch);
        watch.onExceeded(over);
      }
    }
  }
  if (watches.size === 0) stopTicker();
}

function stopTicker(): void {
  if (ticker) clearInterval(ticker);
  ticker = undefined;
}

/** Starts watching a run's tree; the returned function stops it (call it once the tree is gone). */
export function watchTreeUsage(watch: TreeUsageWatch): () => void {
  if (!Number.isFinite(watch.cpuLimitMs) && !Number.isFinite(watch.diskBytes)) return () => {};
  const start = performance.now();
  // The first look a tick (or an interval) after the start: most cases end before it.
  watches.set(watch, { nextCheck: start + (watch.intervalMs ?? TICK_MS), nextDeletedCheck: start + TICK_MS });
  if (!ticker) {
    ticker = setInterval(tick, TICK_MS);
    ticker.unref();
  }
  return () => {
    watches.delete(watch);
    if (watches.size === 0) stopTicker();
  };
}
