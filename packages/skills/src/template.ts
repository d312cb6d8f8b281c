/**
 * Prompt and SKILL.md templates: nunjucks (Jinja2's syntax in JavaScript) with autoescape off.
 *
 * Jinja2 habits skill authors bring, made to work:
 * - `{% for key, value in input.items() %}` (and `.keys()` / `.values()`): inside template tags, `x.items()` is
 *   rewritten to the `dictitems` filter before compiling. A filter, not a method on the object, so that an input
 *   field that is itself called `items` (the spec's own example) still works both ways.
 * - `{{ value }}` of an object or array prints JSON (nunjucks would print `[object Object]` or `a,b`).
 * - `tojson` is an alias of nunjucks' `dump`.
 * A syntax or render error becomes `template_error` naming the file and line.
 */
import nunjucks from "nunjucks";
import { SkillrigError } from "@skillrig/core";

const TAG = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;
const DICT_METHOD = /\.(items|keys|values)\(\s*\)/g;

/** Rewrites `x.items()` to `x|dictitems` inside `{{ }}` and `{% %}` only; line numbers are kept. */
export function rewriteDictMethods(source: string): string {
  return source.replace(TAG, (tag) => tag.replace(DICT_METHOD, (_m, method: string) => `|dict${method}`));
}

function asMapping(value: unknown, method: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${method}() needs a mapping, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`);
  }
  return value as Record<string, unknown>;
}

function createEnvironment(): nunjucks.Environment {
  const env = new nunjucks.Environment(null, { autoescape: false, trimBlocks: true, lstripBlocks: true, throwOnUndefined: false });
  env.addFilter("dictitems", (v: unknown) => Object.entries(asMapping(v, "items")));
  env.addFilter("dictkeys", (v: unknown) => Object.keys(asMapping(v, "keys")));
  env.addFilter("dictvalues", (v: unknown) => Object.values(asMapping(v, "values")));
  env.addFilter("tojson", (v: unknown, indent?: number) => JSON.stringify(v, null, indent));
  return env;
}

const environment = createEnvironment();

function defineHidden(target: object, key: string | symbol, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: false, configurable: true, writable: true });
}

/**
 * A copy of a JSON value that prints as JSON where nunjucks would print `[object Object]`.
 * Only enumerable keys are data: iteration and `items()` see exactly the JSON value's keys.
 */
const WRAPPED = Symbol("skillrig.templateValue");

export function toTemplateValue(value: unknown): unknown {
  if (typeof value === "object" && value !== null && (value as { [WRAPPED]?: boolean })[WRAPPED]) return value;
  if (Array.isArray(value)) {
    const out = value.map(toTemplateValue);
    defineHidden(out, "toString", () => JSON.stringify(value));
    defineHidden(out, WRAPPED, true);
    return out;
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toTemplateValue(v);
    defineHidden(out, "toString", () => JSON.stringify(value));
    defineHidden(out, WRAPPED, true);
    return out;
  }
  return value;
}

/** Adds `name` to a template mapping as a hidden (non-iterated) property computed on access. */
export function addHiddenGetter(target: object, name: string, get: () => unknown): void {
  Object.defineProperty(target, name, { get, enumerable: false, configurable: true });
}

/** `lineBase`: nunjucks reports parse errors 1-based but render errors 0-based. */
function templateError(error: unknown, file: string, what: string, source: string, lineBase = 0): SkillrigError {
  const raw = (error as Error)?.message ?? String(error);
  const position = /\[Line (\d+)(?:, Column (\d+))?\]/.exec(raw);
  // nunjucks gives no position for an unclosed block; it is found at the end of the file.
  const line = position ? Number(position[1]) + lineBase : /end of file/.test(raw) ? source.split("\n").length : undefined;
  // nunjucks prefixes "(path) [Line n, Column m]\n  "; keep only the reason.
  const reason = raw
    .replace(/^\([^)]*\)(?: \[Line \d+(?:, Column \d+)?\])?\s*/, "")
    .replace(/^Template render error:\s*/, "")
    .replace(/^Error: /, "")
    .trim();
  return new SkillrigError("template_error", `${what} ${file}${line !== undefined ? ` line ${line}` : ""}: ${reason}`, {
    file,
    line,
    details: position?.[2] ? { column: Number(position[2]) } : {},
    hint: "templates use nunjucks (Jinja2 syntax): {{ input.field }}, {{ parameter.name }}, {% for key, value in input.items() %}",
  });
}

/** Compiles a template without rendering it: throws `template_error` with the file and line of a syntax error. */
export function checkTemplate(source: string, file: string): void {
  try {
    new nunjucks.Template(rewriteDictMethods(source), environment, file, true);
  } catch (error) {
    throw templateError(error, file, "template syntax error in", source);
  }
}

/** Renders `source` (from `file`, for errors) with `context`. */
/**
 * Compiled templates by file and source: compiling (parse + code generation) costs far more than rendering, and a
 * jobs server renders the same skill's prompt and SKILL.md for every job. Keyed by the source too, so an edited
 * template is compiled afresh; bounded, oldest first out, so many one-off sources cannot grow it without end.
 */
const compiled = new Map<string, nunjucks.Template>();
const COMPILED_TEMPLATES_KEPT = 200;

function compileTemplate(source: string, file: string): nunjucks.Template {
  const key = `${file}\0${source}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  let template: nunjucks.Template;
  try {
    template = new nunjucks.Template(rewriteDictMethods(source), environment, file, true);
  } catch (error) {
    throw templateError(error, file, "template syntax error in", source);
  }
  if (compiled.size >= COMPILED_TEMPLATES_KEPT) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, template);
  return template;
}

export function renderTemplate(source: string, context: Record<string, unknown>, file: string): string {
  const template = compileTemplate(source, file);
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(context)) values[k] = toTemplateValue(v);
  try {
    return template.render(values);
  } catch (error) {
    throw templateError(error, file, "template error in", source, 1);
  }
}
