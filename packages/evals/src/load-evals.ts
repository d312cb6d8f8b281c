/**
 * Reading a skill's evals: `evals/evals.json` (the cases) and `evals/triggers.json` (the trigger queries), checked
 * against the package's JSON Schemas (evals.schema.json, triggers.schema.json) and then against the skill folder
 * (files that exist inside it, an oracle task inside its evals/). Every problem is a Violation naming the file,
 * the JSON pointer and what was wrong; all of a file's problems are reported together, in one SkillrigError.
 */
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkAssertionObject } from "@skillrig/assertion-kit";
import {
  type AssertionObject,
  compileSchema,
  didYouMean,
  parseJsonText,
  pointer,
  Runner,
  SkillrigError,
  type CompiledSchema,
  type Violation,
} from "@skillrig/core";
import { evalsJsonSchema, triggersJsonSchema } from "./evals-json-schema.js";
import type { Assertion, EvalCase, TriggerQuery } from "./format.js";
import { builtinAssertionKinds } from "./grading/builtin-kinds.js";
import { registeredKind, registeredKindNames } from "./grading/kind-registry.js";
import { insideFolder } from "./skill-paths.js";

export { evalsJsonSchema, triggersJsonSchema } from "./evals-json-schema.js";

/** The built-in kinds' names, as before kinds were plugins. @deprecated use `registeredKindNames(runner)`. */
export const ASSERTION_KINDS: ReadonlyArray<string> = ["file_contains", "regex", "json_schema", "script", "oracle"];

/** A runner that knows the built-in kinds only (for a caller of loadEvals without a runner of its own). */
function builtinKindsRunner(): Runner {
  return new Runner().use(builtinAssertionKinds());
}

/** The skill the evals belong to: what the loader checks `skill_name` against. */
export interface EvalSkill {
  id: string;
  name: string;
  /** Absolute path of the skill folder. */
  dir: string;
}

/** A case as the runner uses it: `expectations` read as `assertions`, files resolved. */
export interface LoadedCase {
  id: number | string;
  prompt: string;
  expected_output?: string;
  assertions: Assertion[];
  /** Each file: its path in the skill folder (as written), the absolute path, and where it goes in the workspace. */
  files: Array<{ path: string; source: string; workspacePath: string }>;
}

export interface LoadedEvals {
  /** Absolute path of evals/evals.json. */
  file: string;
  skill_name: string;
  cases: LoadedCase[];
}

export interface LoadedTriggers {
  /** Absolute path of evals/triggers.json. */
  file: string;
  queries: TriggerQuery[];
}

const EVALS_DOC = "docs/evals.md";

function sub(schema: Record<string, unknown>, name: string): Record<string, unknown> {
  return { $schema: schema.$schema, definitions: schema.definitions, $ref: `#/definitions/${name}` };
}

const compiled = new Map<string, CompiledSchema>();
function validator(key: string, schema: Record<string, unknown>): CompiledSchema {
  let v = compiled.get(key);
  if (!v) {
    v = compileSchema(schema);
    compiled.set(key, v);
  }
  return v;
}

function readJsonFile(file: string, label: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new SkillrigError("invalid_skill", `${label} cannot be read: ${(error as Error).message}`, { file });
  }
  return parseJsonText(text, { file, what: label, code: "invalid_skill", whatNamesFile: true });
}

function fail(file: string, label: string, violations: Violation[]): never {
  const lines = violations.map((v) => `  ${v.pointer === "" || v.pointer === undefined ? "(root)" : v.pointer}: ${v.message}`);
  throw new SkillrigError(
    "invalid_skill",
    `${label} has ${violations.length} problem${violations.length === 1 ? "" : "s"}:\n${lines.join("\n")}`,
    { file, pointer: violations[0]?.pointer, violations: violations.map((v) => ({ ...v, file })), hint: `see ${EVALS_DOC}` },
  );
}

/** Where a case file goes in the run's workspace: its path below `evals/files/`, else its basename. */
export function workspacePathOf(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
  if (parts[0] === "evals" && parts[1] === "files" && parts.length > 2) return parts.slice(2).join("/");
  return parts[parts.length - 1]!;
}

