/**
 * Per-run uids for code started as root. RLIMIT_NPROC counts processes per uid across the whole machine, and a
 * process may signal or trace others of its own uid, so no two runs may ever hold the same uid at the same time:
 * not two cases of one task, not two jobs of one server (worker threads share a pid), not two skillrig processes.
 *
 * Each uid is claimed with a lock file created exclusively (O_EXCL) in a root-only folder (`/run/skillrig/slot-uids`,
 * a tmpfs emptied at boot; the temp folder when there is no /run). The file holds the owner's pid and its start
 * time. A lock whose owner is gone (the runner was SIGKILLed) is stale: it is removed by whoever meets it, under a
 * second exclusive lock (`.reaper`) so that two processes can never both remove it and then both take the uid.
 * Left open: a process that dies while it holds `.reaper` (a few system calls long) leaves it for the next claimant to
 * remove after the same liveness check; two claimants doing that at the same instant could both reap.
 *
 * Uids come from a range this (possibly containerised) root can switch to, read from /proc/self/uid_map: from
 * 1,000,000 up, or 20,000..65,000 in a container that maps only 65,536. Each process starts its search at an offset
 * derived from its pid, so concurrent processes rarely contend for the same file.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStat, readUidMap } from "@skillrig/process";

/** How many uids from 0 up this process can use (a container may map only 65536 of them). */
function mappedUidCount(): number {
  let count = 0;
  for (const { inside, length } of readUidMap("self") ?? []) if (inside === count && !Number.isNaN(length)) count += length;
  return count > 0 ? count : 65_536;
}

function uidRange(): { first: number; last: number } {
  const mapped = Math.min(mappedUidCount(), 2 ** 31);
  // Far above login users (and LDAP ranges) when we may; inside a container's 65536 only when we must,
  // then above the usual login range and below nobody (65534).
  return mapped > 2_000_000
    ? { first: 1_000_000, last: Math.min(mapped, 1_000_000 + 1_000_000) }
    : { first: 20_000, last: Math.min(mapped, 65_000) };
}

const RANGE = uidRange();
/** The first uid of the range: the probes check that this root can switch to uids there. */
export const SLOT_UID_BASE = RANGE.first;

/** The root-only folder holding one lock file per uid in use. */
export function slotLockFolder(): string {
  let base = "/run";
  try {
    if (!lstatSync(base).isDirectory()) base = tmpdir();
  } catch {
    base = tmpdir();
  }
  return join(base, "skillrig", "slot-uids");
}

let lockFolder: string | undefined;

/** Creates the lock folder (0700) and checks nobody but root could have planted files in it. */
function ensureLockFolder(): string {
  if (lockFolder) return lockFolder;
  const folder = slotLockFolder();
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  for (const path of [join(folder, ".."), folder]) {
    const stat = lstatSync(path);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) {
      throw new Error(
        `sandbox: the per-run uid lock folder ${path} must be a folder owned by this user and writable by nobody else (it is ${stat.isSymbolicLink() ? "a symlink" : `mode ${(stat.mode & 0o7777).toString(8)}, owner ${stat.uid}`})`,
      );
    }
  }
  lockFolder = folder;
  return folder;
}

/** Field 22 of /proc/<pid>/stat: when the process started, so a reused pid is not taken for the owner. */
function processStartTime(pid: number): string | undefined {
  return readStat(pid)?.startTime;
}

const OWNER = `${process.pid}:${processStartTime(process.pid) ?? "?"}`;

function ownerAlive(content: string): boolean {
  const [pid, started] = content.trim().split(":");
  const number = Number(pid);
  if (!Number.isInteger(number) || number <= 0) return false;
  const now = processStartTime(number);
  return now !== undefined && (started === "?" || now === started);
}

/** Creates `path` exclusively with our owner line; false when it exists. */
function createExclusive(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, OWNER);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readLock(path: string): string | undefined {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!fstatSync(fd).isFile()) return "";
      return readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * Removes the lock at `path` when its owner is gone. Under `.reaper`, so only one process at a time reaps: a
 * second reaper could otherwise read the same stale owner, and remove the fresh lock the first one put back.
 */
function reapIfStale(folder: string, path: string): void {
  const reaper = join(folder, ".reaper");
  if (!createExclusive(reaper)) {
    const holder = readLock(reaper);
    if (holder === undefined || ownerAlive(holder)) return; // someone is reaping; try other uids
    try {
      unlinkSync(reaper);
    } catch {
      // another claimant removed it first
    }
    if (!createExclusive(reaper)) return;
  }
  try {
    const owner = readLock(path);
    if (owner !== undefined && !ownerAlive(owner)) unlinkSync(path);
  } finally {
    unlinkSync(reaper);
  }
}

const held = new Set<number>();

/** A uid no other run on this machine holds, claimed until `releaseSlotUid`; undefined when the whole range is taken. */
export function takeSlotUid(): number | undefined {
  const folder = ensureLockFolder();
  const size = RANGE.last - RANGE.first;
  const start = (process.pid * 997) % size;
  for (let step = 0; step < size; step++) {
    const uid = RANGE.first + ((start + step) % size);
    if (held.has(uid)) continue;
    const path = join(folder, String(uid));
    if (createExclusive(path)) {
      held.add(uid);
      return uid;
    }
    const owner = readLock(path);
    if (owner !== undefined && !ownerAlive(owner)) {
      reapIfStale(folder, path);
      if (createExclusive(path)) {
        held.add(uid);
        return uid;
      }
    }
  }
  return undefined;
}

export function releaseSlotUid(uid: number): void {
  if (!held.delete(uid)) return;
  try {
    unlinkSync(join(ensureLockFolder(), String(uid)));
  } catch {
    // already reaped (our start time could not be read); nothing else holds it
  }
}

/** Uids this process holds now (tests). */
export function heldSlotUids(): number[] {
  return [...held];
}
