/**
 * A tenant's upload bytes per UTC day (`server.tenants.<name>.upload_bytes_per_day`, default
 * `DEFAULT_UPLOAD_BYTES_PER_DAY`): what an upload puts on disk, the bytes it extracts to, counted as they are
 * written (never the zip's size, never the sizes it declares). The bytes are taken from the tenant's day in the
 * store in blocks, atomically (so concurrent uploads cannot overshoot the limit), ahead of the chunks that need them;
 * the chunk that would cross the limit stops the extraction with 429 `quota_exceeded` (Retry-After: the seconds
 * until the next UTC day). A refused upload gives back everything it took; an accepted one gives back the part of
 * its last block it did not use.
 *
 * Kept apart from the other tenant limits (job-submission.ts) on purpose: a per-tenant budget of another kind
 * lives in its own module beside this one.
 */
import { SkillrigError } from "@skillrig/core";
import type { TenantSettings } from "./server-config.js";
import type { ServerContext } from "./server-context.js";

/** Bytes taken from the store at a time: one round trip per MiB extracted, not per chunk. */
const BLOCK_BYTES = 1024 * 1024;

export interface UploadAllowance {
  /** Counts `bytes` more extracted bytes; throws `quota_exceeded` when the tenant's day would pass its limit. */
  take(bytes: number): Promise<void>;
  /** The upload was accepted: gives back what was taken but not written. */
  settle(): Promise<void>;
  /** The upload was refused: gives back everything it took. */
  release(): Promise<void>;
}

const UNLIMITED: UploadAllowance = { take: async () => undefined, settle: async () => undefined, release: async () => undefined };

export function uploadAllowance(context: ServerContext, tenant: TenantSettings): UploadAllowance {
  const max = tenant.limits.uploadBytesPerDay;
  if (max === undefined) return UNLIMITED;
  const started = new Date();
  // One day for the whole upload: what it takes is given back to the day it was taken from.
  const day = started.toISOString().slice(0, 10);
  const store = context.queue.store;
  let reserved = 0;
  let written = 0;
  const giveBack = async (bytes: number) => {
    if (bytes > 0) await store.releaseUploadBytes(tenant.name, day, bytes);
  };
  return {
    async take(bytes) {
      written += bytes;
      if (written <= reserved) return;
      const need = written - reserved;
      // A whole block when the day has room for it, else exactly what this chunk needs.
      for (const want of need < BLOCK_BYTES ? [BLOCK_BYTES, need] : [need]) {
        const got = await store.reserveUploadBytes(tenant.name, day, want, max);
        if (got.ok) {
          reserved += want;
          return;
        }
        if (want === need) throw overQuota(tenant.name, max, got.used - reserved, written, started);
      }
    },
    async settle() {
      await giveBack(reserved - written);
      reserved = written;
    },
    async release() {
      await giveBack(reserved);
      reserved = 0;
    },
  };
}

function overQuota(tenant: string, max: number, usedBefore: number, bytes: number, now: Date): SkillrigError {
  const limit = `server.tenants.${tenant}.upload_bytes_per_day`;
  const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const retryAfter = Math.max(1, Math.ceil((nextDay - now.getTime()) / 1000));
  return new SkillrigError(
    "quota_exceeded",
    `tenant "${tenant}" has uploaded ${usedBefore} bytes today (UTC, counted as extracted); this upload had extracted ${bytes} bytes when it would have passed its ${limit} of ${max}`,
    {
      field: limit,
      hint: "nothing of this upload was written and its bytes were given back; the job still waits for an upload (until server.upload_wait_ms)",
      details: { limit, tenant, used: usedBefore, bytes, max, retry_after_s: retryAfter },
    },
  );
}
