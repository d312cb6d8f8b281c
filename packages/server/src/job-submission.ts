/**
 * Creating jobs: a skill job, an oracle run, a solve attempt. Each request is checked in full before anything is
 * stored (a bad one is answered at once with every violation), then the job is created waiting for its upload or
 * queued.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { isSkillrigError, SkillrigError, type JobRequest, type LoadedTask, type Violation } from "@skillrig/core";
import { topLevelMemberText } from "@skillrig/oracle";
import { SOLVE_SKILL_ID } from "@skillrig/solve";
import type { SolveAttemptRequest } from "./job-execution.js";
import type { Caller } from "./auth.js";
import { DEFAULT_RETRY_AFTER_S } from "./http-errors.js";
import type { JobRecord, JobSubmission, Refusal } from "./job-store.js";
import { fileInputNames } from "@skillrig/skills/protocol";
import { checkJobRequest } from "@skillrig/skills";
import { checkSolveAttempt } from "./solve-attempt-check.js";
import { checkRequestedTime, checkTaskCaseTime } from "./time-bounds-check.js";
import { checkTenantBudget } from "./tenant-usage.js";
import type { ServerContext } from "./server-context.js";

/** A body as Fastify parsed it, with its JSON text when the body was JSON (exact task values are read from it). */
export interface SubmittedBody<B> {
  body: B;
  jsonText: string | null;
  /** Who submits it: the job belongs to its tenant and must fit its limits. */
  caller: Caller;
}

export async function createSkillJob(context: ServerContext, { body, caller }: SubmittedBody<JobRequest>): Promise<JobRecord> {
  const skill = context.execution.skill(body.skill_id);
  checkJobRequest(context.runner, body, { skill, client: { engineOptions: context.settings.clientEngineOptions } });
  const options = body.options as { timeout_ms?: unknown; engine?: { timeout_ms?: unknown } } | undefined;
  checkRequestedTime(
    [
      ["/options/timeout_ms", options?.timeout_ms],
      ["/options/engine/timeout_ms", options?.engine?.timeout_ms],
    ],
    context.settings.bounds,
  );
  const request: JobRequest = { skill_id: body.skill_id, engine: body.engine };
  if (body.input) request.input = body.input;
  if (body.parameter) request.parameter = body.parameter;
  if (body.prompt !== undefined) request.prompt = body.prompt;
  if (body.options) request.options = body.options;
  await checkTenantBudget(context, caller.tenant);
  return newJob(context, caller, {
    kind: "skill",
    skill_id: skill.id,
    engine: body.engine,
    request,
    needs_upload: fileInputNames(skill).length > 0,
  });
}

export async function createOracleRun(
  context: ServerContext,
  submitted: SubmittedBody<{ task: Record<string, unknown> }>,
): Promise<JobRecord> {
  const taskText = checkTask(context, submitted);
  return newJob(context, submitted.caller, { kind: "oracle", request: { task_text: taskText }, needs_upload: true });
}

export async function createSolveAttempt(
  context: ServerContext,
  submitted: SubmittedBody<SolveAttemptRequest & { task: Record<string, unknown> }>,
): Promise<JobRecord> {
  const { body } = submitted;
  const taskText = checkTask(context, submitted);
  checkSolveAttempt(context.runner, body.engine, context.settings.clientEngineOptions);
  checkRequestedTime(
    [
      ["/timeout_ms", body.timeout_ms],
      ["/engine/options/timeout_ms", body.engine.options?.timeout_ms],
    ],
    context.settings.bounds,
  );
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
  await checkTenantBudget(context, submitted.caller.tenant);
  return newJob(context, submitted.caller, {
    kind: "solve",
    skill_id: SOLVE_SKILL_ID,
    engine: body.engine.name,
    request: attempt,
    needs_upload: false,
  });
}

/**
 * Stores the job if it fits its tenant's limits, then the server's (checked where it is stored, atomically); a job
 * that does not is refused with 429 naming the limit, and nothing is stored.
 */
async function newJob(context: ServerContext, caller: Caller, fields: JobSubmission): Promise<JobRecord> {
  const id = randomUUID();
  const tenant = caller.tenant;
  const created = await context.queue.create(
    { id, tenant: tenant.name, run_dir: join(context.runsDir, id), ...fields },
    {
      tenantQueueLimit: tenant.limits.queueLimit,
      tenantWaitingUploadLimit: tenant.limits.waitingUploadLimit,
      queueLimit: context.settings.queueLimit,
    },
  );
  if ("refused" in created) throw refusalError(tenant.name, created.refused);
  return created;
}

function refusalError(tenant: string, refused: Refusal): SkillrigError {
  const details = { count: refused.count, max: refused.max, retry_after_s: DEFAULT_RETRY_AFTER_S };
  if (refused.limit === "server.queue_limit") {
    return new SkillrigError("queue_full", `the queue is full: ${refused.count} jobs are waiting (server.queue_limit is ${refused.max})`, {
      field: "server.queue_limit",
      hint: "retry later",
      details: { limit: "server.queue_limit", waiting: refused.count, queue_limit: refused.max, ...details },
    });
  }
  const limit = `server.tenants.${tenant}.${refused.limit}`;
  const what = refused.limit === "queue_limit" ? "jobs waiting to run (waiting_upload + queued)" : "jobs waiting for their upload";
  return new SkillrigError("quota_exceeded", `tenant "${tenant}" has ${refused.count} ${what}; its ${limit} is ${refused.max}`, {
    field: limit,
    hint:
      refused.limit === "queue_limit"
        ? "retry once some of its jobs have started; other tenants are not affected"
        : "upload the files of the jobs already waiting (or cancel them; unused ones expire after server.upload_wait_ms)",
    details: { limit, tenant, ...details },
  });
}

/**
 * Reads and validates the task of a request body (`task`), violations pointing under /task. The task is read from
 * the body's own text, as a local run reads a task file: numbers exactly as written (`3.0` stays a float, integers
 * past 2^53 keep their digits, `1e400` is a float), keys repeated within an object refused. Returns that text, which
 * is what the job stores and the worker reads again.
 */
function checkTask(context: ServerContext, { body, jsonText }: SubmittedBody<{ task: unknown }>): string {
  const text = (jsonText !== null ? topLevelMemberText(jsonText, "task") : undefined) ?? JSON.stringify(body.task);
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
  checkTaskCaseTime(loaded.task, context.settings.bounds, context.runner.config.oracle?.timeout_ms);
  return text;
}
