/**
 * Finding processes: a tree by parent pids, a process group, a uid, an environment entry, a folder in use.
 * Everything is read from /proc through proc-fs.ts, one scan per question; a process that ends meanwhile is left out.
 */
import { type ProcStat, environHas, listPids, readAllStats, readArgv, readCwd, readRealUid, readStat } from "./proc-fs.js";

/** True while a process exists and is not a zombie (or dead). Without /proc, asks the kernel with signal 0. */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  if (stat) return stat.state !== "Z" && stat.state !== "X";
  try {
    process.kill(pid, 0);
    return !existsProcFs();
  } catch {
    return false;
  }
}

let procFs: boolean | undefined;
function existsProcFs(): boolean {
  procFs ??= readStat("self") !== undefined;
  return procFs;
}

/** Pids (other than this process) for which `matches` is true; a process gone or unreadable meanwhile is left out. */
export function pidsWhere(matches: (pid: number) => boolean): number[] {
  const found: number[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    try {
      if (matches(pid)) found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Child pids by parent pid, from one set of stats (one scan of /proc when none is given). */
export function childrenByParent(stats: Map<number, ProcStat> = readAllStats()): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) {
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(pid);
    else children.set(stat.ppid, [pid]);
  }
  return children;
}

/** `root` and every process descending from it (by parent pids), breadth first. */
export function descendantsOf(root: number, children: Map<number, number[]>): number[] {
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const child of children.get(tree[i] as number) ?? []) tree.push(child);
  return tree;
}

/** `pid` and all its descendants, from one scan of /proc; `[pid]` where there is no /proc. */
export function processTree(pid: number): number[] {
  return descendantsOf(pid, childrenByParent());
}

/** Live (not zombie) members of process group `pgid`. */
export function processGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const [pid, stat] of readAllStats()) if (stat.pgrp === pgid && stat.state !== "Z") members.push(pid);
  return members;
}

/** Pids running with real uid `uid`. */
export function processesOfUid(uid: number): number[] {
  return pidsWhere((pid) => readRealUid(pid) === uid);
}

/** Pids whose environment holds `name=value` (readable for our own uid, or every process when root). */
export function processesWithEnvironment(name: string, value: string): number[] {
  return pidsWhere((pid) => environHas(pid, name, value));
}

export interface LiveProcess {
  pid: number;
  /** The command line, truncated to 200 characters. */
  cmd: string;
}

/**
 * Live processes whose working directory or command line mentions a path: how a test (ours or a user's engine
 * plugin's) proves that a run left no process behind in its run folder.
 */
export function processesUsing(path: string): LiveProcess[] {
  const found: LiveProcess[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    const stat = readStat(pid);
    if (!stat || stat.state === "Z") continue; // gone, or a zombie, which holds nothing
    const argv = readArgv(pid);
    if (argv === undefined) continue;
    const cmd = argv.join(" ");
    // Another user's process: its cwd is not ours to read.
    const cwd = readCwd(pid) ?? "";
    if (cmd.includes(path) || cwd.startsWith(path)) found.push({ pid, cmd: cmd.slice(0, 200) });
  }
  return found;
}
