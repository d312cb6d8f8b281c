/**
 * GET /v1/jobs: `?status=a,b&kind=skill|oracle|solve&skill=<id>&limit=N&cursor=C` -> `{ jobs, next_cursor }`,
 * newest first, only the caller's tenant's jobs (every tenant's for an admin). Each bad value is a 400 naming its
 * parameter; the route's schema only says every parameter is a string, so these messages are the ones a client sees.
 */
import { SkillrigError, type JobStatus } from "@skillrig/core";
import type { Caller } from "./auth.js";
import type { JobKind, ListQuery } from "./job-store.js";

export const LIST_STATUSES: readonly JobStatus[] = ["waiting_upload", "queued", "running", "succeeded", "failed", "canceled"];
export const LIST_KINDS: readonly JobKind[] = ["skill", "oracle", "solve"];
export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 1000;

export interface ListParameters {
  status?: string;
  kind?: string;
  skill?: string;
  limit?: string;
  cursor?: string;
}

function bad(parameter: string, message: string): SkillrigError {
  return new SkillrigError("usage", `query parameter ${parameter}: ${message}`, {
    field: parameter,
    hint: "GET /v1/openapi.json describes GET /v1/jobs",
  });
}

export function parseListQuery(parameters: ListParameters, caller: Caller): ListQuery {
  const query: ListQuery = { limit: LIST_DEFAULT_LIMIT };
  if (!caller.tenant.admin) query.tenant = caller.tenant.name;
  if (parameters.status !== undefined) {
    const statuses = parameters.status.split(",").map((s) => s.trim());
    for (const s of statuses) {
      if (!LIST_STATUSES.includes(s as JobStatus))
        throw bad("status", `"${s}" is not a job status (one or more of ${LIST_STATUSES.join(", ")}, comma-separated)`);
    }
    query.statuses = [...new Set(statuses as JobStatus[])];
  }
  if (parameters.kind !== undefined) {
    if (!LIST_KINDS.includes(parameters.kind as JobKind))
      throw bad("kind", `"${parameters.kind}" is not a job kind (${LIST_KINDS.join(", ")})`);
    query.kind = parameters.kind as JobKind;
  }
  if (parameters.skill !== undefined) {
    if (parameters.skill === "" || parameters.skill.length > 200) throw bad("skill", "must be a skill id (1 to 200 characters)");
    query.skillId = parameters.skill;
  }
  if (parameters.limit !== undefined) {
    const limit = /^[0-9]{1,7}$/.test(parameters.limit) ? Number(parameters.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= LIST_MAX_LIMIT))
      throw bad("limit", `"${parameters.limit}" is not a whole number from 1 to ${LIST_MAX_LIMIT}`);
    query.limit = limit;
  }
  if (parameters.cursor !== undefined) {
    if (parameters.cursor === "" || parameters.cursor.length > 200)
      throw bad("cursor", "is not a cursor this server handed out (next_cursor of the previous page)");
    query.cursor = parameters.cursor;
  }
  return query;
}
