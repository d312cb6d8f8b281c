/**
 * Skill jobs, oracle runs and solve attempts: create, upload, look at, cancel, result. Each route is its schema
 * (job-route-schemas.ts, what /v1/openapi.json shows) and one call: creating is job-submission.ts, receiving an
 * upload is job-upload.ts, reading is the store's.
 */
import { SkillrigError, type JobRequest } from "@skillrig/core";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { SolveAttemptRequest } from "../job-execution.js";
import { isTerminal, type JobRecord } from "../job-store.js";
import { createOracleRun, createSkillJob, createSolveAttempt } from "../job-submission.js";
import { parseListQuery, type ListParameters } from "../job-listing.js";
import { receiveUpload } from "../job-upload.js";
import { forClient, jobInputs, jobView, requireJob } from "../job-view.js";
import type { ServerContext } from "../server-context.js";
import * as route from "./job-route-schemas.js";

type ById = { Params: { id: string } };

export function jobRoutes(app: FastifyInstance, context: ServerContext): void {
  app.post<{ Body: JobRequest }>("/v1/jobs", { schema: route.createJobRoute }, async (request, reply) =>
    created(reply, await createSkillJob(context, request)),
  );
  app.post<{ Body: { task: Record<string, unknown> } }>("/v1/oracle/runs", { schema: route.createOracleRunRoute }, async (request, reply) =>
    created(reply, await createOracleRun(context, request)),
  );
  app.post<{ Body: SolveAttemptRequest & { task: Record<string, unknown> } }>(
    "/v1/solve/attempts",
    { schema: route.createSolveAttemptRoute },
    async (request, reply) => created(reply, await createSolveAttempt(context, request)),
  );
  app.get<{ Querystring: ListParameters }>("/v1/jobs", { schema: route.listJobsRoute }, async (request) => {
    const page = await context.queue.store.list(parseListQuery(request.query, request.caller));
    return { jobs: page.jobs.map((job) => jobView(job)), next_cursor: page.next_cursor };
  });
  app.get<ById>("/v1/jobs/:id", { schema: route.getJobRoute }, async (request) => {
    const job = await requireJob(context, request.params.id, request.caller);
    const view = jobView(job, job.status === "queued" ? await context.queue.store.queuedAhead(job.id) : undefined);
    // Only here, not in the list: each job's run.json would be one more file read per listed job.
    return { ...view, inputs: await jobInputs(job) };
  });
  app.post<ById & { Body: Buffer }>(
    "/v1/jobs/:id/upload",
    { bodyLimit: context.settings.uploadLimitBytes, schema: route.uploadRoute },
    async (request, reply) => {
      const job = await requireJob(context, request.params.id, request.caller);
      const files = await receiveUpload(context, job, request);
      return reply.code(202).send({ id: job.id, status: (await context.queue.store.get(job.id))!.status, files });
    },
  );
  app.post<ById>("/v1/jobs/:id/cancel", { schema: route.cancelRoute }, async (request, reply) => {
    const job = await requireJob(context, request.params.id, request.caller);
    if (isTerminal(job.status) || !(await context.queue.cancel(job.id))) {
      throw new SkillrigError("job_state_conflict", `job "${job.id}" already ${job.status}; there is nothing to cancel`, {
        field: "status",
      });
    }
    return reply.code(202).send(jobView(await requireJob(context, job.id, request.caller)));
  });
  // The result is sent as stored (less server paths): its schema documents three shapes, and fast-json-stringify
  // would drop whatever a shape does not list.
  app.get<ById>("/v1/jobs/:id/result", { schema: route.resultRoute, serializerCompiler: () => JSON.stringify }, async (request) => {
    const job = await requireJob(context, request.params.id, request.caller);
    return forClient(job, resultOf(job));
  });
}

/** 201 with the new job's view and its address. */
function created(reply: FastifyReply, job: JobRecord): FastifyReply {
  return reply.code(201).header("location", `/v1/jobs/${job.id}`).send(jobView(job));
}

/** A finished job's result; a job that ended without one of its own (canceled before it ran) gets the same shape from its record. */
function resultOf(job: JobRecord): unknown {
  if (!isTerminal(job.status)) {
    throw new SkillrigError("job_state_conflict", `job "${job.id}" is ${job.status}; its result exists once it has finished`, {
      field: "status",
      hint: `follow GET /v1/jobs/${job.id}/events, or poll GET /v1/jobs/${job.id}`,
    });
  }
  if (job.result !== null) return job.result;
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
}
