/**
 * Reading a skill's evals: `evals/evals.json` (the cases) and `evals/triggers.json` (the trigger queries), checked
 * against the package's JSON Schemas (evals.schema.json, triggers.schema.json) and then against the skill folder
 * (files that exist inside it, an oracle task inside its evals/). Every problem is a Violation naming the file,
 * the JSON pointer and what was wrong; all of a file's problems are reported together, in one SkillrigError.
 */
import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join, resolve, sep } from "node:path";
import { compileSchema, pointer, SkillrigError, type CompiledSchema, type Violation } from "@skillrig/core";
import type { Assertion, DeterministicAssertion, EvalCase, TriggerQuery } from "./format.js";

const require = createRequire(import.meta.url);
/** The published JSON Schema of evals/evals.json (also `@skillrig/evals/evals-schema.json`). */
export const evalsJsonSchema: Record<string, unknown> = require("./evals.schema.json");
/** The published JSON Schema of evals/triggers.json (also `@skillrig/evals/triggers-schema.json`). */
export const triggersJsonSchema: Record<string, unknown> = require("./triggers.schema.json");

export const ASSERTION_KINDS: ReadonlyArray<DeterministicAssertion["kind"]> = ["file_contains", "regex", "json_schema", "script", "oracle"];

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
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SkillrigError("invalid_skill", `${label} is not valid JSON: ${(error as Error).message}`, { file, pointer: "" });
  }
}

function fail(file: string, label: string, violations: Violation[]): never {
  const lines = violations.map((v) => `  ${v.pointer === "" || v.pointer === undefined ? "(root)" : v.pointer}: ${v.message}`);
  throw new SkillrigError(
    "invalid_skill",
    `${label} has ${violations.length} problem${violations.length === 1 ? "" : "s"}:\n${lines.join("\n")}`,
    { file, pointer: violations[0]?.pointer, violations: violations.map((v) => ({ ...v, file })), hint: `see ${EVALS_DOC}` },
  );
}

/** Whether `path` (relative, as written) stays inside `base`, with no `..` and no link on the way out. */
function insideFolder(base: string, path: string): { ok: true; abs: string } | { ok: false; why: string } {
  if (isAbsolute(path)) return { ok: false, why: "must be a path relative to the skill folder, not an absolute path" };
  if (path.split(/[\\/]/).includes("..")) return { ok: false, why: 'must not contain ".."' };
  const abs = resolve(base, path);
  if (!existsSync(abs)) return { ok: false, why: `does not exist (looked for ${abs})` };
  let real: string;
  let realBase: string;
  try {
    real = realpathSync(abs);
    realBase = realpathSync(base);
  } catch (error) {
    return { ok: false, why: `cannot be resolved: ${(error as Error).message}` };
  }
  if (real !== realBase && !real.startsWith(realBase + sep)) return { ok: false, why: `is a link out of the folder (to ${real})` };
  return { ok: true, abs };
}

/** Where a case file goes in the run's workspace: its path below `evals/files/`, else its basename. */
export function workspacePathOf(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
  if (parts[0] === "evals" && parts[1] === "files" && parts.length > 2) return parts.slice(2).join("/");
  return parts[parts.length - 1]!;
}

function checkAssertion(a: unknown, at: string, skill: EvalSkill, violations: Violation[]): void {
  if (typeof a === "string") {
    if (a.trim() === "") violations.push({ pointer: at, message: "is an empty assertion" });
    return;
  }
  if (typeof a !== "object" || a === null) return; // the schema said so already
  const kind = (a as { kind?: unknown }).kind;
  if (typeof kind !== "string" || !ASSERTION_KINDS.includes(kind as DeterministicAssertion["kind"])) {
    violations.push({
      pointer: `${at}/kind`,
      message: `unknown assertion kind ${JSON.stringify(kind)}: expected one of ${ASSERTION_KINDS.join(", ")}, or a plain string graded by the judge`,
      rule: "enum",
    });
    return;
  }
  for (const v of validator(`evals:${kind}`, sub(evalsJsonSchema, kind)).validate(a)) {
    violations.push({ ...v, pointer: `${at}${v.pointer ?? ""}`, message: `${v.message} (assertion kind ${kind})` });
  }
  if (kind === "regex") {
    const { pattern, flags } = a as { pattern?: unknown; flags?: unknown };
    if (typeof pattern === "string") {
      try {
        new RegExp(pattern, typeof flags === "string" ? flags : undefined);
      } catch (error) {
        violations.push({ pointer: `${at}/pattern`, message: `is not a valid regular expression: ${(error as Error).message}` });
      }
    }
  }
  if (kind === "json_schema") {
    const { schema } = a as { schema?: unknown };
    if (typeof schema === "object" && schema !== null) {
      try {
        compileSchema(schema as Record<string, unknown>);
      } catch (error) {
        violations.push({ pointer: `${at}/schema`, message: `is not a usable JSON Schema: ${(error as Error).message}` });
      }
    }
  }
  if (kind === "oracle") {
    const { task } = a as { task?: unknown };
    if (typeof task === "string") {
      // Relative to the skill folder, as a case's files are (grading resolves it there), and inside its evals/.
      const parts = task.split(/[\\/]/).filter((x) => x !== "" && x !== ".");
      const found: ReturnType<typeof insideFolder> =
        parts[0] !== "evals" || parts.length < 2
          ? { ok: false, why: `is ${JSON.stringify(task)}, not a path under evals/ (relative to the skill folder)` }
          : insideFolder(join(skill.dir, "evals"), parts.slice(1).join("/"));
      if (!found.ok)
        violations.push({
          pointer: `${at}/task`,
          message: `the oracle task file ${found.why}; it must be a file inside the skill's evals/ folder (which never enters the agent's jail)`,
        });
      else if (!lstatSync(found.abs).isFile()) violations.push({ pointer: `${at}/task`, message: "is not a file" });
    }
  }
}

/**
 * Reads and checks `<skill>/evals/evals.json`. Throws a SkillrigError (`invalid_skill`) listing every problem,
 * each with the file and JSON pointer; a skill with no evals.json gets one saying where it looked.
 */
export function loadEvals(skill: EvalSkill): LoadedEvals {
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
    assertions.forEach((a, j) => checkAssertion(a, `${at}/${field}/${j}`, skill, violations));
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
      assertions,
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
