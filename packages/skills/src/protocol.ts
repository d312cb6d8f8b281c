/**
 * The one reader of the Input & File Protocol's schema annotations (`@skillrig/skills/protocol`): which input
 * fields are files and which inline (`x-input-source`, default file), their `extensions`, the parameters, the
 * artifacts of the output schema (`x-type: artifact`, `x-role`, `x-filename`), which engines a skill supports,
 * and whether an upload's file names fit the file fields. The loader, the job flow, the server's request checks,
 * the CLI and the web form all ask here, so they cannot disagree.
 *
 * Browser-safe: this module imports types only (no `node:` builtin, nothing from core at run time); the web form
 * bundles it. Keep it that way: a runtime import here breaks the view's build and `test/protocol-import.test.ts`.
 */
import type { ArtifactSpec, JobRequest, JsonSchema, SkillManifest, Violation } from "@skillrig/core";
import { RESERVED_WORKSPACE_FOLDERS } from "./workspace-folders.js";

export {
  ENGINE_WORKSPACE_FOLDERS,
  RESERVED_WORKSPACE_FOLDERS,
  SKILL_DISCOVERY_DIRS,
  SKILL_INSTALL_DIRS,
  SKILLRIG_WORKSPACE_FOLDER,
} from "./workspace-folders.js";

/** The input annotation naming where a field's value comes from. */
export const INPUT_SOURCE_KEYWORD = "x-input-source";

export type InputSource = "file" | "inline";
const INPUT_SOURCES: readonly unknown[] = ["file", "inline"] satisfies InputSource[];

export function isInputSource(value: unknown): value is InputSource {
  return INPUT_SOURCES.includes(value);
}

export interface InputField {
  name: string;
  source: InputSource;
  required: boolean;
  /** Lower-cased, each starting with "."; undefined when the schema does not restrict them. */
  extensions?: string[];
  description?: string;
}

export interface ParameterField {
  name: string;
  /** The schema's `type`, as written. */
  type?: unknown;
  required: boolean;
  default?: unknown;
  description?: string;
}

/** The part of a skill the schema readers need: a loaded manifest, or anything with its schemas. */
export type SkillSchemas = Pick<SkillManifest, "schemas">;

/** One property of a schema, as written. */
export type SchemaProperty = Record<string, unknown>;

export function schemaProperties(schema: JsonSchema | null | undefined): Record<string, SchemaProperty> {
  if (typeof schema !== "object" || schema === null) return {};
  const props = schema.properties;
  if (typeof props !== "object" || props === null || Array.isArray(props)) return {};
  return props as Record<string, SchemaProperty>;
}

export function schemaRequired(schema: JsonSchema | null | undefined): string[] {
  if (typeof schema !== "object" || schema === null || !Array.isArray(schema.required)) return [];
  return schema.required.filter((r): r is string => typeof r === "string");
}

/** Whether the schema accepts keys it does not list (`additionalProperties` absent, true or a schema). */
export function allowsAdditionalKeys(schema: JsonSchema | null | undefined): boolean {
  if (typeof schema !== "object" || schema === null) return true;
  if (schema.properties === undefined) return schema.additionalProperties !== false;
  return schema.additionalProperties !== undefined && schema.additionalProperties !== false;
}

/** Each property's `type` as written, by name (a value the command line parses as text when it is "string"). */
export function propertyTypes(schema: JsonSchema | null | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schemaProperties(schema)).map(([name, prop]) => [name, prop?.type]));
}

// ---- Inputs

/**
 * An input property's annotations as written, not yet checked (the loader checks them and names what is wrong):
 * `source` is the raw `x-input-source`, `extensions` the raw `extensions`.
 */
export function declaredInputAnnotations(prop: SchemaProperty): { source: unknown; extensions: unknown } {
  return { source: prop[INPUT_SOURCE_KEYWORD], extensions: prop.extensions };
}

/** Where an input property's value comes from: `inline` only when it says so; a file otherwise (the default). */
export function inputSourceOf(prop: SchemaProperty): InputSource {
  return declaredInputAnnotations(prop).source === "inline" ? "inline" : "file";
}

/** The fields of an input schema, in property order. */
export function inputFieldsOf(schema: JsonSchema | null | undefined): InputField[] {
  const required = new Set(schemaRequired(schema));
  return Object.entries(schemaProperties(schema)).map(([name, prop]) => {
    const { extensions } = declaredInputAnnotations(prop);
    return {
      name,
      source: inputSourceOf(prop),
      required: required.has(name),
      extensions: Array.isArray(extensions) ? extensions.map((e) => String(e).toLowerCase()) : undefined,
      description: typeof prop.description === "string" ? prop.description : undefined,
    };
  });
}

export function inputFields(skill: SkillSchemas): InputField[] {
  return inputFieldsOf(skill.schemas.input?.schema);
}

