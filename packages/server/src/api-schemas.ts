/**
 * The JSON Schemas of the API. Fastify validates requests with them and @fastify/swagger turns the very same
 * objects into /v1/openapi.json, so the document cannot drift from what the server accepts.
 * Response schemas leave nested free-form values (outputs, reports, schemas) open.
 */

const errorObject = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: "Stable error code (see docs/server.md)" },
    message: { type: "string" },
    file: { type: "string" },
    pointer: { type: "string", description: "RFC 6901 JSON pointer into the request body (or into `file`)" },
    field: { type: "string" },
    line: { type: "integer" },
    hint: { type: "string" },
    violations: {
      type: "array",
      items: {
        type: "object",
        required: ["message"],
        properties: {
          pointer: { type: "string" },
          message: { type: "string" },
          rule: { type: "string" },
          field: { type: "string" },
          file: { type: "string" },
        },
      },
    },
    details: { type: "object", additionalProperties: true },
  },
} as const;

export const errorResponse = {
  type: "object",
  required: ["error"],
  properties: { error: errorObject },
} as const;

/** Every route may answer 403 on a loopback server (the Host/Origin check runs before any route). */
const errorResponses = (...codes: number[]) =>
  Object.fromEntries(
    [...codes, 403].sort((a, b) => a - b).map((code) => [code, { description: ERROR_DESCRIPTIONS[code] ?? "Error", ...errorResponse }]),
  );

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Bad request (unknown engine, unsafe zip, malformed body)",
  401: "Missing or wrong bearer token",
  403: "A loopback server refused the request: its Host is not a loopback name with the server's port, or its Origin is not the server's own",
  404: "No such job or skill",
  409: "The job is not in a state that allows this",
  413: "Upload larger than server.upload_limit_bytes",
  415: "Upload is not a zip",
  422: "Schema violations, each with its JSON pointer; a body or task past a limit (server.json_max_depth, the task depth, server.task_max_cases)",
  429: "The tenant is at one of its own limits (quota_exceeded, details.limit names it) or the queue is full (queue_full, server.queue_limit); Retry-After says when to try again",
};

export const jobStatus = { type: "string", enum: ["waiting_upload", "queued", "running", "succeeded", "failed", "canceled"] } as const;

export const jobIdParams = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", minLength: 1, maxLength: 200, description: "Job id" } },
} as const;

export const jobView = {
  type: "object",
  required: ["id", "kind", "status", "created_at"],
  properties: {
    id: { type: "string" },
    kind: { type: "string", enum: ["skill", "oracle", "solve"] },
    status: jobStatus,
    skill_id: { type: "string", nullable: true },
    engine: { type: "string", nullable: true },
    reason: { type: "string", nullable: true, description: "Why it ended so: interrupted, canceled_by_client ..." },
    error: { ...errorObject, nullable: true },
    needs_upload: { type: "boolean" },
    created_at: { type: "string", format: "date-time" },
    queued_at: { type: "string", format: "date-time", nullable: true },
    started_at: { type: "string", format: "date-time", nullable: true },
    finished_at: { type: "string", format: "date-time", nullable: true },
    duration_ms: { type: "integer", nullable: true },
    queue_position: { type: "integer", description: "Queued jobs only (GET /v1/jobs/{id}): how many queued jobs start before this one" },
    links: { type: "object", additionalProperties: { type: "string" } },
  },
} as const;

export const createJobBody = {
  type: "object",
  required: ["skill_id", "engine"],
  additionalProperties: false,
  properties: {
    skill_id: { type: "string", minLength: 1, maxLength: 200 },
    engine: { type: "string", minLength: 1, maxLength: 100 },
    input: {
      type: "object",
      description: "Inline inputs (x-input-source: inline); file inputs come by upload",
      additionalProperties: true,
    },
    parameter: { type: "object", additionalProperties: true },
    prompt: {
      type: "string",
      maxLength: 200_000,
      description:
        "The prompt, as is, of a plain Agent Skill (SKILL.md, no assets/runner.json); required for one, refused for a runner.json skill",
    },
    options: {
      type: "object",
      additionalProperties: false,
      properties: {
        timeout_ms: { type: "integer", minimum: 1 },
        dry_run: { type: "boolean", description: "Stop after rendering the prompt" },
        engine: { type: "object", additionalProperties: true, description: "Options for the engine plugin" },
        skill_install: {
          type: "string",
          enum: ["referenced", "discoverable", "none"],
          description:
            "How the agent gets the skill: installed and named in the engine's context file (referenced, the default), installed where the engine discovers skills but not named (discoverable), or not installed (none). The skill's evals/ folder is never installed.",
        },
      },
    },
  },
} as const;

export const createOracleRunBody = {
  type: "object",
  required: ["task"],
  additionalProperties: false,
  properties: {
    task: { type: "object", additionalProperties: true, description: "A task file (Task Oracle Input Contract v1.0)" },
  },
} as const;

export const createSolveAttemptBody = {
  type: "object",
  required: ["task", "engine", "attempt"],
  additionalProperties: false,
  properties: {
    task: {
      type: "object",
      additionalProperties: true,
      description: "The task as the batch scores it (Task Oracle Input Contract v1.0), hidden tests included; they never reach the engine",
    },
    engine: {
      type: "object",
      required: ["name"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1, maxLength: 100, description: "The engine plugin" },
        label: { type: "string", minLength: 1, maxLength: 200, description: "How the report names it (default: name)" },
        options: { type: "object", additionalProperties: true, description: "Engine options (limited to server.client_engine_options)" },
      },
    },
    attempt: { type: "integer", minimum: 1, maximum: 100000 },
    timeout_ms: { type: "integer", minimum: 1 },
  },
} as const;

export const uploadResponse = {
  type: "object",
  required: ["id", "status", "files"],
  properties: {
    id: { type: "string" },
    status: jobStatus,
    files: { type: "array", items: { type: "object", properties: { path: { type: "string" }, bytes: { type: "integer" } } } },
  },
} as const;

export const artifactView = {
  type: "object",
  required: ["field", "role", "filename", "bytes", "url"],
  properties: {
    field: { type: "string" },
    role: { type: "string" },
    filename: { type: "string" },
    path: { type: "string", description: "Path inside the run folder" },
    bytes: { type: "integer" },
    url: { type: "string" },
  },
} as const;

export const skillSummary = {
  type: "object",
  required: ["id", "name", "engines"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    description: { type: "string" },
    version: { type: "string" },
    engines: { type: "array", items: { type: "string" } },
    file_inputs: { type: "array", items: { type: "string" } },
    inline_inputs: { type: "array", items: { type: "string" } },
    kind: {
      type: "string",
      enum: ["runner", "plain"],
      description:
        "plain: a plain Agent Skill (SKILL.md, no assets/runner.json): a job gives `prompt`, any engine, the output is the final answer text",
    },
  },
} as const;

export const skillDetail = {
  type: "object",
  required: ["id", "name", "engines", "schemas"],
  properties: {
    ...skillSummary.properties,
    schemas: {
      type: "object",
      description: "The skill's JSON Schemas, for building forms",
      properties: {
        input: { type: "object", additionalProperties: true, nullable: true },
        parameter: { type: "object", additionalProperties: true, nullable: true },
        output: { type: "object", additionalProperties: true, nullable: true },
      },
    },
    artifacts: {
      type: "array",
      items: {
        type: "object",
        properties: { field: { type: "string" }, role: { type: "string" }, filename: { type: "string" }, required: { type: "boolean" } },
      },
    },
  },
} as const;

export const responses = { errorResponses };
