/**
 * What each tenant's jobs cost, per UTC day: every finished skill job or solve attempt adds its `cost_usd` and
 * tokens to its tenant's day in the store (a job whose model is unpriced adds its tokens and counts as unpriced,
 * never as $0). A tenant's daily budget (`server.tenants.<name>.max_cost_usd_per_day`, `max_tokens_per_day`) is
 * checked before a job is created: over it, the job is refused with 429 `cost_limit` and nothing is stored.
 */
import { SkillrigError } from "@skillrig/core";
import type { DayUsage, JobRecord, JobStore } from "./job-store.js";
import type { TenantSettings } from "./server-config.js";
import type { ServerContext } from "./server-context.js";

/** The UTC day of `at`, YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** A finished job's cost and tokens, from its result (a skill JobResult or a solve AttemptResult). */
export function jobCost(result: unknown): { costUsd: number | null; tokens: number } | undefined {
  const r = result as { cost_usd?: unknown; usage?: { totalTokens?: unknown; costUsd?: unknown } } | null | undefined;
  if (!r || typeof r !== "object") return undefined;
  // A skill job says cost_usd (a number or "unpriced"); a solve attempt says usage.costUsd (a number or null).
  const cost = r.cost_usd !== undefined ? r.cost_usd : r.usage?.costUsd;
  if (cost === undefined) return undefined;
  const tokens = typeof r.usage?.totalTokens === "number" && r.usage.totalTokens >= 0 ? r.usage.totalTokens : 0;
  return { costUsd: typeof cost === "number" && cost >= 0 ? cost : null, tokens };
}

/** Adds a finished job's cost to its tenant's day (nothing for an oracle run or a job that never reached its engine). */
export async function recordJobCost(store: JobStore, job: Pick<JobRecord, "tenant">, result: unknown, at = new Date()): Promise<void> {
  const cost = jobCost(result);
  if (!cost) return;
  await store.addDayUsage(job.tenant, utcDay(at), {
    cost_usd: cost.costUsd ?? 0,
    tokens: cost.tokens,
    jobs: 1,
    unpriced_jobs: cost.costUsd === null ? 1 : 0,
  });
}

function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** Refuses (429 `cost_limit`) a job of a tenant that has spent its daily budget; a tenant with none always passes. */
export async function checkTenantBudget(context: ServerContext, tenant: TenantSettings, now = new Date()): Promise<void> {
  const { costUsdPerDay, tokensPerDay } = tenant.limits;
  if (costUsdPerDay === undefined && tokensPerDay === undefined) return;
  const day = utcDay(now);
  const [used] = await context.queue.store.dayUsage(tenant.name, [day]);
  const spent = used ?? { day, cost_usd: 0, tokens: 0, jobs: 0, unpriced_jobs: 0 };
  const over =
    costUsdPerDay !== undefined && spent.cost_usd >= costUsdPerDay
      ? { key: "max_cost_usd_per_day", used: `$${spent.cost_usd.toFixed(6)}`, max: `$${costUsdPerDay}` }
      : tokensPerDay !== undefined && spent.tokens >= tokensPerDay
        ? { key: "max_tokens_per_day", used: `${spent.tokens} tokens`, max: `${tokensPerDay} tokens` }
        : undefined;
  if (!over) return;
  const limit = `server.tenants.${tenant.name}.${over.key}`;
  throw new SkillrigError(
    "cost_limit",
    `tenant "${tenant.name}" has spent ${over.used} on models today (UTC, ${spent.jobs} jobs); its ${limit} is ${over.max}`,
    {
      field: limit,
      hint: `no job was created; the budget starts again at 00:00 UTC (GET /v1/tenants/${tenant.name}/usage shows each day)`,
      details: { limit, tenant: tenant.name, day, used: spent, retry_after_s: secondsToNextUtcDay(now) },
    },
  );
}

/** The UTC days from `from` to `to` (inclusive), at most `maxDays`, oldest first. */
export function daysBetween(from: string, to: string, maxDays: number): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && days.length < maxDays; t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** A tenant's usage for each day in `days` (a day without jobs reads as zeros). */
export async function tenantUsageByDay(store: JobStore, tenant: string, days: string[]): Promise<DayUsage[]> {
  const stored = new Map((await store.dayUsage(tenant, days)).map((d) => [d.day, d]));
  return days.map((day) => stored.get(day) ?? { day, cost_usd: 0, tokens: 0, jobs: 0, unpriced_jobs: 0 });
}
