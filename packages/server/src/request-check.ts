/**
 * Checks a job request against its skill before it is queued, so a bad request is answered at once (404, 400,
 * 422 listing every violation with its pointer into the request body) instead of becoming a failed job later.
 * runJob checks again when the job runs; this is the early answer, not a second source of truth.
 */
import {
  compileSchema,
  escapePointerToken,
  SkillrigError,
  type CompiledSchema,
  type JobRequest,
  type JsonSchema,
  type Runner,
  type SkillManifest,
  type Violation,
} from "@skillrig/core";
import {
  fileInputNames,
  INPUT_SOURCE_KEYWORD,
  inlineInputSchema,
  promptAndInstallViolations,
  unsupportedEngineMessage,
} from "@skillrig/skills/protocol";

const validators = new Map<string, CompiledSchema>();

function validatorFor(schema: JsonSchema): CompiledSchema {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) {
    validator = compileSchema(schema);
    if (validators.size > 500) validators.clear();
    validators.set(key, validator);
  }
  return validator;
}

function prefixed(violations: Violation[], prefix: string, file?: string): Violation[] {
  return violations.map((v) => ({ ...v, pointer: `${prefix}${v.pointer ?? ""}`, ...(file ? { file } : {}) }));
}

/** Engine options a client set that only the server's config may set (`server.client_engine_options`). */
function engineOptionViolations(options: Record<string, unknown> | undefined, allowed: readonly string[], at: string): Violation[] {
  return Object.keys(options ?? {})
    .filter((key) => !allowed.includes(key))
    .map((key) => ({
      pointer: `${at}/${escapePointerToken(key)}`,
      field: key,
      rule: "server.client_engine_options",
      message: `engine option "${key}" can only be set in the server's config; clients may set ${allowed.join(", ") || "none"} (server.client_engine_options)`,
    }));
}

/**
 * A solve attempt (`POST /v1/solve/attempts`): the engine must be claimed here and its options limited as for a
 * skill job. The task itself is validated by the caller (invalid_task under /task).
 */
export function checkSolveAttempt(
  runner: Runner,
  engine: { name: string; options?: Record<string, unknown> },
  clientEngineOptions: readonly string[],
): void {
  runner.requireClaim("engine", engine.name, { pointer: "/engine/name", field: "engine" });
  const violations = engineOptionViolations(engine.options, clientEngineOptions, "/engine/options");
  if (violations.length > 0) {
    throw new SkillrigError(
      "schema_violation",
      `the solve attempt sets engine options only the server may set: ${violations.map((v) => v.field).join(", ")}`,
      {
        pointer: violations[0]?.pointer,
        violations,
      },
    );
  }
}

/**
 * Throws engine_not_found (400) or schema_violation (422, every violation listed) for a request that cannot run.
 * `clientEngineOptions` are the engine options a client may set: an engine's `binary`, `env` or `extra_args`
 * would let any client run any program on the server, so only the config may set those.
 */
export function checkJobRequest(runner: Runner, skill: SkillManifest, request: JobRequest, clientEngineOptions: readonly string[]): void {
  const unsupported = unsupportedEngineMessage(skill, request.engine);
  if (unsupported) throw new SkillrigError("engine_not_found", unsupported, { pointer: "/engine", field: "engine" });
  if (request.options?.dry_run !== true) runner.requireClaim("engine", request.engine, { pointer: "/engine", field: "engine" });

  const fileInputs = fileInputNames(skill);
  const violations: Violation[] = engineOptionViolations(request.options?.engine, clientEngineOptions, "/options/engine");
  // A plain Agent Skill's prompt (required; refused for a runner.json skill) and the skill_install mode. A server
  // job's files come by upload, so a plain skill's request names none here.
  violations.push(...promptAndInstallViolations(skill, request));
  for (const field of fileInputs) {
    if (request.input && field in request.input) {
      violations.push({
        pointer: `/input/${escapePointerToken(field)}`,
        field,
        rule: INPUT_SOURCE_KEYWORD,
        message: `"${field}" is a file input: upload it in a zip as a file named "${field}" (POST /v1/jobs/{id}/upload), not inline`,
      });
    }
  }
  const inputSchema = skill.schemas.input?.schema;
  if (inputSchema !== undefined) {
    const inline = { ...(request.input ?? {}) };
    for (const field of fileInputs) delete inline[field];
    violations.push(...prefixed(validatorFor(inlineInputSchema(inputSchema)).validate(inline), "/input"));
  }
  const parameterSchema = skill.schemas.parameter?.schema;
  if (parameterSchema !== undefined) {
    violations.push(...prefixed(validatorFor(parameterSchema).validate(request.parameter ?? {}), "/parameter"));
  }
  if (violations.length > 0) {
    const lines = violations.map((v) => `${v.pointer || "(root)"} ${v.message}`).join("; ");
    throw new SkillrigError("schema_violation", `the job request does not fit skill "${skill.id}": ${lines}`, {
      pointer: violations[0]?.pointer,
      violations,
    });
  }
}
