/**
 * A job record as it comes back from the store, checked before the server trusts it: whatever backend held it
 * (a SQLite row, a Redis hash), `storedJob` turns its fields into a typed `JobRecord` or throws an error naming the
 * job, the backend and the field at fault. The request is checked against the same schema as the body that created
 * it (a skill job's is the `POST /v1/jobs` body, so no host path of `files` can reach a worker through the store),
 * so the worker runs only what the API would have accepted.
 */
import {
  type CompiledSchema,
  compileSchema,
  type JobRequest,
  type JsonSchema,
  type JobStatus,
  type SerializedError,
  SkillrigError,
} from "@skillrig/core";
import { sharedSchemas } from "./api-schemas.js";
import type { SolveAttemptRequest } from "./job-execution.js";

/** An oracle run's request: the task's JSON text as sent (exact values); a job stored before the text was kept has `task`. */
export type OracleRunRequest = { task_text: string } | { task: Record<string, unknown> };

interface JobRecordFields {
  id: string;
  /** The tenant that submitted it: only its tokens (and an admin's) see it. */
  tenant: string;
  status: JobStatus;
  skill_id: string | null;
  engine: string | null;
  /** Whether the job waits for an upload before it is queued. */
  needs_upload: boolean;
  run_dir: string;
  /** Why a job ended the way it did beyond its error code (`interrupted`, `canceled_by_client` ...). */
  reason: string | null;
  error: SerializedError | null;
  /**
   * JobResult (skill), TaskReport (oracle) or AttemptResult (solve) once finished, as the job's run returned it:
   * served to clients as it is; what the server reads of it (its cases, its cost) is read defensively.
   */
  result: unknown;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface SkillJobRecord extends JobRecordFields {
  kind: "skill";
  request: JobRequest;
}

export interface OracleRunRecord extends JobRecordFields {
  kind: "oracle";
  request: OracleRunRequest;
}

export interface SolveAttemptRecord extends JobRecordFields {
  kind: "solve";
  request: SolveAttemptRequest;
}

/** A stored job: its `kind` says what its request is. */
export type JobRecord = SkillJobRecord | OracleRunRecord | SolveAttemptRecord;

/** skill: a skill job; oracle: an oracle run; solve: one attempt of a solve batch (engine, then hidden tests). */
export type JobKind = JobRecord["kind"];

/** What a job is created with: its kind and request go together. */
export type JobRequestOf<K extends JobKind> = Extract<JobRecord, { kind: K }>["request"];

const nullableString = { type: ["string", "null"] };

/** The task of an oracle run or solve attempt as stored: its text, or (older jobs) the parsed task. */
const storedTask = {
  oneOf: [
    { type: "object", required: ["task_text"], properties: { task_text: { type: "string" } } },
    { type: "object", required: ["task"], properties: { task: { type: "object" } } },
  ],
};

function recordSchema(kind: JobKind, request: object): JsonSchema {
  return {
    type: "object",
    required: ["id", "tenant", "kind", "status", "request", "needs_upload", "run_dir", "created_at"],
    properties: {
      id: { type: "string", minLength: 1 },
      tenant: { type: "string", minLength: 1 },
      kind: { const: kind },
      status: { enum: ["waiting_upload", "queued", "running", "succeeded", "failed", "canceled"] },
      skill_id: nullableString,
      engine: nullableString,
      request,
      needs_upload: { type: "boolean" },
      run_dir: { type: "string", minLength: 1 },
      reason: nullableString,
      error: {
        oneOf: [
          { type: "null" },
          { type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } },
        ],
      },
      created_at: { type: "string", minLength: 1 },
      queued_at: nullableString,
      started_at: nullableString,
      finished_at: nullableString,
    },
  };
}

/** The request schemas of the API, resolved here (they are written for OpenAPI with `$ref`s among them). */
function requestSchemas() {
  const shared = Object.fromEntries(sharedSchemas().map(({ $id, ...schema }) => [$id, schema]));
  const skill = shared.CreateJobRequest!;
  const solve = shared.CreateSolveAttemptRequest as { properties: Record<string, unknown> };
  return {
    skill,
    oracle: storedTask,
    solve: {
      allOf: [
        storedTask,
        {
          type: "object",
          required: ["engine", "attempt"],
          properties: {
            engine: {
              type: "object",
              required: ["name", "label"],
              properties: { name: { type: "string", minLength: 1 }, label: { type: "string", minLength: 1 }, options: { type: "object" } },
            },
            attempt: solve.properties.attempt,
            timeout_ms: solve.properties.timeout_ms,
          },
        },
      ],
    },
  };
}

type Validators = { [K in JobKind]: CompiledSchema<Extract<JobRecord, { kind: K }>> };
let validators: Validators | undefined;

function validatorsOnce(): Validators {
  if (validators) return validators;
  const requests = requestSchemas();
  validators = {
    skill: compileSchema(recordSchema("skill", requests.skill)),
    oracle: compileSchema(recordSchema("oracle", requests.oracle)),
    solve: compileSchema(recordSchema("solve", requests.solve)),
  };
  return validators;
}

function isJobKind(kind: unknown): kind is JobKind {
  return kind === "skill" || kind === "oracle" || kind === "solve";
}

/**
 * The record `fields` describe, or an error naming the job, the backend (`where`) and each field at fault. `fields`
 * is what the backend read, its JSON columns parsed; nothing of it is trusted before this.
 */
export function storedJob(fields: Record<string, unknown>, where: string): JobRecord {
  const id = typeof fields.id === "string" ? fields.id : "(no id)";
  const fail = (violations: Array<{ pointer: string; message: string }>): never => {
    const listed = violations.map((v) => `${v.pointer || "(record)"}: ${v.message}`).join("; ");
    throw new SkillrigError("unhandled", `the stored job "${id}" (${where}) is not a job record this server wrote: ${listed}`, {
      field: "id",
      violations: violations.map((v) => ({ ...v, rule: "stored job record" })),
      details: { job_id: id, store: where },
      hint: "the store was changed outside skillrig, or by a newer version of it; the job is left as it is",
    });
  };
  if (!isJobKind(fields.kind))
    return fail([{ pointer: "/kind", message: `must be skill, oracle or solve, not ${JSON.stringify(fields.kind)}` }]);
  const validator: CompiledSchema<JobRecord> = validatorsOnce()[fields.kind];
  if (validator.is(fields)) return fields;
  return fail(validator.validate(fields).map((v) => ({ pointer: v.pointer ?? "", message: v.message })));
}
