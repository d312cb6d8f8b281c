/**
 * Per-run uids for code started as root. RLIMIT_NPROC counts processes per uid across the whole machine,
 * so runs that share a uid would share one process budget: each concurrent run gets a uid of its own.
 * The range is derived from our pid so that two skillrig processes on one machine rarely meet.
 */
export const SLOT_UID_BASE = 100_000 + (process.pid % 1000) * 100;
const SLOTS = 100;
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
