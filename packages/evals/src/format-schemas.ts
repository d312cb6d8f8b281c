/**
 * JSON Schemas of the files `skillrig eval` writes, as this package's format.ts types them, shipped beside the types
 * (`@skillrig/evals/format`) so a reader checks a file against the writer's own schema: the viewer checks every
 * file it reads against these, so a hand-edited or truncated file is reported with its JSON pointer, never trusted
 * or rendered half-understood. Extra keys are allowed (a newer writer may add fields); what the types require is
 * required, with its type. packages/view's test/eval-schemas.test.ts checks a complete, typed value of each passes.
 */
import type { JsonSchema } from "@skillrig/core";

import type { Configuration, RunAnswer } from "./format.js";

// Listed here rather than imported from format.ts, which re-exports this module (a value import back would be a
// circle); the types hold each list to every word of its union.
const CONFIGURATIONS = ["with_skill", "without_skill", "old_skill", "inline_skill"] satisfies Configuration[];
const RUN_STATUSES = ["succeeded", "failed", "canceled"] satisfies RunAnswer["status"][];
type Exhaustive<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : never;
const everyWordListed: [
  Exhaustive<Configuration, (typeof CONFIGURATIONS)[number]>,
  Exhaustive<RunAnswer["status"], (typeof RUN_STATUSES)[number]>,
] = [true, true];
void everyWordListed;

const rate = { type: "number", minimum: 0, maximum: 1 };
const count = { type: "integer", minimum: 0 };
const evalId = { type: ["integer", "string"] };
const strings = { type: "array", items: { type: "string" } };

const stat = {
  type: "object",
  required: ["mean", "stddev"],
  properties: { mean: { type: "number" }, stddev: { type: "number" }, min: { type: "number" }, max: { type: "number" } },
};

const definitions = {
  configurationSummary: {
    type: "object",
    required: ["pass_rate", "time_seconds", "tokens", "runs"],
    properties: {
      pass_rate: stat,
      time_seconds: stat,
      tokens: stat,
      runs: count,
      cost_usd: {
        type: "object",
        required: ["total", "mean", "unpriced_runs"],
        properties: { total: { type: "number", minimum: 0 }, mean: { type: "number", minimum: 0 }, unpriced_runs: count },
      },
    },
  },
  delta: {
    type: "object",
    required: ["of", "pass_rate", "time_seconds", "tokens"],
    properties: {
      of: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 2 },
      pass_rate: { type: "number" },
      time_seconds: { type: "number" },
      tokens: { type: "number" },
      paired: {
        type: "object",
        properties: { pass_rate: { $ref: "#/definitions/pairedDelta" } },
      },
      cost_usd: {
        type: "object",
        required: ["before", "after", "delta"],
        properties: { before: { type: "number" }, after: { type: "number" }, delta: { type: "number" } },
      },
    },
  },
  /** @skillrig/stats' delta object: what every comparison shows. */
  pairedDelta: {
    type: "object",
    required: ["before", "after", "delta", "ci95", "p_value", "pairs"],
    properties: {
      before: { type: ["number", "null"] },
      after: { type: ["number", "null"] },
      delta: { type: ["number", "null"] },
      ci95: { oneOf: [{ type: "null" }, { type: "array", items: { type: "number" }, minItems: 2, maxItems: 2 }] },
      p_value: { type: ["number", "null"], minimum: 0, maximum: 1 },
      pairs: count,
    },
  },
  runSummary: {
    type: "object",
    properties: { delta: { $ref: "#/definitions/delta" } },
    additionalProperties: { $ref: "#/definitions/configurationSummary" },
  },
};

