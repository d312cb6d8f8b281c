/**
 * The JSON Schemas of the API. Fastify validates requests with them and @fastify/swagger turns the very same
 * objects into /v1/openapi.json, so the document cannot drift from what the server accepts.
 *
 * The shapes clients name (Job, JobResult, TaskReport, Error, Skill ...) are shared schemas: `sharedSchemas` is
 * added to the app with `addSchema`, routes point at them with `ref("Job")`, and the document lists them once under
 * `components.schemas`, so a generated client gets one named type per shape instead of an anonymous one per route.
 * Response schemas leave nested free-form values (outputs, reports, schemas) open.
 */

/** A reference to a shared schema, by its `$id` (what `components.schemas` names it). */
export function ref(id: string): { $ref: string } {
  return { $ref: `${id}#` };
}

const violationObject = {
  type: "object",
  required: ["message"],
  properties: {
    pointer: { type: "string" },
    message: { type: "string" },
    rule: { type: "string" },
    field: { type: "string" },
    file: { type: "string" },
  },
} as const;

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
    violations: { type: "array", items: violationObject },
    details: { type: "object", additionalProperties: true },
  },
} as const;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Bad request: unknown engine (engine_not_found), unsafe zip (upload_unsafe), malformed body or query (usage)",
  401: "Missing or wrong bearer token (unauthorized)",
  403: "A loopback server refused the request: its Host is not a loopback name with the server's port, or its Origin is not the server's own (forbidden_host, forbidden_origin)",
  404: "No such job, skill or artifact (job_not_found, skill_not_found)",
  409: "The job is not in a state that allows this (job_state_conflict)",
  413: "Body larger than server.upload_limit_bytes (upload_too_large) or server.json_body_limit_bytes (usage)",
  415: "Upload is not a zip (upload_not_zip)",
  422: "Schema violations, each with its JSON pointer (schema_violation, invalid_task); an upload that does not fit the skill's file inputs, naming the field and the file (input_invalid, input_missing_file); a body or task past a limit (server.json_max_depth, the task depth, server.task_max_cases)",
  429: "The tenant is at one of its own limits (quota_exceeded, details.limit names it) or the queue is full (queue_full, server.queue_limit); Retry-After says when to try again",
};

/**
 * The documented error answers of a route: each the `ErrorResponse` body, as JSON whatever the route sends when it
 * succeeds (a file, a zip, an event stream). Every route may answer 403 on a loopback server (the Host/Origin check
 * runs before any route).
 */
function errorResponses(...codes: number[]) {
  return Object.fromEntries(
    [...new Set([...codes, 403])]
      .sort((a, b) => a - b)
      .map((code) => [
        code,
        { description: ERROR_DESCRIPTIONS[code] ?? "Error", content: { "application/json": { schema: ref("ErrorResponse") } } },
      ]),
  );
}

/** A success answer that is not JSON: a file, a zip, an event stream. */
export function bodyOf(mediaType: string, description: string) {
  return { description, content: { [mediaType]: { schema: { type: "string", format: "binary" } } } };
}

const JOB_STATUSES = ["waiting_upload", "queued", "running", "succeeded", "failed", "canceled"] as const;
const JOB_KINDS = ["skill", "oracle", "solve"] as const;

const jobStatus = { type: "string", enum: JOB_STATUSES } as const;

export const jobIdParams = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", minLength: 1, maxLength: 200, description: "Job id" } },
} as const;

const caseCounts = {
  type: "object",
  required: ["total", "passed", "failed", "errored", "invalid"],
  properties: {
    total: { type: "integer" },
    passed: { type: "integer" },
    failed: { type: "integer" },
    errored: { type: "integer", description: "Cases that errored, timed out or hit a limit" },
    invalid: { type: "integer", description: "Cases whose test is malformed (invalid_test_format)" },
  },
} as const;

const job = {
  type: "object",
  required: ["id", "kind", "status", "created_at", "summary"],
  properties: {
    id: { type: "string" },
    kind: { type: "string", enum: JOB_KINDS },
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
    summary: {
      ...caseCounts,
      nullable: true,
      description:
        "An oracle run or solve attempt that finished: its cases' verdicts (null otherwise). A job whose cases did not all pass still has status `succeeded` (the machinery worked): the verdict is here.",
    },
    inputs: {
      type: "object",
      nullable: true,
      required: ["input", "parameter", "files"],
      description:
        "GET /v1/jobs/{id} of a skill job only (not in the list): what the job really got, once its inputs are resolved (null before; always null for an oracle run or a solve attempt, whose request holds hidden expected values). A file input's value is its `uploads/<field>` path in the run folder.",
      properties: {
        input: { type: "object", additionalProperties: true },
        parameter: { type: "object", additionalProperties: true, description: "With the schema's defaults applied" },
        files: {
          type: "array",
          items: {
            type: "object",
            required: ["field", "name", "size"],
            properties: {
              field: { type: "string" },
              name: { type: "string", description: "The name the file was given (else its field)" },
              size: { type: "integer", description: "Bytes" },
            },
          },
        },
      },
    },
    links: { type: "object", additionalProperties: { type: "string" } },
  },
} as const;

