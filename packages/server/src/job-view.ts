/** How a stored job is shown over HTTP. */
import { SkillrigError } from "@skillrig/core";
import { canSee, type Caller } from "./auth.js";
import type { JobRecord } from "./job-store.js";
import type { ServerContext } from "./server-context.js";

export function jobLinks(job: Pick<JobRecord, "id" | "kind">): Record<string, string> {
  const base = `/v1/jobs/${encodeURIComponent(job.id)}`;
  const links: Record<string, string> = {
    self: base,
    upload: `${base}/upload`,
    events: `${base}/events`,
    result: `${base}/result`,
    cancel: `${base}/cancel`,
  };
  if (job.kind === "skill") {
    links.artifacts = `${base}/artifacts`;
    links.bundle = `${base}/bundle`;
  }
  return links;
}

/** `queuePosition`: for a queued job, how many queued jobs start before it (0: next). */
export function jobView(job: JobRecord, queuePosition?: number) {
  const duration = job.started_at && job.finished_at ? Date.parse(job.finished_at) - Date.parse(job.started_at) : null;
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    skill_id: job.skill_id,
    engine: job.engine,
    reason: job.reason,
    error: job.error,
    needs_upload: job.needs_upload,
    created_at: job.created_at,
    queued_at: job.queued_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    duration_ms: duration,
    ...(job.status === "queued" && queuePosition !== undefined ? { queue_position: queuePosition } : {}),
    links: jobLinks(job),
  };
}

/** The job, if `caller` may see it: another tenant's job is answered exactly as a job that does not exist (404). */
export async function requireJob(context: ServerContext, id: string, caller: Caller): Promise<JobRecord> {
  const job = await context.queue.store.get(id);
  if (!job || !canSee(caller, job.tenant)) throw new SkillrigError("job_not_found", `no job "${id}" on this server`, { field: "id" });
  return job;
}