export const ITERATION_SCHEMA: JsonSchema = {
  type: "object",
  required: [
    "format",
    "version",
    "skill_name",
    "skill_path",
    "iteration",
    "started_at",
    "engines",
    "configurations",
    "runs_per_configuration",
    "status",
  ],
  properties: {
    format: { const: "skillrig-eval-iteration" },
    version: { const: 1 },
    skill_name: { type: "string" },
    skill_path: { type: "string" },
    iteration: { type: "integer", minimum: 1 },
    started_at: { type: "string" },
    finished_at: { type: "string" },
    engines: strings,
    configurations: { type: "array", items: { enum: CONFIGURATIONS } },
    runs_per_configuration: count,
    judge: { type: "string" },
    baseline_path: { type: "string" },
    status: { enum: ["running", "finished", "passed", "failed", "error"] },
    min_pass_rate: { type: "number" },
    fail_on: { enum: ["regression", "significant", "never"] },
    compared_with: { type: "integer", minimum: 1 },
    inline_skill: {
      type: "object",
      required: ["files", "bytes", "max_bytes"],
      properties: {
        files: {
          type: "array",
          items: { type: "object", required: ["path", "bytes"], properties: { path: { type: "string" }, bytes: count } },
        },
        bytes: count,
        max_bytes: count,
        left_out: {
          type: "array",
          items: { type: "object", required: ["path", "reason"], properties: { path: { type: "string" }, reason: { type: "string" } } },
        },
      },
    },
    distractors_path: { type: "string" },
    stopped: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { const: "cost_limit" }, message: { type: "string" } },
    },
  },
};

export const BENCHMARK_SCHEMA: JsonSchema = {
  type: "object",
  definitions,
  required: ["format", "version", "metadata", "run_summary", "by_engine", "runs", "by_eval"],
  properties: {
    format: { const: "skillrig-eval-benchmark" },
    version: { const: 1 },
    metadata: {
      type: "object",
      required: ["skill_name", "skill_path", "iteration", "timestamp", "engines", "configurations", "evals_run", "runs_per_configuration"],
      properties: {
        skill_name: { type: "string" },
        skill_path: { type: "string" },
        iteration: { type: "integer", minimum: 1 },
        timestamp: { type: "string" },
        engines: strings,
        configurations: { type: "array", items: { enum: CONFIGURATIONS } },
        evals_run: { type: "array", items: evalId },
        runs_per_configuration: count,
        judge: { type: "string" },
      },
    },
    run_summary: { $ref: "#/definitions/runSummary" },
    by_engine: { type: "object", additionalProperties: { $ref: "#/definitions/runSummary" } },
    runs: {
      type: "array",
      items: {
        type: "object",
        required: ["eval_id", "configuration", "engine", "run_number", "path", "result"],
        properties: {
          eval_id: evalId,
          configuration: { enum: CONFIGURATIONS },
          engine: { type: "string" },
          run_number: { type: "integer", minimum: 1 },
          path: { type: "string" },
          result: {
            type: "object",
            required: ["status", "pass_rate", "passed", "failed", "total", "time_seconds", "tokens"],
            properties: {
              status: { enum: RUN_STATUSES },
              pass_rate: rate,
              passed: count,
              failed: count,
              total: count,
              time_seconds: { type: "number", minimum: 0 },
              tokens: { type: "number", minimum: 0 },
              cost_usd: { type: ["number", "null"], minimum: 0 },
            },
          },
        },
      },
    },
    by_eval: {
      type: "array",
      items: {
        type: "object",
        required: ["eval_id", "configuration", "pass_rate"],
        properties: { eval_id: evalId, configuration: { enum: CONFIGURATIONS }, pass_rate: rate },
      },
    },
    deltas: {
      type: "array",
      items: {
        allOf: [{ $ref: "#/definitions/delta" }],
        type: "object",
        required: ["engine"],
        properties: { engine: { type: ["string", "null"] } },
      },
    },
  },
};

const firedList = { type: "array", items: { type: ["string", "null"] } };
const countOfN = {
  type: "object",
  required: ["count", "n", "rate", "ci95"],
  properties: {
    count: count,
    n: count,
    rate: { oneOf: [{ type: "null" }, rate] },
    ci95: { oneOf: [{ type: "null" }, { type: "array", items: rate, minItems: 2, maxItems: 2 }] },
  },
};

const splitCount = { type: "object", required: ["passed", "total"], properties: { passed: count, total: count } };

