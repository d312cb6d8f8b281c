/**
 * A machine-safety net for memory. RLIMIT_AS limits each process, so a tree can hold up to
 * maxProcesses x memoryBytes (64 x 1 GiB with the defaults: more than most machines have). When that product
 * could exceed half of this machine's RAM, a watchdog sums the proportional set size (PSS, shared pages counted
 * once) of every process in the run's pid namespace and kills the tree past the cap. cgroups would do this in
 * the kernel, but they are often not writable (containers) and not ours to reorganise.
 */
import { totalmem } from "node:os";
import { listPids, readNamespace, readProportionalBytes, readResidentBytes } from "@skillrig/process";

// One scan (a readlink per process, statm per process of a watched run) is about 1 ms on a machine with ~150
// processes; 100 ms keeps that near 1% of a core while runs are live.
const TICK_MS = 100;

export interface TreeMemoryWatch {
  /** The run's pid 1 (namespace init), once known. */
  namespaceInit(): number | undefined;
  capBytes: number;
  onExceeded(): void;
}

/** Half of this machine's RAM: the default ceiling for one run's whole tree. */
export function defaultTreeMemoryCeiling(): number {
  return Math.floor(totalmem() / 2);
}

/** The tree cap for these limits, or undefined when the rlimits alone keep the run under the ceiling. */
export function treeMemoryCap(memoryBytes: number, maxProcesses: number, ceiling: number): number | undefined {
  return memoryBytes * maxProcesses > ceiling ? ceiling : undefined;
}

const watches = new Set<TreeMemoryWatch>();
let ticker: NodeJS.Timeout | undefined;

/** One scan of /proc per tick serves every watched run. */
function tick(): void {
  const byNamespace = new Map<string, TreeMemoryWatch>();
  for (const watch of watches) {
    const init = watch.namespaceInit();
    const namespace = init === undefined ? undefined : readNamespace(init, "pid");
    if (namespace) byNamespace.set(namespace, watch);
  }
  if (byNamespace.size === 0) return;
  const members = new Map<TreeMemoryWatch, number[]>();
  for (const pid of listPids()) {
    const watch = byNamespace.get(readNamespace(pid, "pid") ?? "");
    if (!watch) continue;
    const pids = members.get(watch);
    if (pids) pids.push(pid);
    else members.set(watch, [pid]);
  }
  for (const [watch, pids] of members) {
    // RSS first (cheap, never below PSS); PSS, shared pages counted once, only for a tree whose RSS is over the cap.
    // RSS (/proc/<pid>/statm) is a counter the kernel keeps; PSS walks the page tables.
    const resident = pids.reduce((sum, pid) => sum + readResidentBytes(pid), 0);
    if (resident <= watch.capBytes) continue;
    const proportional = pids.reduce((sum, pid) => sum + readProportionalBytes(pid), 0);
    if (proportional > watch.capBytes) {
      watches.delete(watch);
      watch.onExceeded();
    }
  }
  if (watches.size === 0) stopTicker();
}

function stopTicker(): void {
  if (ticker) clearInterval(ticker);
  ticker = undefined;
}

/** Starts watching; the returned function stops it. */
export function watchTreeMemory(watch: TreeMemoryWatch): () => void {
  watches.add(watch);
  if (!ticker) {
    ticker = setInterval(tick, TICK_MS);
    ticker.unref();
  }
  return () => {
    watches.delete(watch);
    if (watches.size === 0) stopTicker();
  };
}
