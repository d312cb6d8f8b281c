/**
 * Stopping processes: a signal that never throws, a tree and its process group asked to stop (SIGTERM) and then
 * killed, a set of processes frozen before it is killed (so none can fork meanwhile), and waiting for the end.
 */
import { isAlive, processGroupMembers, processTree } from "./process-tree.js";

/** Sends `signal`; false when the process is gone (ESRCH) or not ours (EPERM). A negative pid is a process group. */
export function signalQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Signals the process group `pgid` and every pid in `known` (descendants that may have left the group). */
export function signalGroupAndKnown(pgid: number, known: Iterable<number>, signal: NodeJS.Signals): void {
  signalQuietly(-pgid, signal);
  for (const pid of known) signalQuietly(pid, signal);
}

/**
 * Asks the group led by `pgid` and every descendant of it to stop (SIGTERM), then kills them (SIGKILL) after
 * `graceMs`. Descendants are looked up each time and remembered in `known`: one that started its own session is still
 * found by the final sweep. Returns a function that cancels the pending SIGKILL.
 */
export function terminateTree(pgid: number, known: Set<number>, graceMs: number): () => void {
  const signalTree = (signal: NodeJS.Signals) => {
    for (const pid of processTree(pgid)) known.add(pid);
    signalGroupAndKnown(pgid, known, signal);
  };
  signalTree("SIGTERM");
  const timer = setTimeout(() => signalTree("SIGKILL"), graceMs);
  return () => clearTimeout(timer);
}

/**
 * Kills whatever is left of a tree after its leader ended: the group's members, the descendants still found from
 * `pgid`, and the `known` pids still alive. Returns the pids it killed (this process is never one).
 */
export function sweepTree(pgid: number, known: Iterable<number>): number[] {
  const leftovers = new Set([...processGroupMembers(pgid), ...[...known].filter(isAlive)]);
  for (const pid of processTree(pgid)) if (pid !== pgid) leftovers.add(pid);
  leftovers.delete(process.pid);
  const swept: number[] = [];
  for (const pid of leftovers) {
    if (isAlive(pid)) {
      swept.push(pid);
      signalQuietly(pid, "SIGKILL");
    }
  }
  signalQuietly(-pgid, "SIGKILL");
  return swept;
}

/**
 * Freezes every process `find` names (SIGSTOP, so none can fork while we kill), then kills them, until a scan finds
 * none. Bounded (20 rounds) so a pathological case cannot hang the runner. Returns how many kills were delivered.
 */
export function stopThenKill(find: () => number[]): number {
  let killed = 0;
  for (let round = 0; round < 20; round++) {
    const pids = find().filter(isAlive);
    if (pids.length === 0) break;
    for (const pid of pids) signalQuietly(pid, "SIGSTOP");
    for (const pid of pids) if (signalQuietly(pid, "SIGKILL")) killed++;
  }
  return killed;
}

/** Waits until `pid` is gone (or a zombie), polling; used after killing a process we cannot wait for (not our child). */
export async function waitUntilGone(pid: number, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
}
