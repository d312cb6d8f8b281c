/**
 * Fair turns between tenants: which tenant's queued job a free slot takes. Among tenants with queued jobs and below
 * their running limit: the one with the fewest jobs running, then the one whose last start is oldest (a tenant
 * never served first), then the one whose oldest queued job is oldest. Within a tenant, its oldest queued job.
 * So one tenant's burst takes one slot turn each time another tenant with queued work has had its own, and never
 * delays another tenant's single job by more than one job per tenant ahead of it.
 *
 * Turns alone never preempt: a tenant whose long jobs took every slot before another tenant came would hold them
 * until they end. So a worker keeps `reserve` slots (`server.reserved_slots`) for tenants with no job running: a
 * tenant that already runs a job may not take a slot that would leave fewer than `reserve` free. A newcomer's job
 * then starts at the next turn while a reserved slot is free, and otherwise when the first running job ends, which
 * `server.job_max_running_ms` bounds (docs/server.md, "Fair turns between tenants", states the bound).
 *
 * The SQLite store calls this; the redis backend runs the same rule in its claim script (redis-scripts.ts).
 */
export interface TenantTurn {
  tenant: string;
  /** Queue order of its oldest queued job. */
  first: number;
  running: number;
  /** When it last had a job started (0: never). */
  served: number;
}

/** The slots a turn would leave free, and how many of them are kept for tenants with no job running. */
export interface SlotReserve {
  freeAfter: number;
  reserved: number;
}

export function pickTenant(
  candidates: TenantTurn[],
  runningLimit: (tenant: string) => number | undefined,
  reserve: SlotReserve = { freeAfter: 0, reserved: 0 },
): string | undefined {
  let best: TenantTurn | undefined;
  for (const c of candidates) {
    const limit = runningLimit(c.tenant);
    if (limit !== undefined && c.running >= limit) continue;
    if (c.running > 0 && reserve.freeAfter < reserve.reserved) continue;
    if (
      !best ||
      c.running < best.running ||
      (c.running === best.running && (c.served < best.served || (c.served === best.served && c.first < best.first)))
    )
      best = c;
  }
  return best?.tenant;
}

/**
 * How many queued jobs start before one that has `own` older queued jobs of its tenant: those, and from each other
 * tenant as many as the turns before each of its own (one more when that tenant's turn comes before its tenant's:
 * served less recently, or as recently with an older first job). Running counts and limits are left out, so it
 * is an estimate when tenants run different numbers of jobs.
 */
export function turnsAhead(
  own: number,
  mine: { served: number; first: number },
  others: Array<{ queued: number; served: number; first: number }>,
): number {
  let ahead = own;
  for (const t of others) {
    const before = t.served < mine.served || (t.served === mine.served && t.first < mine.first);
    ahead += Math.min(t.queued, own + (before ? 1 : 0));
  }
  return ahead;
}
