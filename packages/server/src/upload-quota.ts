/**
 * A tenant's upload bytes per UTC day (`server.tenants.<name>.upload_bytes_per_day`): each upload's zip is counted
 * against its tenant's day before it is extracted (atomically in the store, so concurrent uploads cannot overshoot
 * it), and given back when the upload is refused. Past the limit: 429 `quota_exceeded`, Retry-After the seconds
 * until the next UTC day.
 */
import { SkillrigError } from "@skillrig/core";
import type { TenantSettings } from "./server-config.js";
import type { ServerContext } from "./server-context.js";

export interface UploadReservation {
  /** Gives the bytes back (the upload was refused). */
  release(): Promise<void>;
}

const NOTHING: UploadReservation = { release: async () => undefined };

export async function reserveUploadBytes(context: ServerContext, tenant: TenantSettings, bytes: number): Promise<UploadReservation> {
  const max = tenant.limits.uploadBytesPerDay;
  if (max === undefined) return NOTHING;
  const now = new Date();
  const day = now.toISOString().slice(0, 10);
  const store = context.queue.store;
  const reserved = await store.reserveUploadBytes(tenant.name, day, bytes, max);
  if (!reserved.ok) {
    const limit = `server.tenants.${tenant.name}.upload_bytes_per_day`;
    const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const retryAfter = Math.max(1, Math.ceil((nextDay - now.getTime()) / 1000));
    throw new SkillrigError(
      "quota_exceeded",
      `tenant "${tenant.name}" has uploaded ${reserved.used} bytes today (UTC); this upload of ${bytes} bytes would pass its ${limit} of ${max}`,
      {
        field: limit,
        hint: "nothing of this upload was written; the job still waits for an upload (until server.upload_wait_ms)",
        details: { limit, tenant: tenant.name, used: reserved.used, bytes, max, retry_after_s: retryAfter },
      },
    );
  }
  return { release: async () => void (await store.releaseUploadBytes(tenant.name, day, bytes)) };
}
