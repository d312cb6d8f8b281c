/**
 * One place that turns JSON Schemas into validators and ajv errors into Violations with JSON pointers.
 * Draft-07 and 2020-12 schemas are both accepted: the `$schema` keyword picks the dialect
 * (draft-07 when absent, as the skill packages in the wild use it).
 */
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction, Options } from "ajv";
import type { Violation } from "./errors.js";
import { escapePointerToken } from "./json-pointer.js";

const require = createRequire(import.meta.url);

type AjvConstructor = typeof import("ajv").default;
type AjvClass = InstanceType<AjvConstructor>;

export type JsonSchema = Record<string, unknown> | boolean;

export interface SchemaValidatorOptions {
  /** Fill in `default` values (mutates the validated value). */
  useDefaults?: boolean;
  /** Coerce strings like "3" to the schema's type (used for `--param k=v` on the command line). */
  coerceTypes?: boolean;
}

/** Vendor keywords skill schemas carry. Declared so that strict mode accepts them. */
const VENDOR_KEYWORDS = ["x-input-source", "x-type", "x-role", "x-filename", "extensions", "x-order", "x-label"];

const cache = new Map<string, AjvClass>();

/** @internal The ajv options every validator is compiled with, at run time or ahead of time (precompiled-schema.ts). */
export function ajvOptionsFor(options: SchemaValidatorOptions): Options {
  return {
    allErrors: true,
    strict: false,
    useDefaults: options.useDefaults ?? false,
    coerceTypes: options.coerceTypes ?? false,
  };
}

/**
 * A new ajv for `dialect` with skillrig's formats and vendor keywords. ajv (some 90 modules) and its formats are
 * loaded here, on the first schema compiled at run time, not when core is imported: a command whose schemas are
 * all precompiled never loads them.
 * @internal
 */
export function newAjv(dialect: "draft-07" | "2020-12", options: Options): AjvClass {
  // ajv ships CommonJS; loading through require keeps the constructors' types straight under NodeNext.
  const Ajv: AjvConstructor = dialect === "2020-12" ? require("ajv/dist/2020.js").default : require("ajv").default;
  const addFormats: typeof import("ajv-formats").default = require("ajv-formats").default;
  const ajv = new Ajv(options);
  addFormats(ajv);
  for (const keyword of VENDOR_KEYWORDS) ajv.addKeyword({ keyword, schemaType: ["string", "array", "object", "number", "boolean"] });
  return ajv;
}

function ajvFor(dialect: "draft-07" | "2020-12", options: SchemaValidatorOptions) {
  const key = `${dialect}:${options.useDefaults ? 1 : 0}:${options.coerceTypes ? 1 : 0}`;
  let ajv = cache.get(key);
  if (!ajv) {
    ajv = newAjv(dialect, ajvOptionsFor(options));
    cache.set(key, ajv);
  }
  return ajv;
}

export function schemaDialect(schema: JsonSchema): "draft-07" | "2020-12" {
  if (typeof schema === "object" && typeof schema.$schema === "string" && schema.$schema.includes("2020-12")) {
    return "2020-12";
  }
  return "draft-07";
}

export interface CompiledSchema<T = unknown> {
  /** Validates `value`; returns [] when it conforms, else every violation with its pointer. */
  validate(value: unknown): Violation[];
  /** Type guard form. */
  is(value: unknown): value is T;
}

/**
 * Compiles a schema. Throws a plain Error with ajv's message when the schema itself is invalid;
 * callers wrap that with the file that holds the schema.
 */
export function compileSchema<T = unknown>(schema: JsonSchema, options: SchemaValidatorOptions = {}): CompiledSchema<T> {
  const ajv = ajvFor(schemaDialect(schema), options);
  // A `$id` would make ajv refuse a second compile of the same schema; validators are cached by the caller instead.
  const schemaForAjv = typeof schema === "object" ? withoutId(schema) : schema;
  return compiledFrom<T>(ajv.compile(schemaForAjv));
}

/**
 * The CompiledSchema of an ajv validate function: one compiled now by `compileSchema`, or ahead of time by
 * `precompiledSchemaModule` (precompiled-schema.ts), which behaves the same, errors included.
 * @internal
 */
export function compiledFrom<T = unknown>(fn: ValidateFunction | ((value: unknown) => boolean)): CompiledSchema<T> {
  const validateFn = fn as ValidateFunction;
  return {
    validate(value) {
      return validateFn(value) ? [] : toViolations(validateFn.errors ?? []);
    },
    is(value): value is T {
      return validateFn(value) as boolean;
    },
  };
}

/** @internal The schema as ajv gets it (precompiled-schema.ts uses it too). */
export function withoutId(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, ...rest } = schema;
  return rest;
}

/** Turns ajv errors into Violations whose pointer names the offending value (or the missing/unknown key). */
export function toViolations(errors: ErrorObject[]): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  // Names refused by `propertyNames`: ajv reports the inner keyword (with `propertyName`) and then a summary at
  // the object naming no key; the inner one, pointed at the name itself, says it all.
  const namedInner = new Set(errors.flatMap((e) => (e.propertyName === undefined ? [] : [`${e.instancePath}/${e.propertyName}`])));
  for (const error of errors) {
    let ptr = error.instancePath;
    let message = error.message ?? "is invalid";
    const params = error.params as Record<string, unknown>;
    if (error.propertyName !== undefined) {
      ptr = `${ptr}/${escapePointerToken(error.propertyName)}`;
      message = `is not a valid name: ${message}`;
    } else if (error.keyword === "propertyNames") {
      if (namedInner.has(`${ptr}/${String(params.propertyName)}`)) continue;
      ptr = `${ptr}/${escapePointerToken(String(params.propertyName))}`;
      message = "is not a valid name";
    } else if (error.keyword === "required") {
      ptr = `${ptr}/${escapePointerToken(String(params.missingProperty))}`;
      message = "is required";
    } else if (error.keyword === "additionalProperties") {
      ptr = `${ptr}/${escapePointerToken(String(params.additionalProperty))}`;
      message = "is not an allowed key";
    } else if (error.keyword === "enum") {
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    } else if (error.keyword === "if" || error.keyword === "anyOf" || error.keyword === "oneOf") {
      // The branch errors around it say more; keep these only when nothing else points at the same place.
    }
    const key = `${ptr}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer: ptr, message, rule: error.keyword });
  }
  return out;
}

/** "`/tests/0/input` must be array; `/task_id` is required" */
export function formatViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.pointer === "" || v.pointer === undefined ? "(root)" : v.pointer} ${v.message}`).join("; ");
}