/**
 * One assertion checked against the kind it names (the runner's `assertion` hook): unknown kinds and every field
 * problem get the assertion's pointer. Returns the assertion as grading uses it, with its `text` filled in from
 * the kind when the author gave none; undefined when it has problems.
 */
function checkAssertion(a: unknown, at: string, skill: EvalSkill, runner: Runner, violations: Violation[]): Assertion | undefined {
  if (typeof a === "string") {
    if (a.trim() === "") {
      violations.push({ pointer: at, message: "is an empty assertion" });
      return undefined;
    }
    return a;
  }
  if (typeof a !== "object" || a === null) return undefined; // the schema said so already
  const kind = (a as { kind?: unknown }).kind;
  const found = typeof kind === "string" ? registeredKind(runner, kind) : undefined;
  if (!found) {
    const known = registeredKindNames(runner);
    violations.push({
      pointer: `${at}/kind`,
      message:
        typeof kind === "string"
          ? `unknown assertion kind ${JSON.stringify(kind)}${didYouMean(kind, known)}: ${known.length > 0 ? `expected one of ${known.join(", ")}` : "no assertion kinds are configured"}, or a plain string graded by the judge; a kind of your own comes from a plugin (docs/evals.md)`
          : `must be a string naming the assertion kind (${known.join(", ")})`,
      rule: "enum",
    });
    return undefined;
  }
  const problems = checkAssertionObject(found.kind, a as AssertionObject, skill.dir);
  for (const v of problems)
    violations.push({ ...v, pointer: `${at}${v.pointer ?? ""}`, message: `${v.message} (assertion kind ${found.name})` });
  if (problems.length > 0) return undefined;
  const object = a as AssertionObject;
  return (object.text === undefined ? { ...object, text: found.kind.describe(object) } : object) as Assertion;
}

/**
 * Reads and checks `<skill>/evals/evals.json`: its shape, then each assertion against its kind in `runner` (the
 * kinds its plugins declared; without a runner, the built-in kinds only). Throws a SkillrigError (`invalid_skill`) listing every problem, each with the file
 * and JSON pointer; a skill with no evals.json gets one saying where it looked.
 */
