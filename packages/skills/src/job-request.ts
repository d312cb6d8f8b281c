/**
 * The one check of a job request against its skill, before anything is written: `runJob` asks it for every job
 * (local or the jobs server's worker), and the jobs server asks it at `POST /v1/jobs` with `client` set, so a
 * request that cannot run is refused there (4xx) instead of queued to fail later. The rules, in order:
 *
 *   1. the request names an engine                                   usage
 *   2. the skill exists                                              skill_not_found
 *   3. its prompt and skill_install fit the skill's kind             input_invalid (a client: schema_violation)
 *      a client's request also: only the engine options the server allows, file inputs by upload (not inline),
 *      inline input and parameters valid against the skill's schemas
 *   4. the skill supports the engine                                 engine_not_found
 *   [a dry run only renders the prompt: it stops here]
 *   5. the skill can run unattended                                  skill_interactive_only
 *   6. a plugin runs the engine                                      engine_not_found
 *
 * Each failure is a SkillrigError naming the field and JSON pointer at fault. Returns the skill: the one given
 * (loaded once by the caller), else the request's `skill_id` resolved.
 */
import {
  didYouMean,
  escapePointerToken,
  SkillrigError,
  type CompiledSchema,
  type JobRequest,
  type JsonSchema,
  type Runner,
  type SkillManifest,
  type Violation,
} from "@skillrig/core";
import { compiledSchema } from "./compiled-schemas.js";
import { requestError } from "./job-errors.js";
import { resolveSkill } from "./load-skill.js";
import { displayPath } from "./paths.js";
import {
  fileInputNames,
  INPUT_SOURCE_KEYWORD,
  inlineInputSchema,
  promptAndInstallViolations,
  unsupportedEngineMessage,
} from "./protocol.js";

/** A request that came from a client of the jobs server, not from the machine's own user. */
export interface ClientRequestRules {
  /**
   * The engine options a client may set (`server.client_engine_options`): an engine's `binary`, `env` or
   * `extra_args` would let any client run any program on the server, so only the config may set those.
   */
  engineOptions: readonly string[];
}

export interface CheckJobRequestOptions {
  /** The skill, already loaded; default `resolveSkill(runner, request.skill_id)`. */
  skill?: SkillManifest;
  /** Set for a jobs server client's request: its own rules apply too, and violations answer as schema_violation (422). */
  client?: ClientRequestRules;
}

export function checkJobRequest(runner: Runner, request: JobRequest, options: CheckJobRequestOptions = {}): SkillManifest {
  if (typeof request.engine !== "string" || request.engine === "") {
    throw new SkillrigError("usage", "the job names no engine", {
      pointer: "/engine",
      field: "engine",
      hint: "skillrig run <skill> --engine <name>",
    });
  }
  const skill = options.skill ?? resolveSkill(runner, request.skill_id);
  const violations = promptAndInstallViolations(skill, request);
  if (options.client) violations.push(...clientRequestViolations(skill, request, options.client));
  if (violations.length > 0) throw options.client ? clientRequestError(skill, violations) : requestError(violations);
  refuseUnsupportedEngine(skill, request, options.client !== undefined);
  // A dry run only renders the prompt: it shows an interactive skill's prompt too, with any engine named.
  if (request.options?.dry_run === true) return skill;
  refuseInteractiveOnly(skill);
  runner.requireClaim("engine", request.engine, { pointer: "/engine", field: "engine" });
  return skill;
}

/** The engine must be one the skill lists; a client is pointed at its request, a local user at the skill's file. */
function refuseUnsupportedEngine(skill: SkillManifest, request: JobRequest, client: boolean): void {
  const unsupported = unsupportedEngineMessage(skill, request.engine);
  if (!unsupported) return;
  const where = client ? { pointer: "/engine" } : { file: displayPath(skill.runnerFile), pointer: "/engines" };
  throw new SkillrigError("engine_not_found", `${unsupported}${didYouMean(request.engine, skill.engines)}`, { ...where, field: "engine" });
}

/**
 * A job runs unattended: nobody answers an agent's questions. A skill that only runs interactively would ask, wait
 * and end as malformed_output minutes later; it is refused before anything runs (the jobs server: 422 at POST).
 */
function refuseInteractiveOnly(skill: SkillManifest): void {
  const modes = skill.runner.execution_modes;
  if (!Array.isArray(modes) || modes.length === 0 || modes.includes("auto")) return;
  throw new SkillrigError(
    "skill_interactive_only",
    `skill "${skill.id}" needs interactive answers (execution_modes: ${JSON.stringify(modes)}), and skillrig runs jobs unattended: nobody would answer the agent's questions`,
    {
      file: displayPath(skill.runnerFile),
      pointer: "/execution_modes",
      field: "execution_modes",
      hint: 'add "auto" to execution_modes if the skill can work without asking (its SKILL.md then tells the agent not to ask)',
    },
  );
}

/** A client's request, beyond what every request must fit: its engine options, file inputs, inline values. */
function clientRequestViolations(skill: SkillManifest, request: JobRequest, rules: ClientRequestRules): Violation[] {
  const violations = engineOptionViolations(request.options?.engine, rules.engineOptions, "/options/engine");
  const fileInputs = fileInputNames(skill);
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
    violations.push(...prefixed(inlineValidator(inputSchema).validate(inline), "/input"));
  }
  const parameterSchema = skill.schemas.parameter?.schema;
  if (parameterSchema !== undefined) {
    violations.push(...prefixed(compiledSchema(parameterSchema).validate(request.parameter ?? {}), "/parameter"));
  }
  return violations;
}

/** Engine options a client set that only the server's config may set (`server.client_engine_options`). */
export function engineOptionViolations(options: Record<string, unknown> | undefined, allowed: readonly string[], at: string): Violation[] {
  return Object.keys(options ?? {})
    .filter((key) => !allowed.includes(key))
    .map((key) => ({
      pointer: `${at}/${escapePointerToken(key)}`,
      field: key,
      rule: "server.client_engine_options",
      message: `engine option "${key}" can only be set in the server's config; clients may set ${allowed.join(", ") || "none"} (server.client_engine_options)`,
    }));
}

function clientRequestError(skill: SkillManifest, violations: Violation[]): SkillrigError {
  const lines = violations.map((v) => `${v.pointer || "(root)"} ${v.message}`).join("; ");
  return new SkillrigError("schema_violation", `the job request does not fit skill "${skill.id}": ${lines}`, {
    pointer: violations[0]?.pointer,
    violations,
  });
}

function prefixed(violations: Violation[], prefix: string): Violation[] {
  return violations.map((v) => ({ ...v, pointer: `${prefix}${v.pointer ?? ""}` }));
}

/** The inline part of an input schema, compiled once per skill schema object (a server checks every job's). */
const inlineValidators = new WeakMap<object, CompiledSchema>();

function inlineValidator(schema: JsonSchema): CompiledSchema {
  if (typeof schema !== "object" || schema === null) return compiledSchema(inlineInputSchema(schema));
  let validator = inlineValidators.get(schema);
  if (!validator) {
    validator = compiledSchema(inlineInputSchema(schema));
    inlineValidators.set(schema, validator);
  }
  return validator;
}
