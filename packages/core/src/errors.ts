/**
 * Every error skillrig raises on purpose is a SkillrigError with a stable string `code`.
 * Scripts match on `code`; people read `message`, which always names what was wrong and where
 * (a file, a JSON pointer, a config key path or a field).
 */

/** Stable error codes. Adding a code is a minor change; renaming or removing one is breaking. */
export type ErrorCode =
  | "invalid_test_format"
  | "invalid_task"
  | "invalid_config"
  | "plugin_not_found"
  | "plugin_conflict"
  | "invalid_skill"
  /** The skill only runs interactively (`execution_modes` without "auto"), and a job runs unattended. */
  | "skill_interactive_only"
  | "skill_not_found"
  | "input_missing_file"
  | "input_invalid"
  | "parameter_invalid"
  | "template_error"
  | "schema_violation"
  | "artifact_missing"
  | "result_missing"
  | "engine_failed"
  | "engine_auth_failed"
  | "engine_not_found"
  | "output_limit"
  | "unhandled"
  | "timeout"
  /** A job's worker ran out of the memory the server gives it (`server.worker_heap_mb`). */
  | "memory_limit"
  | "sandbox_unavailable"
  /** A skill's runtime (its Python environment and dependencies) could not be built. */
  | "runtime_unavailable"
  /** Jobs server (HTTP): no such job; a request that does not fit the job's state; a refused upload; a full queue; a missing or wrong bearer token; a job that was running when the server stopped. */
  | "job_not_found"
  | "job_state_conflict"
  | "upload_too_large"
  | "upload_not_zip"
  | "upload_unsafe"
  | "queue_full"
  /** Jobs server: a tenant is at one of its own limits (`server.tenants.<name>`); other tenants are not. */
  | "quota_exceeded"
  | "unauthorized"
  | "interrupted"
  /** A loopback server refused a request addressed to another name (DNS rebinding) or sent from another origin. */
  | "forbidden_host"
  | "forbidden_origin"
  /** The job was canceled (Ctrl-C on `skillrig run`, DELETE on the server) before it finished. */
  | "canceled"
  /** A run reached its budget (`max_cost_usd` or `max_tokens`) and was stopped; its partial work is kept. */
  | "cost_limit"
  | "usage";

/** Where an error points: any that apply. */
export interface ErrorLocation {
  /** A file path, as the user would type it (relative to the working directory where possible). */
  file?: string;
  /** An RFC 6901 JSON pointer inside `file` (or inside the request body). */
  pointer?: string;
  /** A dotted config key path or a field name. */
  field?: string;
  /** 1-based line in `file`. */
  line?: number;
}

/** One problem inside a larger error (for example each schema violation). */
export interface Violation extends ErrorLocation {
  message: string;
  /** The ajv keyword or rule that failed, when there is one. */
  rule?: string;
}

export interface SkillrigErrorOptions extends ErrorLocation {
  cause?: unknown;
  violations?: Violation[];
  /** Extra machine-readable facts (exit code, command line, ...). */
  details?: Record<string, unknown>;
  /** What the user can do about it. */
  hint?: string;
}

/**
 * The brand every SkillrigError carries, under a registry symbol so that every copy of @skillrig/core in a
 * process shares it. A plugin installed in a project may load its own copy of core; its errors are then
 * instances of another `SkillrigError` class, and `instanceof` says no. The brand says yes (execa marks its
 * errors the same way). Its value is the version of the error shape below: 1 = `code`, `message`, the location
 * fields, `violations`, `details`, `hint` and `toJSON()`.
 */
export const SKILLRIG_ERROR_BRAND: unique symbol = Symbol.for("skillrig.error");
const BRAND_VERSION = 1;

export class SkillrigError extends Error {
  declare readonly [SKILLRIG_ERROR_BRAND]: number;
  readonly code: ErrorCode;
  readonly file?: string;
  readonly pointer?: string;
  readonly field?: string;
  readonly line?: number;
  readonly violations: Violation[];
  readonly details: Record<string, unknown>;
  readonly hint?: string;

  constructor(code: ErrorCode, message: string, options: SkillrigErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.file = options.file;
    this.pointer = options.pointer;
    this.field = options.field;
    this.line = options.line;
    this.violations = options.violations ?? [];
    this.details = options.details ?? {};
    this.hint = options.hint;
  }

  /** A plain object for `--json` output and HTTP bodies. Never includes a stack. */
  toJSON(): SerializedError {
    const out: SerializedError = { code: this.code, message: this.message };
    if (this.file !== undefined) out.file = this.file;
    if (this.pointer !== undefined) out.pointer = this.pointer;
    if (this.field !== undefined) out.field = this.field;
    if (this.line !== undefined) out.line = this.line;
    if (this.violations.length > 0) out.violations = this.violations;
    if (this.hint !== undefined) out.hint = this.hint;
    if (Object.keys(this.details).length > 0) out.details = this.details;
    return out;
  }
}

export interface SerializedError extends ErrorLocation {
  code: ErrorCode;
  message: string;
  violations?: Violation[];
  hint?: string;
  details?: Record<string, unknown>;
}

// On the prototype, not enumerable: it never shows up in JSON, spreads or test snapshots.
Object.defineProperty(SkillrigError.prototype, SKILLRIG_ERROR_BRAND, { value: BRAND_VERSION, enumerable: false });

/**
 * True for an error raised by any copy of @skillrig/core in this process (a plugin's own install included):
 * recognised by its brand and a string `code`, never by `instanceof`. Use this, or `hasErrorCode`, wherever an
 * error is sorted into "ours, with a code" and "unexpected".
 */
export function isSkillrigError(value: unknown): value is SkillrigError {
  if (typeof value !== "object" || value === null) return false;
  const brand = (value as Record<PropertyKey, unknown>)[SKILLRIG_ERROR_BRAND];
  return typeof brand === "number" && brand >= 1 && typeof (value as { code?: unknown }).code === "string";
}

/** True for a SkillrigError (from any copy of core) with one of `codes`. */
export function hasErrorCode(value: unknown, ...codes: ErrorCode[]): value is SkillrigError {
  return isSkillrigError(value) && codes.includes(value.code);
}
