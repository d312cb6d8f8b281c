/** Skill jobs, oracle runs and solve attempts: create, upload, look at, cancel, result. */
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { isSkillrigError, SkillrigError, type JobRequest, type LoadedTask, type Violation } from "@skillrig/core";
import { topLevelMemberText } from "@skillrig/oracle";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { SOLVE_SKILL_ID } from "@skillrig/solve";
import { checkUploadNames, fileInputNames } from "@skillrig/skills/protocol";
import {
  createJobBody,
  createOracleRunBody,
  createSolveAttemptBody,
  jobIdParams,
  jobView as jobViewSchema,
  responses,
  uploadResponse,
} from "../api-schemas.js";
import { isTerminal, type JobKind } from "../job-store.js";
import { jobView, requireJob } from "../job-view.js";
import type { SolveAttemptRequest } from "../job-execution.js";
import { checkJobRequest, checkSolveAttempt } from "../request-check.js";
import type { ServerContext } from "../server-context.js";
import { extractZip, looksLikeZip } from "../upload-zip.js";

const { errorResponses } = responses;

async function checkQueueRoom(context: ServerContext): Promise<void> {
  const waiting = await context.queue.store.pendingCount();
  if (waiting >= context.settings.queueLimit) {
    throw new SkillrigError(
      "queue_full",
      `the queue is full: ${waiting} jobs are waiting (server.queue_limit is ${context.settings.queueLimit})`,
      {
        hint: "retry later",
        details: { waiting, queue_limit: context.settings.queueLimit },
      },
    );
  }
}

function newJob(
  context: ServerContext,
  kind: JobKind,
  fields: { skill_id?: string; engine?: string; request: Record<string, unknown>; needs_upload: boolean },
) {
  const id = randomUUID();
  return context.queue.create({ id, kind, run_dir: join(context.runsDir, id), ...fields });
}

/**
 * Reads and validates the task of a request body (`task`), violations pointing under /task. The task is read from
 * the body's own text, as a local run reads a task file: numbers exactly as written (`3.0` stays a float, integers
 * past 2^53 keep their digits, `1e400` is a float), keys repeated within an object refused. Returns that text, which
 * is what the job stores and the worker reads again.
 */
function checkTask(context: ServerContext, request: FastifyRequest, parsed: unknown): string {
  const text = (request.jsonText !== null ? topLevelMemberText(request.jsonText, "task") : undefined) ?? JSON.stringify(parsed);
  let loaded: LoadedTask;
  try {
    loaded = context.execution.loadTaskText(text);
  } catch (error) {
    if (isSkillrigError(error)) {
      // The task sits under /task in the request body; say so in every pointer.
      const violations: Violation[] = error.violations.map((v) => ({ ...v, pointer: `/task${v.pointer ?? ""}` }));
      throw new SkillrigError(error.code, error.message, { pointer: `/task${error.pointer ?? ""}`, violations, hint: error.hint });
    }
    throw error;
  }
  const max = context.settings.taskMaxCases;
  if (loaded.task.tests.length > max) {
    const message = `the task has ${loaded.task.tests.length} test cases; this server takes at most ${max} (server.task_max_cases)`;
    throw new SkillrigError("invalid_task", message, {
      pointer: "/task/tests",
      field: "tests",
      violations: [{ pointer: "/task/tests", message, rule: "server.task_max_cases" }],
      details: { limit: "server.task_max_cases", max },
      hint: "split the task, or raise server.task_max_cases in the server's config",
    });
  }
  return text;
}