/** The file inputs' names: each is uploaded as `uploads/<name>`. */
export function fileInputNames(skill: SkillSchemas): string[] {
  return inputFields(skill)
    .filter((f) => f.source === "file")
    .map((f) => f.name);
}

/** The file inputs the input schema requires. */
export function requiredFileInputNames(skill: SkillSchemas): string[] {
  return inputFields(skill)
    .filter((f) => f.source === "file" && f.required)
    .map((f) => f.name);
}

/** The inline inputs' names: their values come from the request's `input`. */
export function inlineInputNames(skill: SkillSchemas): string[] {
  return inputFields(skill)
    .filter((f) => f.source === "inline")
    .map((f) => f.name);
}

/** The input schema without its file fields: what a request's inline `input` must satisfy before any upload. */
export function inlineInputSchema(schema: JsonSchema): JsonSchema {
  const files = inputFieldsOf(schema)
    .filter((f) => f.source === "file")
    .map((f) => f.name);
  if (typeof schema !== "object" || files.length === 0) return schema;
  const props = { ...schemaProperties(schema) };
  for (const name of files) delete props[name];
  return { ...schema, properties: props, required: schemaRequired(schema).filter((r) => !files.includes(r)) };
}

// ---- Parameters

export function parameterFields(skill: SkillSchemas): ParameterField[] {
  const schema = skill.schemas.parameter?.schema;
  const required = new Set(schemaRequired(schema));
  return Object.entries(schemaProperties(schema)).map(([name, prop]) => ({
    name,
    type: prop.type,
    required: required.has(name),
    default: prop.default,
    description: typeof prop.description === "string" ? prop.description : undefined,
  }));
}

export function parameterNames(skill: SkillSchemas): string[] {
  return Object.keys(schemaProperties(skill.schemas.parameter?.schema));
}

// ---- Output artifacts

/**
 * An output property's artifact annotations as written, not yet checked; undefined when the property is not
 * marked `x-type: artifact`.
 */
export function declaredArtifactAnnotations(prop: SchemaProperty): { role: unknown; filename: unknown } | undefined {
  if (prop["x-type"] !== "artifact") return undefined;
  return { role: prop["x-role"], filename: prop["x-filename"] };
}

/** The artifacts an output schema declares, in property order: role default "output", filename default the key. */
export function artifactsOf(schema: JsonSchema | null | undefined): ArtifactSpec[] {
  const required = new Set(schemaRequired(schema));
  const out: ArtifactSpec[] = [];
  for (const [field, prop] of Object.entries(schemaProperties(schema))) {
    const artifact = declaredArtifactAnnotations(prop);
    if (!artifact) continue;
    out.push({
      field,
      role: typeof artifact.role === "string" ? artifact.role : "output",
      filename: typeof artifact.filename === "string" ? artifact.filename : field,
      required: required.has(field),
    });
  }
  return out;
}

// ---- Engines

/** Whether a skill runs on `engine`: runner.json's `engines` lists it, or lists none (any engine). */
export function supportsEngine(skill: Pick<SkillManifest, "engines">, engine: string): boolean {
  return skill.engines.length === 0 || skill.engines.includes(engine);
}

/**
 * The refusal of a job for an engine the skill does not list (`engine_not_found`), or undefined when the skill
 * supports it. The caller throws it with the location it knows (the request's `/engine`, runner.json's `/engines`).
 */
export function unsupportedEngineMessage(skill: Pick<SkillManifest, "id" | "engines">, engine: string): string | undefined {
  if (supportsEngine(skill, engine)) return undefined;
  return `skill "${skill.id}" supports the engines ${skill.engines.join(", ")}, not "${engine}"`;
}

// ---- Uploads

/** What is wrong with an upload's file names, every violation listed; the code is the one to answer with. */
export interface UploadNamesProblem {
  code: "input_missing_file" | "input_invalid";
  message: string;
  violations: Violation[];
}

/** RFC 6901 escaping (core's `escapePointerToken`; repeated here because core's entry is not browser-safe). */
function pointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Why `key` cannot be where a plain skill's file goes in the workspace (`--file data/sales.csv=./sales.csv`), or
 * undefined: it must be a relative file path, without `..`, outside the folders skillrig and the engines own.
 */
export function workspaceFileKeyProblem(key: string): string | undefined {
  if (key === "" || key.includes("\0")) return `"${key}" is not a file path`;
  if (key.startsWith("/") || key.startsWith("\\") || /^[A-Za-z]:/.test(key))
    return `"${key}" is an absolute path; name where the file goes inside the workspace, relative (data/sales.csv)`;
  const segments = key.split(/[\\/]+/);
  if (segments.includes("..")) return `"${key}" has a ".." segment; the file must stay inside the workspace`;
  if (segments[segments.length - 1] === "" || segments[segments.length - 1] === ".") return `"${key}" names a folder, not a file`;
  const first = segments.find((s) => s !== ".");
  if (first !== undefined && RESERVED_WORKSPACE_FOLDERS.includes(first))
    return `"${key}" lands in ${first}/, which skillrig and the engines own (the installed skill, engine settings); put the file elsewhere in the workspace`;
  return undefined;
}

