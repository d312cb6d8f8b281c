/**
 * Per-run uids for code started as root. RLIMIT_NPROC counts processes per uid across the whole machine,
 * so runs that share a uid would share one process budget: each concurrent run gets a uid of its own.
 * The block of 100 uids is derived from our pid, so two skillrig processes on one machine rarely meet, and it
 * is kept inside the uids this (possibly containerised) root can switch to, read from /proc/self/uid_map.
 */
import { readFileSync } from "node:fs";

const SLOTS = 100;

/** How many uids from 0 up this process can use (a container may map only 65536 of them). */
function mappedUidCount(): number {
  try {
    let count = 0;
    for (const line of readFileSync("/proc/self/uid_map", "utf8").trim().split("\n")) {
      const [inside, , length] = line.trim().split(/\s+/).map(Number);
      if (inside === count && length !== undefined) count += length;
    }
    return count > 0 ? count : 65_536;
  } catch {
    return 65_536;
  }
}

function chooseBase(): number {
  const mapped = Math.min(mappedUidCount(), 2 ** 31);
  // Far above login users (and LDAP ranges) when we may; inside a container's 65536 only when we must,
  // then above the usual login range and below nobody (65534).
  const first = mapped > 2_000_000 ? 1_000_000 : 20_000;
  const last = mapped > 2_000_000 ? mapped : Math.min(mapped, 65_000);
  const blocks = Math.max(1, Math.floor((last - first) / SLOTS));
  return first + (process.pid % blocks) * SLOTS;
}

export const SLOT_UID_BASE = chooseBase();
const inUse = new Set<number>();

/** A free uid, or undefined when 100 runs are already going at once. */
export function takeSlotUid(): number | undefined {
  for (let slot = 0; slot < SLOTS; slot++) {
    if (!inUse.has(slot)) {
      inUse.add(slot);
      return SLOT_UID_BASE + slot;
    }
  }
  return undefined;
}

export function releaseSlotUid(uid: number): void {
  inUse.delete(uid - SLOT_UID_BASE);
}