export function jobRoutes(app: FastifyInstance, context: ServerContext): void {
  app.post<{ Body: JobRequest }>(
    "/v1/jobs",
    {
      schema: {
        summary: "Submit a skill job",
        description:
          "Checks the request against the skill (404 unknown skill, 400 unknown engine, 422 schema violations). A skill with file inputs waits in `waiting_upload` for POST /v1/jobs/{id}/upload; otherwise the job is queued at once.",
        tags: ["jobs"],
        body: createJobBody,
        response: { 201: { description: "Accepted", ...jobViewSchema }, ...errorResponses(400, 401, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const skill = context.execution.skill(body.skill_id);
      checkJobRequest(context.runner, skill, body, context.settings.clientEngineOptions);
      await checkQueueRoom(context);
      const jobRequest: JobRequest = { skill_id: body.skill_id, engine: body.engine };
      if (body.input) jobRequest.input = body.input;
      if (body.parameter) jobRequest.parameter = body.parameter;
      if (body.options) jobRequest.options = body.options;
      const job = await newJob(context, "skill", {
        skill_id: skill.id,
        engine: body.engine,
        request: jobRequest as unknown as Record<string, unknown>,
        needs_upload: fileInputNames(skill).length > 0,
      });
      return reply.code(201).header("location", `/v1/jobs/${job.id}`).send(jobView(job));
    },
  );

  app.post<{ Body: { task: Record<string, unknown> } }>(
    "/v1/oracle/runs",
    {
      schema: {
        summary: "Start an oracle run",
        description:
          "Validates the task (422 listing each violation with its pointer under /task). The run waits in `waiting_upload` for the deliverable, a zip sent to POST /v1/jobs/{id}/upload; its report is at GET /v1/jobs/{id}/result.",
        tags: ["oracle"],
        body: createOracleRunBody,
        response: { 201: { description: "Accepted", ...jobViewSchema }, ...errorResponses(400, 401, 422, 429) },
      },
    },
    async (request, reply) => {
      const taskText = checkTask(context, request, request.body.task);
      await checkQueueRoom(context);
      const job = await newJob(context, "oracle", { request: { task_text: taskText }, needs_upload: true });
      return reply.code(201).header("location", `/v1/jobs/${job.id}`).send(jobView(job));
    },
  );

  app.post<{ Body: SolveAttemptRequest & { task: Record<string, unknown> } }>(
    "/v1/solve/attempts",
    {
      schema: {
        summary: "Queue one solve attempt",
        description:
          "One attempt of a `skillrig solve` batch: the engine writes the task's deliverable through the built-in solve skill (it sees the description and the public examples only), then the deliverable is graded on the task's tests. Queued at once; its result (GET /v1/jobs/{id}/result) is the attempt as a solve report lists it.",
        tags: ["solve"],
        body: createSolveAttemptBody,
        response: { 201: { description: "Accepted", ...jobViewSchema }, ...errorResponses(400, 401, 422, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const taskText = checkTask(context, request, body.task);
      checkSolveAttempt(context.runner, body.engine, context.settings.clientEngineOptions);
      await checkQueueRoom(context);
      const attempt: SolveAttemptRequest = {
        task_text: taskText,
        engine: {
          name: body.engine.name,
          label: body.engine.label ?? body.engine.name,
          ...(body.engine.options ? { options: body.engine.options } : {}),
        },
        attempt: body.attempt,
        ...(body.timeout_ms !== undefined ? { timeout_ms: body.timeout_ms } : {}),
      };
      const job = await newJob(context, "solve", {
        skill_id: SOLVE_SKILL_ID,
        engine: body.engine.name,
        request: attempt as unknown as Record<string, unknown>,
        needs_upload: false,
      });
      return reply.code(201).header("location", `/v1/jobs/${job.id}`).send(jobView(job));
    },
  );

  app.get<{ Querystring: { limit?: string } }>(
    "/v1/jobs",
    {
      schema: {
        summary: "List recent jobs",
        tags: ["jobs"],
        querystring: { type: "object", properties: { limit: { type: "string", pattern: "^[0-9]{1,4}$" } } },
        response: { 200: { type: "object", properties: { jobs: { type: "array", items: jobViewSchema } } }, ...errorResponses(401) },
      },
    },
    async (request) => ({ jobs: (await context.queue.store.list(Number(request.query.limit ?? 100))).map((job) => jobView(job)) }),
  );

  app.get<{ Params: { id: string } }>(
    "/v1/jobs/:id",
    {
      schema: {
        summary: "A job's status, timings and error",
        tags: ["jobs"],
        params: jobIdParams,
        response: { 200: jobViewSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const job = await requireJob(context, request.params.id);
      return jobView(job, job.status === "queued" ? await context.queue.store.queuedAhead(job.id) : undefined);
    },
  );

  app.post<{ Params: { id: string }; Body: Buffer }>(
    "/v1/jobs/:id/upload",
    {
      bodyLimit: context.settings.uploadLimitBytes,
      schema: {
        summary: "Upload the job's files (skill) or the deliverable (oracle run) as a zip",
        description:
          "The body is a zip: raw (Content-Type: application/zip) or the one file of a multipart/form-data form. For a skill job each file is named exactly as its file input field. Refused with nothing written: not a zip (415), too large (413), `..` entries, absolute paths, symlinks, too many files or bytes (400).",
        tags: ["jobs"],
        params: jobIdParams,
        response: {
          202: { description: "Extracted; the job is queued", ...uploadResponse },
          ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const job = await requireJob(context, request.params.id);
      if (job.status !== "waiting_upload") {
        throw new SkillrigError("job_state_conflict", `job "${job.id}" is ${job.status}, not waiting for an upload`, { field: "status" });
      }
      let body: unknown = request.body;
      if (request.isMultipart()) {
        const part = await request.file();
        if (!part)
          throw new SkillrigError("upload_not_zip", "the multipart body holds no file part", {
            hint: "send the zip as the form's one file field",
          });
        body = await part.toBuffer();
      }
      if (!Buffer.isBuffer(body) || !looksLikeZip(body)) {
        throw new SkillrigError("upload_not_zip", "the upload is not a zip archive (it does not start with a zip signature)", {
          hint: "send a zip archive as the request body (Content-Type: application/zip)",
        });
      }
      const limits = { maxFiles: context.settings.uploadMaxFiles, maxBytes: context.settings.uploadMaxExtractedBytes };
      let target: string;
      let accept: ((paths: string[]) => void) | undefined;
      if (job.kind === "skill") {
        const skill = context.execution.skill(job.skill_id!);
        target = join(context.uploadsDir, job.id);
        accept = (paths) => {
          const problem = checkUploadNames(skill, paths);
          if (problem) {
            throw new SkillrigError(problem.code, problem.message, {
              pointer: problem.violations[0]?.pointer,
              field: problem.violations[0]?.field,
              violations: problem.violations,
              hint: "nothing of this upload was written; the job still waits for an upload",
            });
          }
        };
      } else {
        target = join(job.run_dir, "deliverable");
      }
      const files = await extractZip(body, target, { ...limits, accept });
      await context.queue.record(job.id, "log", {
        stream: "skillrig",
        line: `upload extracted: ${files.map((f) => f.path).join(", ") || "(empty)"}`,
      });
      const event = await context.queue.uploaded(job.id);
      if (!event) {
        // Canceled (by the client or for waiting too long) while the zip was being extracted: drop what was written.
        await rm(target, { recursive: true, force: true });
        throw new SkillrigError("job_state_conflict", `job "${job.id}" stopped waiting for an upload while this one was read`);
      }
      return reply.code(202).send({ id: job.id, status: (await context.queue.store.get(job.id))!.status, files });
    },
  );

  app.post<{ Params: { id: string } }>(
    "/v1/jobs/:id/cancel",
    {
      schema: {
        summary: "Cancel a job that has not finished",
        tags: ["jobs"],
        params: jobIdParams,
        response: { 202: { description: "Canceled, or stopping", ...jobViewSchema }, ...errorResponses(401, 404, 409) },
      },
    },
    async (request, reply) => {
      const job = await requireJob(context, request.params.id);
      if (isTerminal(job.status) || !(await context.queue.cancel(job.id))) {
        throw new SkillrigError("job_state_conflict", `job "${job.id}" already ${job.status}; there is nothing to cancel`, {
          field: "status",
        });
      }
      return reply.code(202).send(jobView(await requireJob(context, job.id)));
    },
  );

  app.get<{ Params: { id: string } }>(
    "/v1/jobs/:id/result",
    {
      schema: {
        summary: "The finished job's result: a JobResult (skill) or a TaskReport (oracle run)",
        description: "409 until the job has finished.",
        tags: ["jobs"],
        params: jobIdParams,
        response: { 200: { type: "object", additionalProperties: true }, ...errorResponses(401, 404, 409) },
      },
    },
    async (request) => {
      const job = await requireJob(context, request.params.id);
      if (!isTerminal(job.status)) {
        throw new SkillrigError("job_state_conflict", `job "${job.id}" is ${job.status}; its result exists once it has finished`, {
          field: "status",
          hint: `follow GET /v1/jobs/${job.id}/events, or poll GET /v1/jobs/${job.id}`,
        });
      }
      if (job.result !== null) return job.result;
      // Ended without a result of its own (canceled before it ran, interrupted): the same shape, from the record.
      if (job.kind === "oracle" || job.kind === "solve") return { task_id: null, status: job.status, error: job.error, reason: job.reason };
      return {
        job_id: job.id,
        skill_id: job.skill_id,
        engine: job.engine,
        status: job.status,
        artifacts: [],
        error: job.error ?? undefined,
        reason: job.reason ?? undefined,
        run_dir: job.run_dir,
        timings: { started_at: job.started_at ?? job.created_at, finished_at: job.finished_at ?? undefined },
      };
    },
  );
}
