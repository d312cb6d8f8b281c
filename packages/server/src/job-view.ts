/** How a stored job is shown over HTTP. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillrigError, type CaseVerdict, type TaskSummary } from "@skillrig/core";
import { summarize } from "@skillrig/oracle";
import { canSee, type Caller } from "./auth.js";
import { isTerminal, type JobRecord } from "./job-store.js";
import type { ServerContext } from "./server-context.js";
import { jobFolders, serverPathCleaner, withoutServerPaths } from "./server-paths.js";

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
    error: job.error && forClient(job, job.error),
    needs_upload: job.needs_upload,
    created_at: job.created_at,
    queued_at: job.queued_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    duration_ms: duration,
    ...(job.status === "queued" && queuePosition !== undefined ? { queue_position: queuePosition } : {}),
    summary: caseSummary(job),
    links: jobLinks(job),
  };
}

/**
 * The verdict of a finished oracle run or solve attempt: how many of its cases passed, failed, errored or were
 * invalid, from its stored result (null for a skill job, a job that has not finished, or one that ended without a
 * report). The job's own status says whether the machinery worked; this says whether the deliverable did.
 */
export function caseSummary(job: Pick<JobRecord, "kind" | "status" | "result">): TaskSummary | null {
  if (job.kind === "skill" || !isTerminal(job.status) || job.result === null || typeof job.result !== "object") return null;
  const result = job.result as { summary?: TaskSummary; cases?: CaseVerdict[]; score?: { total?: number } };
  if (!Array.isArray(result.cases)) return null;
  // An oracle report counts its cases itself; an attempt's scored cases are counted here, and an attempt that was
  // never graded (its engine failed) still counts its scored cases in the total, none of them passed.
  if (job.kind === "oracle" && result.summary) return result.summary;
  return summarize(result.cases, Math.max(result.cases.length, result.score?.total ?? 0));
}

/** What a skill job really got to run: its input, its parameters with the schema's defaults, each file input's name and size. */
export interface JobInputs {
  input: Record<string, unknown>;
  parameter: Record<string, unknown>;
  files: Array<{ field: string; name: string; size: number }>;
}

/**
 * A skill job's inputs from its run folder's run.json `resolved` (written once the inputs are resolved), without
 * server paths; null before that, and always for an oracle run or a solve attempt: their request holds the hidden
 * expected values, which a client never gets back.
 */
export async function jobInputs(job: Pick<JobRecord, "kind" | "run_dir">): Promise<JobInputs | null> {
  if (job.kind !== "skill" || !job.run_dir) return null;
  let resolved: unknown;
  try {
    resolved = (JSON.parse(await readFile(join(job.run_dir, "run.json"), "utf8")) as { resolved?: unknown }).resolved;
  } catch {
    return null; // not written yet (queued, waiting for its upload), or being rewritten
  }
  if (!isRecord(resolved) || !isRecord(resolved.input) || !isRecord(resolved.parameter)) return null;
  const files = (Array.isArray(resolved.files) ? resolved.files : []).filter(isRecord).map((f) => ({
    field: String(f.field),
    name: String(f.name),
    size: typeof f.bytes === "number" ? f.bytes : 0,
  }));
  return forClient(job, { input: resolved.input, parameter: resolved.parameter, files });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value about the job (result, event, error) as a client sees it: no path names the server's folders. */
export function forClient<T>(job: Pick<JobRecord, "run_dir">, value: T): T {
  return withoutServerPaths(value, jobFolders(job.run_dir));
}

/** `forClient` for the many values of one job's event stream. */
export function clientCleaner(job: Pick<JobRecord, "run_dir">): <T>(value: T) => T {
  return serverPathCleaner(jobFolders(job.run_dir));
}

/** The job, if `caller` may see it: another tenant's job is answered exactly as a job that does not exist (404). */
export async function requireJob(context: ServerContext, id: string, caller: Caller): Promise<JobRecord> {
  const job = await context.queue.store.get(id);
  if (!job || !canSee(caller, job.tenant)) throw new SkillrigError("job_not_found", `no job "${id}" on this server`, { field: "id" });
  return job;
}
