/**
 * Killing a sandboxed process tree. With a pid namespace, killing its pid 1 kills everything inside
 * (the kernel does it); without one we kill the process group and then sweep for processes that
 * detached (setsid, double fork) by a marker variable in their environment.
 */
import { readFileSync, readdirSync } from "node:fs";

/** The name of the variable that marks every process of one run (levels without a pid namespace). */
export const RUN_MARKER_VARIABLE = "SKILLRIG_SANDBOX_RUN";

export function signalQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state field follows the parenthesised command name, which may itself contain spaces or parens.
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Pids of /proc (other than this process) for which `matches` is true; a process gone meanwhile is left out. */
function pidsWhere(matches: (pid: string) => boolean): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (matches(entry)) found.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/**
 * Stops every process `find` names first (so none can fork while we kill), then kills them, until a scan finds
 * none. Bounded so a pathological case cannot hang the runner.
 */
function stopThenKill(find: () => number[]): number {
  let killed = 0;
  for (let round = 0; round < 20; round++) {
    const pids = find().filter(isAlive);
    if (pids.length === 0) break;
    for (const pid of pids) signalQuietly(pid, "SIGSTOP");
    for (const pid of pids) if (signalQuietly(pid, "SIGKILL")) killed++;
  }
  return killed;
}

/** Pids whose environment carries `RUN_MARKER_VARIABLE=marker` (readable for our own uid, or all when root). */
export function findMarkedProcesses(marker: string): number[] {
  const needle = Buffer.from(`\0${RUN_MARKER_VARIABLE}=${marker}\0`);
  const first = Buffer.from(`${RUN_MARKER_VARIABLE}=${marker}\0`);
  return pidsWhere((pid) => {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return environ.includes(needle) || environ.subarray(0, first.length).equals(first);
  });
}

/** Kills every process of a run found by its marker (levels without a pid namespace). */
export function sweepMarkedProcesses(marker: string): number {
  return stopThenKill(() => findMarkedProcesses(marker));
}

/** Waits until `pid` is gone (or a zombie), polling; used after killing a pid namespace's init from outside. */
export async function waitUntilGone(pid: number, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
}

/** Pids running with real uid `uid` (read from /proc/<pid>/status). */
export function findProcessesOfUid(uid: number): number[] {
  return pidsWhere((pid) => {
    const line = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return line !== null && Number(line[1]) === uid;
  });
}

/**
 * Kills everything still running as a per-run uid before the uid goes to another run. Without a pid namespace this
 * is what catches a process that shed the marker variable (re-executed itself with a clean environment) and
 * detached: it cannot shed its uid.
 */
export function sweepProcessesOfUid(uid: number): number {
  return stopThenKill(() => findProcessesOfUid(uid));
}
