/**
 * The one reader of Linux's /proc. Every read is of a process that may end (or be another user's) while we look,
 * so each returns undefined (or an empty list) instead of throwing; callers never wrap a /proc read in try/catch.
 *
 * /proc/<pid>/stat is parsed from the LAST ')': the command name (`comm`) before it is chosen by the process itself
 * (prctl, /proc/self/comm), may hold spaces, parentheses and newlines, and untrusted code names its own processes
 * (`a) Z 1 (b` must not pass for a zombie whose parent is 1). The fields after it are numbers and one state letter.
 */
import { type Stats, readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";

/** A process by pid, or this process. */
export type ProcTarget = number | "self";

/** The fields of /proc/<pid>/stat that skillrig uses. Times are in clock ticks (USER_HZ, 100 a second). */
export interface ProcStat {
  pid: number;
  /** The command name, as the process set it (untrusted: at most 15 bytes of anything). */
  comm: string;
  /** R, S, D, T, t, Z (zombie), X (dead), I, ... */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  utime: number;
  stime: number;
  /** CPU time of the children it waited for. */
  cutime: number;
  cstime: number;
  /** When the process started, in ticks since boot: with the pid, it names one process even after pid reuse. */
  startTime: string;
}

/** USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every architecture Linux exports them for. */
export const CLOCK_TICKS_PER_SECOND = 100;

const PAGE_BYTES = 4096;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function readBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** The numeric entries of a /proc folder (pids, descriptors); empty when it is gone or unreadable. */
function numericEntries(path: string): number[] {
  let names: string[];
  try {
    names = readdirSync(path);
  } catch {
    return [];
  }
  const numbers: number[] = [];
  for (const name of names) if (/^\d+$/.test(name)) numbers.push(Number(name));
  return numbers;
}

/** The pids of /proc (every process this one can see); empty where there is no /proc. */
export function listPids(): number[] {
  return numericEntries("/proc");
}

/** Parses the text of /proc/<pid>/stat; undefined when it is not one. */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf(" (");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(" ");
  const number = (index: number) => Number(fields[index]);
  const stat: ProcStat = {
    pid: Number(text.slice(0, open)),
    comm: text.slice(open + 2, close),
    state: fields[0] ?? "",
    ppid: number(1),
    pgrp: number(2),
    session: number(3),
    utime: number(11),
    stime: number(12),
    cutime: number(13),
    cstime: number(14),
    startTime: fields[19] ?? "",
  };
  if (!Number.isInteger(stat.pid) || !/^[A-Za-z]$/.test(stat.state) || !Number.isInteger(stat.ppid)) return undefined;
  return stat;
}

/** /proc/<pid>/stat, parsed; undefined when the process is gone. */
export function readStat(pid: ProcTarget): ProcStat | undefined {
  const text = readText(`/proc/${pid}/stat`);
  return text === undefined ? undefined : parseStat(text);
}

/** Every process's stat, by pid: one scan of /proc. */
export function readAllStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const pid of listPids()) {
    const stat = readStat(pid);
    if (stat) stats.set(pid, stat);
  }
  return stats;
}

/** The real uid (first of the `Uid:` line of /proc/<pid>/status). */
export function readRealUid(pid: ProcTarget): number | undefined {
  const line = /^Uid:\s+(\d+)/m.exec(readText(`/proc/${pid}/status`) ?? "");
  return line ? Number(line[1]) : undefined;
}

/** The command line's arguments (/proc/<pid>/cmdline); empty for a kernel thread or a zombie. */
export function readArgv(pid: ProcTarget): string[] | undefined {
  const text = readText(`/proc/${pid}/cmdline`);
  if (text === undefined) return undefined;
  const args = text.split("\0");
  if (args.at(-1) === "") args.pop();
  return args;
}

/** The environment block (/proc/<pid>/environ) as bytes: NUL-separated `NAME=value` entries. */
export function readEnviron(pid: ProcTarget): Buffer | undefined {
  return readBytes(`/proc/${pid}/environ`);
}

/** True when the environment of `pid` holds exactly `name=value`. */
export function environHas(pid: ProcTarget, name: string, value: string): boolean {
  const environ = readEnviron(pid);
  if (!environ) return false;
  const entry = Buffer.from(`${name}=${value}\0`);
  return environ.subarray(0, entry.length).equals(entry) || environ.includes(Buffer.concat([Buffer.from("\0"), entry]));
}

/** The working folder (/proc/<pid>/cwd); undefined for another user's process. */
export function readCwd(pid: ProcTarget): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** The open descriptors of a process (/proc/<pid>/fd). */
export function listFds(pid: ProcTarget): number[] {
  return numericEntries(`/proc/${pid}/fd`);
}

/** What a descriptor points at, followed (stat of /proc/<pid>/fd/<fd>). */
export function statFd(pid: ProcTarget, fd: number): Stats | undefined {
  try {
    return statSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** The open flags of one of this process's own descriptors (/proc/self/fdinfo/<fd>, octal `flags:`). */
export function ownFdFlags(fd: number): number | undefined {
  const flags = /^flags:\s*([0-7]+)/m.exec(readText(`/proc/self/fdinfo/${fd}`) ?? "");
  return flags ? Number.parseInt(flags[1] as string, 8) : undefined;
}

/** This process's own descriptors, from /proc/self/fdinfo (the listing's own descriptor included). */
export function listOwnFds(): number[] {
  return numericEntries("/proc/self/fdinfo");
}

/**
 * Resident set size (/proc/<pid>/statm): a counter the kernel keeps, so reading it costs nothing like PSS. It counts
 * a shared page in every process that maps it, so it is never below the PSS. 0 when the process is gone.
 */
export function readResidentBytes(pid: ProcTarget): number {
  const resident = Number(readText(`/proc/${pid}/statm`)?.split(" ")[1]);
  return Number.isFinite(resident) ? resident * PAGE_BYTES : 0;
}

/** Proportional set size (`Pss:` of /proc/<pid>/smaps_rollup, shared pages counted once); 0 when gone. */
export function readProportionalBytes(pid: ProcTarget): number {
  const match = /^Pss:\s+(\d+) kB/m.exec(readText(`/proc/${pid}/smaps_rollup`) ?? "");
  return match ? Number(match[1]) * 1024 : 0;
}

/** A namespace's identity (the /proc/<pid>/ns/<kind> link, e.g. `pid:[4026531836]`). */
export function readNamespace(pid: ProcTarget, kind: "pid" | "mnt" | "net" | "user" | "ipc" | "uts" | "cgroup"): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/${kind}`);
  } catch {
    return undefined;
  }
}

export interface IdMapRange {
  inside: number;
  outside: number;
  length: number;
}

/** The uid map (/proc/<pid>/uid_map): which uids of this user namespace exist, and what they are outside it. */
export function readUidMap(pid: ProcTarget): IdMapRange[] | undefined {
  const text = readText(`/proc/${pid}/uid_map`);
  if (text === undefined) return undefined;
  return text
    .trim()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [inside = Number.NaN, outside = Number.NaN, length = Number.NaN] = line.trim().split(/\s+/).map(Number);
      return { inside, outside, length };
    });
}
