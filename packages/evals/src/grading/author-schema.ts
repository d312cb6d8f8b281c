/**
 * An eval author's JSON Schema, compiled so that its `pattern` and `patternProperties` run in linear time: ajv's
 * `code.regExp` is RE2 (the pure-JS port `re2js`), not V8's backtracking engine. The data matched is the agent's,
 * so a pattern like `^(a+)+$` must not let a 40-character string stop `skillrig eval` for ever. RE2 has no
 * backreferences or lookaround: a schema using them is refused when evals.json is loaded, naming the pattern, rather
 * than run on a worker with a timer (no time limit to tune, no thread per validation, and the same answer on a loaded
 * machine as on a quiet one).
 */
import { createRequire } from "node:module";
import { type CompiledSchema, schemaDialect, toViolations } from "@skillrig/core";
import type { Options } from "ajv";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import { RE2JS } from "re2js";

const require = createRequire(import.meta.url);
type AjvConstructor = typeof import("ajv").default;
type AjvClass = InstanceType<AjvConstructor>;

/** ajv's RegExpEngine on RE2: `test` is a search anywhere, as JSON Schema's `pattern` is. */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, _flags: string) => {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} is not supported by the linear-time engine (RE2: no backreferences, no lookahead or lookbehind): ${(error as Error).message}`,
      );
    }
    // ajv caches compiled patterns by `toString()`: it must differ per pattern.
    return { test: (s: string) => compiled.test(s), toString: () => `re2:${pattern}` };
  },
  { code: "re2js" },
);

const engines = new Map<string, AjvClass>();

function ajvFor(dialect: "draft-07" | "2020-12"): AjvClass {
  let ajv = engines.get(dialect);
  if (!ajv) {
    const Ajv: AjvConstructor = dialect === "2020-12" ? require("ajv/dist/2020.js").default : require("ajv").default;
    const addFormats: typeof import("ajv-formats").default = require("ajv-formats").default;
    const options: Options = { allErrors: true, strict: false, code: { regExp: linearRegExp } };
    ajv = new Ajv(options);
    addFormats(ajv);
    engines.set(dialect, ajv);
  }
  return ajv;
}

/** Compiles an eval author's schema; throws a plain Error (ajv's message, or the pattern RE2 refuses). */
export function compileAuthorSchema(schema: Record<string, unknown>): CompiledSchema {
  const { $id: _id, ...rest } = schema;
  const validate = ajvFor(schemaDialect(schema)).compile(rest);
  return {
    validate: (value) => (validate(value) ? [] : toViolations(validate.errors ?? [])),
    is: (value): value is unknown => validate(value) as boolean,
  };
}