const caseVerdict = {
  type: "object",
  required: ["name", "index", "status"],
  additionalProperties: true,
  properties: {
    name: { type: "string" },
    index: { type: "integer" },
    status: { type: "string", enum: ["passed", "failed", "error", "timeout", "memory_limit", "output_limit", "invalid_test_format"] },
    duration_ms: { type: "number" },
    input: {},
    expected: {},
    actual: {},
    message: { type: "string" },
    diff: { type: "string" },
    details: { type: "object", additionalProperties: true },
  },
} as const;

const artifact = {
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

const skill = {
  type: "object",
  required: ["id", "name", "engines"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    description: { type: "string" },
    version: { type: "string" },
    engines: {
      type: "array",
      items: { type: "string" },
      description:
        "Engines this server can run the skill with: those the skill supports that a loaded plugin claims (all of the server's engines for a skill that runs on any: a plain skill, or a runner.json that names none). Empty: none of the skill's engines is loaded here",
    },
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

/** Every shared schema, by the name the document gives it (`components.schemas.<id>`). */
const SHARED = {
  Violation: violationObject,
  Error: errorObject,
  ErrorResponse: {
    type: "object",
    required: ["error"],
    description: "Every error answer: never a stack trace",
    properties: { error: ref("Error") },
  },
  CaseCounts: caseCounts,
  Job: job,
  JobList: {
    type: "object",
    required: ["jobs", "next_cursor"],
    properties: {
      jobs: { type: "array", items: ref("Job") },
      next_cursor: { type: "string", nullable: true, description: "Pass as `cursor` for the next (older) page; null on the last page" },
    },
  },
  CreateJobRequest: {
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
          max_cost_usd: {
            type: "number",
            minimum: 0.000001,
            description: "Stop the engine once its model calls cost this much (USD): cost_limit",
          },
          max_tokens: {
            type: "integer",
            minimum: 1,
            description: "Stop the engine once its model calls used this many tokens: cost_limit",
          },
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
  },
  CreateOracleRunRequest: {
    type: "object",
    required: ["task"],
    additionalProperties: false,
    properties: {
      task: { type: "object", additionalProperties: true, description: "A task file (Task Oracle Input Contract v1.0)" },
    },
  },
  CreateSolveAttemptRequest: {
    type: "object",
    required: ["task", "engine", "attempt"],
    additionalProperties: false,
    properties: {
      task: {
        type: "object",
        additionalProperties: true,
        description:
          "The task as the batch scores it (Task Oracle Input Contract v1.0), hidden tests included; they never reach the engine",
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
  },
  UploadReceipt: {
    type: "object",
    required: ["id", "status", "files"],
    properties: {
      id: { type: "string" },
      status: jobStatus,
      files: {
        type: "array",
        items: {
          type: "object",
          required: ["path", "bytes"],
          properties: {
            path: { type: "string", description: "Where the file landed, relative to uploads/ (skill) or deliverable/ (oracle run)" },
            entry: { type: "string", description: "Its name in the zip, when that differs (`uploads/<field>`)" },
            bytes: { type: "integer" },
          },
        },
      },
    },
  },
  CaseVerdict: caseVerdict,
  // The report schemas below say what the server knows of each shape; the full schemas are the producing packages'
  // (`@skillrig/oracle/task-report.schema.json`, `@skillrig/skills/job-result.schema.json`, ...). Each stays open
  // (additionalProperties) so a field added there passes through.
  JobResult: {
    type: "object",
    required: ["job_id", "skill_id", "engine", "status", "artifacts"],
    additionalProperties: true,
    description: "A skill job's result (result.json); paths are relative to the job's run folder",
    properties: {
      job_id: { type: "string" },
      skill_id: { type: "string" },
      engine: { type: "string" },
      status: jobStatus,
      output: {},
      artifacts: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: true,
          properties: {
            field: { type: "string" },
            role: { type: "string" },
            filename: { type: "string" },
            path: { type: "string", description: "Relative to the run folder" },
            relativePath: { type: "string" },
            bytes: { type: "integer" },
          },
        },
      },
      error: ref("Error"),
      reason: { type: "string" },
      run_dir: { type: "string", description: "Always `.`: the job's run folder, which the server does not name" },
      prompt: { type: "string" },
      timings: { type: "object", additionalProperties: true },
      usage: { type: "object", additionalProperties: true },
      warnings: { type: "array", items: { type: "string" } },
    },
  },
  TaskReport: {
    type: "object",
    additionalProperties: true,
    description: "An oracle run's report (one task, as `skillrig test --json` writes it)",
    properties: {
      kind: { type: "string", enum: ["skillrig-task-report"] },
      version: { type: "integer" },
      task_id: { type: "string", nullable: true },
      deliverable_type: { type: "string" },
      summary: caseCounts,
      cases: { type: "array", items: ref("CaseVerdict") },
      isolation: { type: "string" },
      warnings: { type: "array", items: { type: "string" } },
      duration_ms: { type: "number" },
      status: { type: "string", description: "Only when the run ended without a report (canceled, failed): its job status" },
      error: ref("Error"),
    },
  },
  AttemptResult: {
    type: "object",
    additionalProperties: true,
    description: "A solve attempt's result, as the solve report lists it",
    properties: {
      task_id: { type: "string", nullable: true },
      engine: { type: "string" },
      attempt: { type: "integer" },
      status: { type: "string" },
      message: { type: "string" },
      score: { type: "object", properties: { passed: { type: "integer" }, total: { type: "integer" } } },
      cases: { type: "array", items: ref("CaseVerdict") },
      error: ref("Error"),
    },
  },
  SuiteReport: {
    type: "object",
    additionalProperties: true,
    description: "A suite report (`skillrig test --server` over several tasks or samples builds it on the client from TaskReports)",
    properties: {
      kind: { type: "string", enum: ["skillrig-suite-report"] },
      version: { type: "integer" },
      summary: { type: "object", additionalProperties: true },
      pass_at_k: { type: "object", additionalProperties: true },
      tasks: { type: "array", items: { type: "object", additionalProperties: true } },
    },
  },
  SolveReport: {
    type: "object",
    additionalProperties: true,
    description: "A solve report (`skillrig solve --server` builds it on the client from AttemptResults)",
    properties: {
      kind: { type: "string", enum: ["skillrig-solve-report"] },
      version: { type: "integer" },
      engines: { type: "array", items: { type: "object", additionalProperties: true } },
      tasks: { type: "array", items: { type: "object", additionalProperties: true } },
      summary: { type: "object", additionalProperties: true },
    },
  },
  Artifact: artifact,
  ArtifactList: { type: "object", required: ["artifacts"], properties: { artifacts: { type: "array", items: ref("Artifact") } } },
  Skill: skill,
  SkillDetail: {
    type: "object",
    required: ["id", "name", "engines", "schemas"],
    properties: {
      ...skill.properties,
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
  },
  SkillList: {
    type: "object",
    required: ["skills", "broken"],
    properties: {
      skills: { type: "array", items: ref("Skill") },
      broken: {
        type: "array",
        description: "Skill folders that failed to load, and why",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } },
          },
        },
      },
    },
  },
  Engine: {
    type: "object",
    required: ["name", "plugin"],
    properties: { name: { type: "string" }, plugin: { type: "string" }, info: { type: "object", additionalProperties: true } },
  },
  EngineList: { type: "object", required: ["engines"], properties: { engines: { type: "array", items: ref("Engine") } } },
  TenantUsage: {
    type: "object",
    required: ["tenant", "days"],
    properties: {
      tenant: { type: "string" },
      max_cost_usd_per_day: { type: "number", description: "The tenant's daily cost budget, when it has one" },
      max_tokens_per_day: { type: "integer", description: "The tenant's daily token budget, when it has one" },
      days: {
        type: "array",
        description: "Each UTC day asked for, oldest first (a day without jobs reads as zeros)",
        items: {
          type: "object",
          required: ["day", "cost_usd", "tokens", "jobs", "unpriced_jobs"],
          properties: {
            day: { type: "string", format: "date" },
            cost_usd: { type: "number", description: "USD of the day's priced jobs" },
            tokens: { type: "integer" },
            jobs: { type: "integer", description: "Finished skill jobs and solve attempts" },
            unpriced_jobs: { type: "integer", description: "Jobs whose model has no price (their cost is not in cost_usd)" },
          },
        },
      },
    },
  },
  Health: {
    type: "object",
    properties: {
      ok: { type: "boolean" },
      version: { type: "string" },
      running: { type: "integer" },
      queued: { type: "integer" },
      waiting_upload: { type: "integer" },
      concurrency: { type: "integer" },
    },
  },
} as const;

/** The shared schemas, each with its `$id`, for `app.addSchema`. */
export function sharedSchemas(): Array<Record<string, unknown> & { $id: string }> {
  return Object.entries(SHARED).map(([id, schema]) => ({ $id: id, ...structuredClone(schema as Record<string, unknown>) }));
}

export const responses = { errorResponses };