export const TRIGGERS_SCHEMA: JsonSchema = {
  type: "object",
  required: ["format", "version", "skill_name", "runs_per_query", "threshold", "queries", "summary"],
  properties: {
    format: { const: "skillrig-trigger-report" },
    version: { const: 1 },
    skill_name: { type: "string" },
    runs_per_query: count,
    threshold: rate,
    queries: {
      type: "array",
      items: {
        type: "object",
        required: ["query", "should_trigger", "split", "engine", "triggers", "runs", "trigger_rate", "passed", "jobs"],
        properties: {
          query: { type: "string" },
          should_trigger: { type: "boolean" },
          split: { enum: ["train", "validation"] },
          engine: { type: "string" },
          triggers: count,
          runs: count,
          trigger_rate: rate,
          trigger_rate_ci95: { oneOf: [{ type: "null" }, { type: "array", items: rate, minItems: 2, maxItems: 2 }] },
          passed: { type: "boolean" },
          jobs: strings,
          fired: firedList,
        },
      },
    },
    distractors: {
      type: "object",
      required: ["skills", "queries", "confusion"],
      properties: {
        skills: {
          type: "array",
          items: {
            type: "object",
            required: ["name", "path", "queries"],
            properties: { name: { type: "string" }, path: { type: "string" }, queries: count },
          },
        },
        queries: {
          type: "array",
          items: {
            type: "object",
            required: ["query", "owner", "engine", "runs", "jobs", "fired"],
            properties: {
              query: { type: "string" },
              owner: { type: "string" },
              engine: { type: "string" },
              runs: count,
              jobs: strings,
              fired: firedList,
            },
          },
        },
        confusion: {
          type: "array",
          items: {
            type: "object",
            required: ["engine", "rows", "picked", "fired_on_neighbours"],
            properties: {
              engine: { type: ["string", "null"] },
              rows: {
                type: "array",
                items: {
                  type: "object",
                  required: ["owner", "fired", "none", "n"],
                  properties: { owner: { type: "string" }, fired: { type: "object", additionalProperties: count }, none: count, n: count },
                },
              },
              picked: countOfN,
              fired_on_neighbours: countOfN,
            },
          },
        },
      },
    },
    summary: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["train", "validation"],
        properties: { train: splitCount, validation: splitCount },
      },
    },
  },
};

export const GRADING_SCHEMA: JsonSchema = {
  type: "object",
  required: ["assertion_results", "summary"],
  properties: {
    assertion_results: {
      type: "array",
      items: {
        type: "object",
        required: ["text", "passed", "evidence", "graded_by"],
        properties: {
          text: { type: "string" },
          passed: { type: "boolean" },
          evidence: { type: "string" },
          // Any kind a plugin declares (core's `assertion` hook), not only the built-in ones.
          graded_by: { type: "string", minLength: 1 },
        },
      },
    },
    summary: {
      type: "object",
      required: ["passed", "failed", "total", "pass_rate"],
      properties: { passed: count, failed: count, total: count, pass_rate: rate },
    },
    errors: strings,
  },
};

export const TIMING_SCHEMA: JsonSchema = {
  type: "object",
  required: ["total_tokens", "duration_ms"],
  properties: {
    total_tokens: { type: "number", minimum: 0 },
    duration_ms: { type: "number", minimum: 0 },
    input_tokens: { type: "number", minimum: 0 },
    output_tokens: { type: "number", minimum: 0 },
    engine_ms: { type: "number", minimum: 0 },
    cost_usd: { type: ["number", "null"], minimum: 0 },
  },
};

export const ANSWER_SCHEMA: JsonSchema = {
  type: "object",
  required: ["eval_id", "configuration", "engine", "run_number", "job_id", "job_dir", "status", "skills_activated"],
  properties: {
    eval_id: evalId,
    configuration: { enum: CONFIGURATIONS },
    engine: { type: "string" },
    run_number: { type: "integer", minimum: 1 },
    job_id: { type: "string" },
    job_dir: { type: "string" },
    status: { enum: RUN_STATUSES },
    error: { type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } },
    skills_activated: strings,
    outputs_skipped: {
      type: "array",
      items: { type: "object", required: ["path", "reason"], properties: { path: { type: "string" }, reason: { type: "string" } } },
    },
  },
};
