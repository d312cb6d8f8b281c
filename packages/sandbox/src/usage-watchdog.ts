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
 * CPU is sampled every 100 ms by one scan of /proc that serves every watched run (like memory-watchdog.ts): a tree
 * can pass its limit by what it uses in one tick. The disk is sampled at least as often, and sooner as a folder nears
 * its cap: the next look comes when, at the rate it grew since the last one, it could have used half of what is left
 * (never sooner than 5 ms). A writer that fills the disk at a gigabyte a second is caught a few megabytes past the
 * cap, not a tick's worth of writes past it. cgroups would count both in the kernel, but they are often not
 * writable (containers) and not ours to reorganise.
 */
import {
  CLOCK_TICKS_PER_SECOND,
  type ProcStat,
  childrenByParent,
  descendantsOf,
  folderUsage,
  listFds,
  readAllStats,
  statFd,
} from "@skillrig/process";

// The folder count is the process layer's (shared with engine-kit); kept importable from here.
export { folderUsage };

const TICK_MS = 100;
/** The soonest a folder nearing its cap is looked at again. */
const MIN_DISK_CHECK_MS = 5;

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
   * How often this run is sampled: a case every tick (100 ms); a long-lived process (a harness, the shared host,
   * whose cases are watched one by one by the harness) every second, a backstop that costs the runner little.
   */
  intervalMs?: number;
  onExceeded(what: UsageExceeded): void;
}

interface WatchState {
  /** When the tree's CPU is looked at next. */
  nextCheck: number;
  /** When the folder is looked at next (sooner than `nextCheck` while it grows toward its cap). */
  nextDiskCheck: number;
  /** The last look at the folder: when, and what it held. */
  lastDisk: { at: number; bytes: number; entries: number };
  /** Files deleted but held open are looked for once a second: reading every descriptor of the tree costs most. */
  nextDeletedCheck: number;
}
const DELETED_CHECK_MS = 1000;

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

/**
 * When to look at a folder again: after `interval`, or sooner when, at the rate it grew since the last look, it
 * could use half of what is left of its bytes or entries before then.
 */
function nextDiskLook(
  watch: TreeUsageWatch,
  last: WatchState["lastDisk"],
  now: number,
  usage: { bytes: number; entries: number },
  interval: number,
) {
  const elapsed = Math.max(1, now - last.at);
  let wait = interval;
  for (const [used, before, cap] of [
    [usage.bytes, last.bytes, watch.diskBytes],
    [usage.entries, last.entries, watch.diskEntries],
  ] as const) {
    const rate = (used - before) / elapsed;
    if (rate > 0 && Number.isFinite(cap)) wait = Math.min(wait, (cap - used) / rate / 2);
  }
  return now + Math.max(MIN_DISK_CHECK_MS, wait);
}

function tick(): void {
  ticker = undefined;
  const now = performance.now();
  const cpuDue = [...watches].filter(([watch, state]) => Number.isFinite(watch.cpuLimitMs) && now >= state.nextCheck);
  const diskDue = [...watches].filter(([watch, state]) => Number.isFinite(watch.diskBytes) && now >= state.nextDiskCheck);
  // /proc is read only when a due run needs its tree: for its CPU, or for the files it holds open.
  const needsTree = cpuDue.length > 0 || diskDue.some(([, state]) => now >= state.nextDeletedCheck);
  const processes = needsTree ? readAllStats() : new Map<number, ProcStat>();
  const children = childrenByParent(processes);
  const treeOf = (watch: TreeUsageWatch): number[] => {
    const root = watch.root();
    return root !== undefined && processes.has(root) ? descendantsOf(root, children) : [];
  };
  for (const [watch, state] of cpuDue) {
    state.nextCheck = now + (watch.intervalMs ?? TICK_MS);
    if (watch.root() === undefined) continue;
    const ticks = treeOf(watch).reduce((sum, pid) => sum + cpuTicks(processes.get(pid)), 0);
    if ((ticks * 1000) / CLOCK_TICKS_PER_SECOND > watch.cpuLimitMs) {
      watches.delete(watch);
      watch.onExceeded("cpu");
    }
  }
  for (const [watch, state] of diskDue) {
    if (!watches.has(watch) || watch.root() === undefined) continue;
    const usage = folderUsage(watch.folder, watch.diskBytes, watch.diskEntries);
    let held = 0;
    if (now >= state.nextDeletedCheck && usage.bytes <= watch.diskBytes) {
      state.nextDeletedCheck = now + DELETED_CHECK_MS;
      held = deletedOpenBytes(treeOf(watch));
    }
    const over = usage.entries > watch.diskEntries ? "entries" : usage.bytes + held > watch.diskBytes ? "disk" : undefined;
    if (over) {
      watches.delete(watch);
      watch.onExceeded(over);
      continue;
    }
    state.nextDiskCheck = nextDiskLook(watch, state.lastDisk, now, usage, watch.intervalMs ?? TICK_MS);
    state.lastDisk = { at: now, ...usage };
  }
  schedule();
}

/** One timer for every watch, set for the soonest look any of them is due. */
function schedule(): void {
  if (ticker) clearTimeout(ticker);
  ticker = undefined;
  if (watches.size === 0) return;
  let soonest = Number.POSITIVE_INFINITY;
  for (const [watch, state] of watches) {
    if (Number.isFinite(watch.cpuLimitMs)) soonest = Math.min(soonest, state.nextCheck);
    if (Number.isFinite(watch.diskBytes)) soonest = Math.min(soonest, state.nextDiskCheck);
  }
  ticker = setTimeout(tick, Math.max(0, soonest - performance.now()));
  ticker.unref();
}

/** Starts watching a run's tree; the returned function stops it (call it once the tree is gone). */
export function watchTreeUsage(watch: TreeUsageWatch): () => void {
  if (!Number.isFinite(watch.cpuLimitMs) && !Number.isFinite(watch.diskBytes)) return () => {};
  const start = performance.now();
  // The first look a tick (or an interval) after the start: most cases end before it.
  const first = start + (watch.intervalMs ?? TICK_MS);
  watches.set(watch, {
    nextCheck: first,
    nextDiskCheck: first,
    lastDisk: { at: start, bytes: 0, entries: 0 },
    nextDeletedCheck: start + TICK_MS,
  });
  schedule();
  return () => {
    watches.delete(watch);
    if (watches.size === 0) schedule();
  };
}