export function loadEvals(skill: EvalSkill, runner: Runner = builtinKindsRunner()): LoadedEvals {
  const file = join(skill.dir, "evals", "evals.json");
  const label = `evals/evals.json of skill "${skill.id}"`;
  if (!existsSync(file)) {
    throw new SkillrigError("invalid_skill", `skill "${skill.id}" has no evals: ${file} does not exist`, {
      file,
      hint: `write evals/evals.json in the skill folder (its cases and assertions); see ${EVALS_DOC}`,
    });
  }
  const data = readJsonFile(file, label);
  const violations = validator("evals", evalsJsonSchema).validate(data);
  if (violations.length > 0) fail(file, label, violations);
  const doc = data as { skill_name: string; evals: EvalCase[] };
  if (doc.skill_name !== skill.name && doc.skill_name !== skill.id) {
    violations.push({
      pointer: "/skill_name",
      message: `is ${JSON.stringify(doc.skill_name)} but the skill is ${JSON.stringify(skill.name)}: these evals belong to another skill`,
    });
  }
  const seen = new Map<string, number>();
  const cases: LoadedCase[] = [];
  doc.evals.forEach((c, i) => {
    const at = pointer("evals", i);
    const key = String(c.id);
    if (seen.has(key))
      violations.push({
        pointer: `${at}/id`,
        message: `${JSON.stringify(c.id)} is used twice (also ${pointer("evals", seen.get(key)!)}/id); ids name the eval-<id> folders`,
      });
    else seen.set(key, i);
    if (c.assertions !== undefined && c.expectations !== undefined) {
      violations.push({
        pointer: `${at}/expectations`,
        message: 'both "assertions" and "expectations" are given: use one ("expectations" is read as "assertions")',
      });
    }
    const field = c.assertions !== undefined ? "assertions" : "expectations";
    const assertions = (c.assertions ?? c.expectations ?? []) as Assertion[];
    // Fail closed: a case that asserts nothing would pass whatever the agent did.
    if (assertions.length === 0)
      violations.push({
        pointer: c.assertions !== undefined || c.expectations !== undefined ? `${at}/${field}` : at,
        message:
          "grades nothing: a case needs at least one assertion (a plain string for the judge, or an object of a kind skillrig checks)",
        rule: "vacuous",
      });
    const checked = assertions.map((a, j) => checkAssertion(a, `${at}/${field}/${j}`, skill, runner, violations));
    const files: LoadedCase["files"] = [];
    const targets = new Map<string, number>();
    (c.files ?? []).forEach((path, j) => {
      const found = insideFolder(skill.dir, path);
      if (!found.ok) {
        violations.push({
          pointer: `${at}/files/${j}`,
          message: `${JSON.stringify(path)} ${found.why}; a case's files are paths inside the skill folder`,
        });
        return;
      }
      if (!lstatSync(found.abs).isFile()) {
        violations.push({ pointer: `${at}/files/${j}`, message: `${JSON.stringify(path)} is not a regular file` });
        return;
      }
      const workspacePath = workspacePathOf(path);
      if (targets.has(workspacePath)) {
        violations.push({
          pointer: `${at}/files/${j}`,
          message: `${JSON.stringify(path)} goes to ${workspacePath} in the workspace, as files/${targets.get(workspacePath)} does`,
        });
        return;
      }
      targets.set(workspacePath, j);
      files.push({ path, source: found.abs, workspacePath });
    });
    cases.push({
      id: c.id,
      prompt: c.prompt,
      ...(c.expected_output !== undefined ? { expected_output: c.expected_output } : {}),
      assertions: checked as Assertion[],
      files,
    });
  });
  if (violations.length > 0) fail(file, label, violations);
  return { file, skill_name: doc.skill_name, cases };
}

/** Reads and checks `<skill>/evals/triggers.json`; undefined when the skill has none. */
export function loadTriggers(skill: EvalSkill): LoadedTriggers | undefined {
  const file = join(skill.dir, "evals", "triggers.json");
  if (!existsSync(file)) return undefined;
  const label = `evals/triggers.json of skill "${skill.id}"`;
  const data = readJsonFile(file, label);
  // The two accepted shapes are told apart here, so a problem is reported against the shape that was meant.
  const isArray = Array.isArray(data);
  const violations = isArray
    ? validator("triggers:queries", sub(triggersJsonSchema, "queries")).validate(data)
    : validator("triggers", triggersJsonSchema).validate(data);
  if (!isArray && violations.length > 0 && (typeof data !== "object" || data === null)) {
    fail(file, label, [{ pointer: "", message: 'must be an array of queries, or an object { "queries": [...] }' }]);
  }
  if (!isArray && violations.length > 0) {
    // Report against the object shape only (the anyOf's array branch says nothing useful about an object).
    const object = validator("triggers:object", {
      $schema: triggersJsonSchema.$schema,
      definitions: triggersJsonSchema.definitions,
      type: "object",
      required: ["queries"],
      properties: { $schema: { type: "string" }, queries: { $ref: "#/definitions/queries" } },
      additionalProperties: false,
    });
    fail(file, label, object.validate(data));
  }
  if (violations.length > 0) fail(file, label, violations);
  const queries = (isArray ? data : (data as { queries: TriggerQuery[] }).queries) as TriggerQuery[];
  const base = isArray ? "" : "/queries";
  const seen = new Map<string, number>();
  const dupes: Violation[] = [];
  queries.forEach((q, i) => {
    const key = q.query.trim();
    if (seen.has(key)) dupes.push({ pointer: `${base}/${i}/query`, message: `repeats ${base}/${seen.get(key)}/query` });
    else seen.set(key, i);
  });
  if (dupes.length > 0) fail(file, label, dupes);
  return { file, queries };
}
