/** The route options (summary, description, body, responses) of the job routes: what /v1/openapi.json shows. */
import {
  createJobBody,
  createOracleRunBody,
  createSolveAttemptBody,
  jobIdParams,
  jobView,
  responses,
  uploadResponse,
} from "../api-schemas.js";

const { errorResponses } = responses;

export const createJobRoute = {
  summary: "Submit a skill job",
  description:
    "Checks the request against the skill (404 unknown skill, 400 unknown engine, 422 schema violations). A skill with file inputs waits in `waiting_upload` for POST /v1/jobs/{id}/upload; otherwise the job is queued at once.",
  tags: ["jobs"],
  body: createJobBody,
  response: { 201: { description: "Accepted", ...jobView }, ...errorResponses(400, 401, 404, 422, 429) },
};

export const createOracleRunRoute = {
  summary: "Start an oracle run",
  description:
    "Validates the task (422 listing each violation with its pointer under /task). The run waits in `waiting_upload` for the deliverable, a zip sent to POST /v1/jobs/{id}/upload; its report is at GET /v1/jobs/{id}/result.",
  tags: ["oracle"],
  body: createOracleRunBody,
  response: { 201: { description: "Accepted", ...jobView }, ...errorResponses(400, 401, 422, 429) },
};

export const createSolveAttemptRoute = {
  summary: "Queue one solve attempt",
  description:
    "One attempt of a `skillrig solve` batch: the engine writes the task's deliverable through the built-in solve skill (it sees the description and the public examples only), then the deliverable is graded on the task's tests. Queued at once; its result (GET /v1/jobs/{id}/result) is the attempt as a solve report lists it.",
  tags: ["solve"],
  body: createSolveAttemptBody,
  response: { 201: { description: "Accepted", ...jobView }, ...errorResponses(400, 401, 422, 429) },
};

export const listJobsRoute = {
  summary: "List jobs, newest first",
  description:
    "The caller's tenant's jobs (every tenant's for an admin token), newest first, filtered, one page at a time: pass `next_cursor` as `cursor` for the next page (null: no more). A bad value is a 400 naming its parameter.",
  tags: ["jobs"],
  querystring: {
    type: "object",
    properties: {
      status: { type: "string", description: "Comma-separated statuses: waiting_upload, queued, running, succeeded, failed, canceled" },
      kind: { type: "string", description: "skill, oracle or solve" },
      skill: { type: "string", description: "Only jobs of this skill id" },
      limit: { type: "string", description: "Jobs per page, 1 to 1000 (default 100)" },
      cursor: { type: "string", description: "next_cursor of the previous page (opaque)" },
    },
  },
  response: {
    200: {
      type: "object",
      required: ["jobs", "next_cursor"],
      properties: { jobs: { type: "array", items: jobView }, next_cursor: { type: "string", nullable: true } },
    },
    ...errorResponses(400, 401),
  },
};

export const getJobRoute = {
  summary: "A job's status, timings and error",
  tags: ["jobs"],
  params: jobIdParams,
  response: { 200: jobView, ...errorResponses(401, 404) },
};

export const uploadRoute = {
  summary: "Upload the job's files (skill) or the deliverable (oracle run) as a zip",
  description:
    "The body is a zip: raw (Content-Type: application/zip) or the one file of a multipart/form-data form. For a skill job each file is named exactly as its file input field. Refused with nothing written: not a zip (415), too large (413), `..` entries, absolute paths, symlinks, too many files or bytes (400).",
  tags: ["jobs"],
  params: jobIdParams,
  response: {
    202: { description: "Extracted; the job is queued", ...uploadResponse },
    ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
  },
};

export const cancelRoute = {
  summary: "Cancel a job that has not finished",
  tags: ["jobs"],
  params: jobIdParams,
  response: { 202: { description: "Canceled, or stopping", ...jobView }, ...errorResponses(401, 404, 409) },
};

export const resultRoute = {
  summary: "The finished job's result: a JobResult (skill) or a TaskReport (oracle run)",
  description: "409 until the job has finished.",
  tags: ["jobs"],
  params: jobIdParams,
  response: { 200: { type: "object", additionalProperties: true }, ...errorResponses(401, 404, 409) },
};
