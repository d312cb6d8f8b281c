/**
 * The route options (operationId, tags, summary, description, body, responses) of the job routes: what
 * /v1/openapi.json shows. Each `operationId` is the name a generated client gives the call.
 */
import { jobIdParams, ref, responses } from "../api-schemas.js";

const { errorResponses } = responses;

/** A result is one of three shapes by the job's kind; the schema documents them, the route sends the value as is. */
const anyResult = {
  description: "JobResult (kind skill), TaskReport (kind oracle) or AttemptResult (kind solve)",
  oneOf: [ref("JobResult"), ref("TaskReport"), ref("AttemptResult")],
};

export const createJobRoute = {
  operationId: "createJob",
  summary: "Submit a skill job",
  description:
    "Checks the request against the skill (404 unknown skill, 400 unknown engine, 422 schema violations). A skill with file inputs waits in `waiting_upload` for POST /v1/jobs/{id}/upload; otherwise the job is queued at once.",
  tags: ["jobs"],
  body: ref("CreateJobRequest"),
  response: { 201: { description: "Accepted", ...ref("Job") }, ...errorResponses(400, 401, 404, 422, 429) },
};

export const createOracleRunRoute = {
  operationId: "createOracleRun",
  summary: "Start an oracle run",
  description:
    "Validates the task (422 listing each violation with its pointer under /task). The run waits in `waiting_upload` for the deliverable, a zip sent to POST /v1/jobs/{id}/upload; its report is at GET /v1/jobs/{id}/result.",
  tags: ["oracle"],
  body: ref("CreateOracleRunRequest"),
  response: { 201: { description: "Accepted", ...ref("Job") }, ...errorResponses(400, 401, 422, 429) },
};

export const createSolveAttemptRoute = {
  operationId: "createSolveAttempt",
  summary: "Queue one solve attempt",
  description:
    "One attempt of a `skillrig solve` batch: the engine writes the task's deliverable through the built-in solve skill (it sees the description and the public examples only), then the deliverable is graded on the task's tests. Queued at once; its result (GET /v1/jobs/{id}/result) is the attempt as a solve report lists it.",
  tags: ["solve"],
  body: ref("CreateSolveAttemptRequest"),
  response: { 201: { description: "Accepted", ...ref("Job") }, ...errorResponses(400, 401, 422, 429) },
};

export const listJobsRoute = {
  operationId: "listJobs",
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
  response: { 200: { description: "A page of jobs", ...ref("JobList") }, ...errorResponses(400, 401) },
};

export const getJobRoute = {
  operationId: "getJob",
  summary: "A job's status, timings, error and case summary",
  tags: ["jobs"],
  params: jobIdParams,
  response: { 200: { description: "The job", ...ref("Job") }, ...errorResponses(401, 404) },
};

export const uploadRoute = {
  operationId: "uploadJobFiles",
  summary: "Upload the job's files (skill) or the deliverable (oracle run) as a zip",
  description:
    "The body is a zip: raw (Content-Type: application/zip) or the one file of a multipart/form-data form. For a skill job each file is named exactly as its file input field, at the top of the zip or under `uploads/` (not both); each is checked against the skill's input schema as it arrives (a file input of that name, its `extensions`, its content sniffed from its bytes) and a misfit is refused with 422 naming the field and the file. Refused with nothing written: not a zip (415), too large (413), `..` entries, absolute paths, symlinks, too many files or bytes (400).",
  tags: ["jobs"],
  params: jobIdParams,
  response: {
    202: { description: "Extracted; the job is queued", ...ref("UploadReceipt") },
    ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
  },
};

export const cancelRoute = {
  operationId: "cancelJob",
  summary: "Cancel a job that has not finished",
  tags: ["jobs"],
  params: jobIdParams,
  response: { 202: { description: "Canceled, or stopping", ...ref("Job") }, ...errorResponses(401, 404, 409) },
};

export const resultRoute = {
  operationId: "getJobResult",
  summary: "The finished job's result: a JobResult (skill), a TaskReport (oracle run) or an AttemptResult (solve attempt)",
  description: "409 until the job has finished. Paths in it are relative to the job's run folder.",
  tags: ["jobs"],
  params: jobIdParams,
  response: { 200: anyResult, ...errorResponses(401, 404, 409) },
};
