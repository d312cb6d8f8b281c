/**
 * How a job's failures become errors: the request's violations, the engine's failure kind and the collection's
 * problems each map to one error code, and anything else thrown on the way is `unhandled`, never a stack trace.
 */
import {
  isSkillrigError,
  SkillrigError,
  type ArtifactCollection,
  type EngineFailed,
  type EngineFailureKind,
  type ErrorCode,
  type Violation,
} from "@skillrig/core";
import { displayPath } from "./paths.js";
import { MISSING_FILE_RULE } from "./resolve-input.js";

/** Error codes that mean "the request was wrong" (the CLI exits 2 for these), as opposed to "the job failed". */
export const REQUEST_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "input_missing_file",
  "input_invalid",
  "parameter_invalid",
  "template_error",
  "invalid_skill",
  "skill_interactive_only",
  "skill_not_found",
  "engine_not_found",
  "invalid_config",
  "usage",
]);

/** The input or parameters do not fit the skill: every violation listed, the code from the worst of them. */
export function requestError(violations: Violation[]): SkillrigError {
  const code: ErrorCode = violations.some((v) => v.rule === MISSING_FILE_RULE)
    ? "input_missing_file"
    : violations.some((v) => /^\/(input|files|prompt|options)(\/|$)/.test(v.pointer ?? ""))
      ? "input_invalid"
      : "parameter_invalid";
  const lines = violations.map((v) => `  ${v.pointer || "(root)"}: ${v.message}`);
  const first = violations[0];
  return new SkillrigError(
    code,
    `the job's ${code === "parameter_invalid" ? "parameters are" : "input is"} invalid:\n${lines.join("\n")}`,
    { file: first?.file, pointer: first?.pointer, field: first?.field, violations },
  );
}

const ENGINE_ERROR_CODES: Record<EngineFailureKind, ErrorCode> = {
  auth: "engine_auth_failed",
  timeout: "timeout",
  idle_timeout: "timeout",
  canceled: "canceled",
  not_found: "engine_not_found",
  jail_unavailable: "sandbox_unavailable",
  crash: "engine_failed",
  malformed_output: "engine_failed",
  output_limit: "output_limit",
  cost_limit: "cost_limit",
};

/** The job's error for a failed engine run; its details keep how the process ended and what the engine noted. */
export function engineError(outcome: EngineFailed, engine: string): SkillrigError {
  const { kind, message, hint } = outcome.failure;
  return new SkillrigError(ENGINE_ERROR_CODES[kind] ?? "engine_failed", `engine "${engine}" failed (${kind}): ${message}`, {
    ...(hint ? { hint } : {}),
    details: {
      kind,
      ...(outcome.failure.infrastructure ? { infrastructure: outcome.failure.infrastructure } : {}),
      exitCode: outcome.exit?.code,
      signal: outcome.exit?.signal,
      ...(outcome.trace ?? {}),
      ...(outcome.confinement ? { confinement: outcome.confinement } : {}),
    },
  });
}

const PROBLEM_ORDER = ["result_missing", "artifact_missing", "schema_violation"] as const;

/** The output broke its schema or left artifacts out: the worst problem names the error, all are listed. */
export function collectionError(problems: ArtifactCollection["problems"], outputFile: string): SkillrigError {
  const sorted = [...problems].sort((a, b) => PROBLEM_ORDER.indexOf(a.code) - PROBLEM_ORDER.indexOf(b.code));
  const first = sorted[0]!;
  return new SkillrigError(first.code, sorted.length === 1 ? first.message : `${first.message} (and ${sorted.length - 1} more problems)`, {
    file: displayPath(outputFile),
    pointer: first.pointer,
    violations: sorted.map((p) => ({ pointer: p.pointer, message: p.message, rule: p.code })),
  });
}

/** Whatever ended the job, as the error its result carries; a cancel by the caller is `canceled` whatever step it hit. */
export function jobError(error: unknown, canceledByCaller: boolean): SkillrigError {
  const err = isSkillrigError(error)
    ? error
    : new SkillrigError("unhandled", `unexpected error while running the job: ${(error as Error)?.message ?? String(error)}`, {
        cause: error,
      });
  if (!canceledByCaller || err.code === "canceled") return err;
  return new SkillrigError("canceled", `the job was canceled while it ran (${err.message})`, { cause: err });
}
