/** A tenant's model usage by UTC day: what its jobs cost, for its own budget and bills (tenant-usage.ts). */
import { SkillrigError } from "@skillrig/core";
import type { FastifyInstance } from "fastify";
import { ref, responses } from "../api-schemas.js";
import { canSee } from "../auth.js";
import type { ServerContext } from "../server-context.js";
import { daysBetween, tenantUsageByDay, utcDay } from "../tenant-usage.js";

/** Days one request may ask for. */
export const MAX_USAGE_DAYS = 366;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function dayParam(value: string | undefined, name: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw new SkillrigError(
      "input_invalid",
      `query parameter ${name} must be a UTC day as YYYY-MM-DD, not ${JSON.stringify(value.slice(0, 40))}`,
      {
        field: name,
      },
    );
  return value;
}

export function usageRoutes(app: FastifyInstance, context: ServerContext): void {
  app.get<{ Params: { tenant: string }; Querystring: { from?: string; to?: string } }>(
    "/v1/tenants/:tenant/usage",
    {
      schema: {
        operationId: "getTenantUsage",
        summary: "What a tenant's jobs cost, by UTC day",
        description: `Cost (USD, from the price table), tokens and jobs per UTC day, from \`from\` to \`to\` (default: the last 30 days up to today; at most ${MAX_USAGE_DAYS} days). A tenant sees its own; an admin any.`,
        tags: ["usage"],
        params: { type: "object", required: ["tenant"], properties: { tenant: { type: "string", maxLength: 64 } } },
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: { from: { type: "string", maxLength: 10 }, to: { type: "string", maxLength: 10 } },
        },
        response: { 200: { description: "The tenant's usage per day", ...ref("TenantUsage") }, ...responses.errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const tenant = context.settings.tenants.find((t) => t.name === request.params.tenant);
      // Another tenant's usage is as hidden as its jobs: the same 404 as for a tenant that does not exist.
      if (!tenant || !canSee(request.caller, tenant.name))
        throw new SkillrigError("job_not_found", `no tenant "${request.params.tenant.slice(0, 64)}" that this token can see`, {
          field: "tenant",
        });
      const today = utcDay(new Date());
      const to = dayParam(request.query.to, "to", today);
      const from = dayParam(request.query.from, "from", utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000)));
      if (from > to) throw new SkillrigError("input_invalid", `from (${from}) is after to (${to})`, { field: "from" });
      const days = daysBetween(from, to, MAX_USAGE_DAYS);
      return {
        tenant: tenant.name,
        ...(tenant.limits.costUsdPerDay !== undefined ? { max_cost_usd_per_day: tenant.limits.costUsdPerDay } : {}),
        ...(tenant.limits.tokensPerDay !== undefined ? { max_tokens_per_day: tenant.limits.tokensPerDay } : {}),
        days: await tenantUsageByDay(context.queue.store, tenant.name, days),
      };
    },
  );
}
