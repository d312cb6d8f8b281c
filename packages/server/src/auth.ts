/**
 * Bearer tokens, each belonging to one tenant (`server.tokens`: the tenant `default`; `server.tenants`). Compared
 * through SHA-256 digests with timingSafeEqual so that neither the length nor the content of a token leaks through
 * timing; every token is compared, so which tenant matched does not leak either.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { SkillrigError } from "@skillrig/core";
import { DEFAULT_TENANT, type TenantSettings } from "./server-config.js";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Who sent a request: its tenant (whose jobs it sees) and whether it sees every tenant's (role admin). */
export interface Caller {
  tenant: TenantSettings;
}

/** The caller of a server without tokens (loopback only): the tenant `default`. */
export function anonymousCaller(tenants: TenantSettings[]): Caller {
  return { tenant: tenants.find((t) => t.name === DEFAULT_TENANT)! };
}

/** Whether `caller` may see a job of `tenant`: its own, or any for an admin. */
export function canSee(caller: Caller, tenant: string): boolean {
  return caller.tenant.admin || caller.tenant.name === tenant;
}

/** Returns a check that throws `unauthorized` unless the Authorization header carries a tenant's token, and says whose. */
export function bearerCheck(tenants: TenantSettings[]): (authorization: string | undefined) => Caller {
  const digests = tenants.flatMap((tenant) => tenant.tokens.map((token) => ({ tenant, digest: digest(token) })));
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) {
      throw new SkillrigError("unauthorized", "this server needs a bearer token: send Authorization: Bearer <token>", {
        field: "authorization",
      });
    }
    const given = digest(match[1]!);
    let found: TenantSettings | undefined;
    for (const d of digests) if (timingSafeEqual(d.digest, given)) found ??= d.tenant;
    if (!found) {
      throw new SkillrigError("unauthorized", "the bearer token is not a token of this server (server.tokens, server.tenants)", {
        field: "authorization",
      });
    }
    return { tenant: found };
  };
}