/**
 * Checks the names of an upload's files (a zip's entries) against the skill's file inputs: a name that is no file
 * input (pointer `/<name>`), a required file input with no file (pointer `/input/<field>`, rule
 * `input_missing_file`). Undefined when the names fit.
 */
export function checkUploadNames(skill: Pick<SkillManifest, "id" | "schemas">, names: readonly string[]): UploadNamesProblem | undefined {
  const files = fileInputNames(skill);
  const violations: Violation[] = [];
  for (const name of names) {
    if (!files.includes(name)) {
      violations.push({
        pointer: `/${pointerToken(name)}`,
        field: name,
        message: `"${name}" is not a file input of skill "${skill.id}" (file inputs: ${files.join(", ") || "none"}); each file is named exactly as its field, at the top of the zip`,
      });
    }
  }
  for (const field of requiredFileInputNames(skill)) {
    if (!names.includes(field)) {
      violations.push({
        pointer: `/input/${pointerToken(field)}`,
        field,
        rule: "input_missing_file",
        message: `the required file input "${field}" is not in the zip`,
      });
    }
  }
  if (violations.length === 0) return undefined;
  return {
    code: violations.some((v) => v.rule === "input_missing_file") ? "input_missing_file" : "input_invalid",
    message: `the upload does not fit skill "${skill.id}": ${violations.map((v) => v.message).join("; ")}`,
    violations,
  };
}

// ---- Plain Agent Skills and skill_install

export const SKILL_INSTALL_MODES: readonly string[] = ["referenced", "discoverable", "none"];

/**
 * What only the skill's kind decides, every problem listed with its pointer into the request: a plain Agent Skill
 * (`plain`) needs `prompt` (its job's whole task), takes no `input` or `parameter`, and its `files` keys are paths
 * inside the workspace (`workspaceFileKeyProblem`); a runner.json skill renders its own prompt, so `prompt` is
 * refused. `options.skill_install` is one of SKILL_INSTALL_MODES; `options.attempt` a whole number from 1.
 */
export function promptAndInstallViolations(
  skill: Pick<SkillManifest, "id" | "plain">,
  request: Pick<JobRequest, "prompt" | "input" | "parameter" | "files" | "options">,
): Violation[] {
  const violations: Violation[] = [];
  const install: unknown = request.options?.skill_install;
  if (install !== undefined && !SKILL_INSTALL_MODES.includes(install as string)) {
    violations.push({
      pointer: "/options/skill_install",
      field: "skill_install",
      message: `must be "referenced", "discoverable" or "none", not ${JSON.stringify(install)}`,
    });
  }
  const attempt: unknown = request.options?.attempt;
  if (attempt !== undefined && !(Number.isInteger(attempt) && (attempt as number) >= 1 && (attempt as number) <= 1000)) {
    violations.push({
      pointer: "/options/attempt",
      field: "attempt",
      message: `must be a whole number from 1 to 1000 (which attempt of a retried run the job is), not ${JSON.stringify(attempt)}`,
    });
  }
  if (skill.plain !== true) {
    if (request.prompt !== undefined) {
      violations.push({
        pointer: "/prompt",
        field: "prompt",
        message: `skill "${skill.id}" renders its own prompt from assets/runner.json and its inputs: give "input", "parameter" and "files", not "prompt" (a prompt is for a plain Agent Skill, one with no runner.json)`,
      });
    }
    return violations;
  }
  if (typeof request.prompt !== "string" || request.prompt.trim() === "") {
    violations.push({
      pointer: "/prompt",
      field: "prompt",
      message: `skill "${skill.id}" is a plain Agent Skill (SKILL.md, no assets/runner.json): the job needs a prompt, the task as the agent gets it (skillrig run ${skill.id} --prompt "..." or --prompt-file <file>)`,
    });
  }
  for (const key of ["input", "parameter"] as const) {
    const value: unknown = request[key];
    if (value !== undefined && (typeof value !== "object" || value === null || Object.keys(value).length > 0)) {
      violations.push({
        pointer: `/${key}`,
        field: key,
        message: `skill "${skill.id}" is a plain Agent Skill: it has no ${key} schema, so the job takes no ${key} values; say it in the prompt`,
      });
    }
  }
  for (const key of Object.keys(request.files ?? {})) {
    const problem = workspaceFileKeyProblem(key);
    if (problem) violations.push({ pointer: `/files/${pointerToken(key)}`, field: key, message: problem });
  }
  return violations;
}
