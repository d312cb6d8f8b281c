/**
 * Skill packages: `skills/<id>/SKILL.md` + `skills/<id>/assets/runner.json` + the schemas runner.json names, or a
 * plain Agent Skill (`skills/<id>/SKILL.md` alone, the specification's format; see `plainManifest`).
 * `checkSkill` collects every problem (for `skillrig skills validate`); `loadSkill` throws them as one
 * `invalid_skill` error. Every problem names the file and, inside JSON, the pointer.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join, resolve } from "node:path";
import {
  compileSchema,
  jsonSyntaxProblem,
  pointer,
  SkillrigError,
  type CompiledSchema,
  type JsonSchema,
  type Runner,
  type SkillManifest,
  type Violation,
} from "@skillrig/core";
import { parseFrontMatter } from "./front-matter.js";
import { checkSpecFrontMatter, type ProblemSource, type SkillProblem } from "./spec-conformance.js";
import { displayPath, isSafeRelativePath, resolveInside } from "./paths.js";
import {
  artifactsOf,
  declaredArtifactAnnotations,
  declaredInputAnnotations,
  INPUT_SOURCE_KEYWORD,
  inputFields,
  inputSourceOf,
  isInputSource,
  parameterNames,
  schemaProperties,
  supportsEngine,
} from "./protocol.js";
import { checkTemplate } from "./template.js";

const require = createRequire(import.meta.url);
/** The published JSON Schema of assets/runner.json (also exported as `@skillrig/skills/runner-schema.json`). */
export const runnerJsonSchema: Record<string, unknown> = require("./runner.schema.json");
let runnerValidator: CompiledSchema | undefined;

export const SKILL_ID_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

export function isSafeSkillId(id: string): boolean {
  return id.length <= 64 && SKILL_ID_PATTERN.test(id);
}

export interface SkillCheck {
  dir: string;
  /**
   * Present when skillrig can run the skill: no error but the Agent Skills specification's own rules
   * (`source: "agent-skills-spec"` problems from `checkSpecFrontMatter`, which do not stop a job).
   */
  manifest?: SkillManifest;
  /** Every error, each saying whose rule it is (`source`); any error fails `skillrig skills validate`. */
  errors: SkillProblem[];
  /** Things that load but are probably wrong (unknown keys, `{{ input.x }}` naming a parameter ...). */
  warnings: SkillProblem[];
}

/** A problem whose origin may already be set (the front matter's are the specification's). */
type Problem = Violation & { source?: ProblemSource };

/** Tags problems with their rule's origin, keeping one already set. */
function from(source: ProblemSource, problems: Problem[]): SkillProblem[] {
  return problems.map((p) => ({ ...p, source: p.source ?? source }));
}

function readJson(file: string, errors: Violation[]): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    errors.push({
      file: displayPath(file),
      message: `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    });
    return undefined;
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const where = jsonSyntaxProblem(text);
    errors.push({
      file: displayPath(file),
      line: where?.line,
      message: where
        ? `is not valid JSON: line ${where.line}, column ${where.column}: ${where.problem}\n${where.excerpt.replace(/^/gm, "      ")}`
        : `is not valid JSON: ${(error as Error).message}`,
    });
    return undefined;
  }
}

const SCHEMA_KINDS = ["input", "parameter", "output"] as const;
const KNOWN_RUNNER_KEYS = new Set(Object.keys((runnerJsonSchema.properties as object) ?? {}));

/**
 * Checks one skill package folder and collects every problem: skillrig's own (which stop the skill from loading)
 * and, after them, the Agent Skills specification's front matter rules (which do not).
 */
export function checkSkill(dirPath: string): SkillCheck {
  const dir = resolve(dirPath);
  const specProblems: SkillProblem[] = [];
  const { manifest, errors, warnings } = checkRunnable(dir, specProblems);
  const result: SkillCheck = { dir, errors: [...from("skillrig", errors), ...specProblems], warnings: from("skillrig", warnings) };
  if (manifest) result.manifest = manifest;
  return result;
}

/** What skillrig's own checks of one skill folder found: errors and warnings in the order found. */
interface RunnableCheck {
  manifest?: SkillManifest;
  errors: Problem[];
  warnings: Problem[];
}

/** A skill folder's files and how problems name them. */
interface SkillFiles {
  dir: string;
  skillMdFile: string;
  runnerFile: string;
  skillMdLabel: string;
  runnerLabel: string;
}

/**
 * skillrig's own checks; the front matter's parse and required-field problems are the specification's rules
 * too (and skillrig needs them), so they are tagged as the specification's here and still stop loading.
 * Spec-only problems go to `specProblems`.
 */
function checkRunnable(dir: string, specProblems: SkillProblem[]): RunnableCheck {
  const result: RunnableCheck = { errors: [], warnings: [] };
  const { errors } = result;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    errors.push({
      file: displayPath(dir),
      message:
        "is not a folder (a skill package is a folder with SKILL.md, and assets/runner.json for a skill that declares its inputs and output)",
    });
    return result;
  }
  const skillMdFile = join(dir, "SKILL.md");
  const runnerFile = join(dir, "assets", "runner.json");
  const files: SkillFiles = { dir, skillMdFile, runnerFile, skillMdLabel: displayPath(skillMdFile), runnerLabel: displayPath(runnerFile) };
  // A plain Agent Skill: SKILL.md and no assets/runner.json. Its SKILL.md is the agent's as written (no template).
  const plain = existsSync(skillMdFile) && !existsSync(runnerFile);
  const { skillMd, frontMatter } = checkSkillMd(files, plain, result, specProblems);
  if (plain) {
    if (frontMatter && errors.length === 0) result.manifest = plainManifest(dir, skillMdFile, runnerFile, frontMatter, errors);
    return result;
  }
  const raw = readRunnerJson(files, result);
  if (raw === undefined) return result;
  const id = checkRunnerId(files, raw, frontMatter, errors);
  const schemas = checkSchemas(files, raw, errors);
  const { prompts, engines } = checkPrompts(files, raw, result);
  if (errors.length > 0 || id === undefined) return result;
  const runtime = raw.runtime as SkillManifest["runtime"] | undefined;
  const manifest: SkillManifest = {
    id,
    name: typeof raw.name === "string" ? raw.name : String(frontMatter?.name ?? id),
    description: typeof raw.description === "string" ? raw.description : String(frontMatter?.description ?? ""),
    version: typeof raw.version === "string" ? raw.version : undefined,
    engines,
    dir,
    skillMdFile,
    runnerFile,
    runner: raw,
    schemas,
    prompts,
    runtime,
    artifacts: artifactsOf(schemas.output?.schema),
  };
  result.warnings.push(...checkTemplateReferences(manifest, skillMd ?? "", files.skillMdLabel, files.runnerLabel));
  result.manifest = manifest;
  return result;
}

/** SKILL.md: there, its front matter (the specification's rules), and, for a skill with runner.json, a valid template. */
function checkSkillMd(
  files: SkillFiles,
  plain: boolean,
  { errors }: RunnableCheck,
  specProblems: SkillProblem[],
): { skillMd?: string; frontMatter?: Record<string, unknown> } {
  const { skillMdFile, skillMdLabel } = files;
  if (!existsSync(skillMdFile)) {
    errors.push({
      file: skillMdLabel,
      message: "is missing: every skill package needs a SKILL.md with `name` and `description` front matter",
      source: "agent-skills-spec",
    });
    return {};
  }
  const skillMd = readFileSync(skillMdFile, "utf8");
  const parsed = parseFrontMatter(skillMd, skillMdLabel);
  errors.push(...from("agent-skills-spec", parsed.problems));
  const frontMatter = parsed.frontMatter?.data;
  if (frontMatter) specProblems.push(...checkSpecFrontMatter(frontMatter, basename(files.dir), skillMdLabel));
  if (!plain) {
    try {
      checkTemplate(skillMd, skillMdLabel);
    } catch (error) {
      const e = error as SkillrigError;
      errors.push({ file: skillMdLabel, line: e.line, message: e.message, rule: "template_error" });
    }
  }
  return { skillMd, frontMatter };
}

/** assets/runner.json as an object checked against its schema (unknown keys are warnings); undefined when unusable. */
function readRunnerJson(files: SkillFiles, { errors, warnings }: RunnableCheck): Record<string, unknown> | undefined {
  const { runnerFile, runnerLabel } = files;
  if (!existsSync(runnerFile)) {
    errors.push({
      file: runnerLabel,
      message: "is missing: every skill package needs assets/runner.json (see @skillrig/skills/runner-schema.json)",
    });
    return undefined;
  }
  const runner = readJson(runnerFile, errors);
  if (runner === undefined) return undefined;
  if (typeof runner !== "object" || runner === null || Array.isArray(runner)) {
    errors.push({ file: runnerLabel, pointer: "", message: "must be a JSON object" });
    return undefined;
  }
  const raw = runner as Record<string, unknown>;
  runnerValidator ??= compileSchema(runnerJsonSchema);
  for (const v of runnerValidator.validate(raw)) errors.push({ ...v, file: runnerLabel, message: `${v.pointer || "(root)"} ${v.message}` });
  for (const key of Object.keys(raw)) {
    if (!KNOWN_RUNNER_KEYS.has(key))
      warnings.push({ file: runnerLabel, pointer: pointer(key), message: `unknown key "${key}" is ignored` });
  }
  return raw;
}

/** runner.json's id, which must be the folder's name and SKILL.md's `name`. */
function checkRunnerId(
  files: SkillFiles,
  raw: Record<string, unknown>,
  frontMatter: Record<string, unknown> | undefined,
  errors: Problem[],
): string | undefined {
  const { dir } = files;
  const id = typeof raw.id === "string" ? raw.id : undefined;
  if (id !== undefined && isSafeSkillId(id) && id !== basename(dir)) {
    errors.push({
      file: files.runnerLabel,
      pointer: "/id",
      message: `id "${id}" must equal the skill's folder name "${basename(dir)}" (skills/<id>/)`,
    });
  }
  if (id !== undefined && typeof frontMatter?.name === "string" && frontMatter.name !== id) {
    errors.push({
      file: files.skillMdLabel,
      pointer: "/name",
      message: `front matter name "${frontMatter.name}" must equal the skill id "${id}" (agents find the skill by this name)`,
    });
  }
  return id;
}

/** The schemas runner.json names: each a file inside the folder, a valid JSON Schema of an object. */
function checkSchemas(files: SkillFiles, raw: Record<string, unknown>, errors: Problem[]): SkillManifest["schemas"] {
  const schemas: SkillManifest["schemas"] = {};
  const schemaPaths = (typeof raw.schemas === "object" && raw.schemas !== null ? raw.schemas : {}) as Record<string, unknown>;
  for (const kind of SCHEMA_KINDS) {
    const rel = schemaPaths[kind];
    if (typeof rel !== "string" || rel === "") continue; // type errors already reported by the runner.json schema
    const schema = readSchema(files, kind, rel, errors);
    if (!schema) continue;
    schemas[kind] = schema;
    const label = displayPath(schema.file);
    if (kind === "input") checkInputSchema(schema.schema, label, errors);
    if (kind === "output") checkOutputSchema(schema.schema, label, errors);
  }
  return schemas;
}

/** One schema file named at /schemas/<kind>, or undefined with the reason in `errors`. */
function readSchema(
  files: SkillFiles,
  kind: (typeof SCHEMA_KINDS)[number],
  rel: string,
  errors: Problem[],
): { file: string; schema: JsonSchema } | undefined {
  const at = `/schemas/${kind}`;
  const file = resolveInside(files.dir, rel);
  if (!file || !isSafeRelativePath(rel)) {
    errors.push({ file: files.runnerLabel, pointer: at, message: `"${rel}" must be a path inside the skill folder (relative, no "..")` });
    return undefined;
  }
  if (!existsSync(file)) {
    errors.push({ file: files.runnerLabel, pointer: at, message: `names ${rel}, which does not exist` });
    return undefined;
  }
  const schema = readJson(file, errors);
  if (schema === undefined) return undefined;
  const label = displayPath(file);
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    errors.push({ file: label, pointer: "", message: "a schema must be a JSON object" });
    return undefined;
  }
  try {
    compileSchema(schema as JsonSchema);
  } catch (error) {
    errors.push({ file: label, message: `is not a valid JSON Schema: ${(error as Error).message}` });
    return undefined;
  }
  const type = (schema as Record<string, unknown>).type;
  if (type !== undefined && type !== "object") {
    errors.push({
      file: label,
      pointer: "/type",
      message: `the ${kind} schema must describe an object (type "object"), not ${JSON.stringify(type)}`,
    });
    return undefined;
  }
  return { file, schema: schema as JsonSchema };
}

/** entrypoint.prompts: each a valid template; one for an engine `engines` does not list is a warning. */
function checkPrompts(
  files: SkillFiles,
  raw: Record<string, unknown>,
  { errors, warnings }: RunnableCheck,
): { prompts: Record<string, string>; engines: string[] } {
  const { runnerLabel } = files;
  const prompts: Record<string, string> = {};
  const entrypoint = raw.entrypoint as { prompts?: Record<string, unknown> } | undefined;
  const engines = Array.isArray(raw.engines) ? (raw.engines as string[]) : [];
  for (const [engine, template] of Object.entries(entrypoint?.prompts ?? {})) {
    if (typeof template !== "string") continue;
    const at = pointer("entrypoint", "prompts", engine);
    try {
      checkTemplate(template, `${runnerLabel}#${at}`);
      prompts[engine] = template;
    } catch (error) {
      const e = error as SkillrigError;
      errors.push({ file: runnerLabel, pointer: at, line: e.line, message: e.message, rule: "template_error" });
    }
    if (!supportsEngine({ engines }, engine)) {
      warnings.push({ file: runnerLabel, pointer: at, message: `a prompt for engine "${engine}", which "engines" does not list` });
    }
  }
  return { prompts, engines };
}

/**
 * The manifest of a plain Agent Skill: its id is the folder's name, name and description come from the front
 * matter; no schemas, no prompts, every engine (`engines` empty).
 */
function plainManifest(
  dir: string,
  skillMdFile: string,
  runnerFile: string,
  frontMatter: Record<string, unknown>,
  errors: Problem[],
): SkillManifest | undefined {
  const id = basename(dir);
  if (!isSafeSkillId(id)) {
    errors.push({
      file: displayPath(dir),
      message: `the folder name "${id}" is not a usable skill id (lowercase letters, digits, single "-" or "_" between them, at most 64 characters)`,
    });
    return undefined;
  }
  return {
    id,
    name: String(frontMatter.name ?? id),
    description: String(frontMatter.description ?? ""),
    version: undefined,
    engines: [],
    dir,
    skillMdFile,
    runnerFile,
    plain: true,
    runner: {},
    schemas: {},
    prompts: {},
    artifacts: [],
  };
}

function checkInputSchema(schema: JsonSchema, file: string, errors: Violation[]) {
  for (const [name, prop] of Object.entries(schemaProperties(schema))) {
    const at = pointer("properties", name);
    const { source, extensions } = declaredInputAnnotations(prop);
    if (source !== undefined && !isInputSource(source)) {
      errors.push({ file, pointer: `${at}/${INPUT_SOURCE_KEYWORD}`, message: `must be "file" or "inline", not ${JSON.stringify(source)}` });
    }
    if (extensions !== undefined) {
      if (
        !Array.isArray(extensions) ||
        extensions.length === 0 ||
        extensions.some((e) => typeof e !== "string" || !/^\.[^./\\]+$/.test(e))
      ) {
        errors.push({ file, pointer: `${at}/extensions`, message: 'must be a non-empty list of file extensions such as [".txt", ".md"]' });
      } else if (source === "inline") {
        errors.push({
          file,
          pointer: `${at}/extensions`,
          message: `applies to file inputs only; this field is ${INPUT_SOURCE_KEYWORD} inline`,
        });
      }
    }
    if (inputSourceOf(prop) === "file" && prop.type !== undefined && prop.type !== "string") {
      errors.push({
        file,
        pointer: `${at}/type`,
        message: `a file input holds the uploaded file's path, so its type must be "string" (or mark it ${INPUT_SOURCE_KEYWORD}: inline)`,
      });
    }
  }
}

function checkOutputSchema(schema: JsonSchema, file: string, errors: Violation[]) {
  for (const [name, prop] of Object.entries(schemaProperties(schema))) {
    const artifact = declaredArtifactAnnotations(prop);
    if (!artifact) continue;
    const at = pointer("properties", name);
    if (prop.type !== undefined && prop.type !== "string") {
      errors.push({ file, pointer: `${at}/type`, message: 'an artifact field holds the file\'s path, so its type must be "string"' });
    }
    if (artifact.filename !== undefined && (typeof artifact.filename !== "string" || !isSafeRelativePath(artifact.filename))) {
      errors.push({
        file,
        pointer: `${at}/x-filename`,
        message: "must be a relative file path inside the run directory (no leading /, no ..)",
      });
    }
    if (artifact.role !== undefined && typeof artifact.role !== "string") {
      errors.push({ file, pointer: `${at}/x-role`, message: "must be a string" });
    }
  }
}

const REFERENCE = /\{\{-?\s*(input|parameter)\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** Warns about `{{ input.x }}` / `{{ parameter.x }}` that name no field (or the other namespace's field). */
function checkTemplateReferences(manifest: SkillManifest, skillMd: string, skillMdLabel: string, runnerLabel: string): Violation[] {
  const inputs = new Set(inputFields(manifest).map((f) => f.name));
  const parameters = new Set(parameterNames(manifest));
  const sources: Array<[string, string, string | undefined]> = [[skillMd, skillMdLabel, undefined]];
  for (const [engine, text] of Object.entries(manifest.prompts))
    sources.push([text, runnerLabel, pointer("entrypoint", "prompts", engine)]);
  const warnings: Violation[] = [];
  const seen = new Set<string>();
  for (const [text, file, at] of sources) {
    for (const match of text.matchAll(REFERENCE)) {
      const [, ns, name] = match as unknown as [string, "input" | "parameter", string];
      if (name === "items" || name === "keys" || name === "values") continue;
      const key = `${file}${at}:${ns}.${name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const line = text.slice(0, match.index).split("\n").length;
      const where = { file, pointer: at, line: at ? undefined : line };
      if (ns === "input" && !inputs.has(name)) {
        warnings.push({
          ...where,
          message: parameters.has(name)
            ? `{{ input.${name} }} names a parameter, not an input: it renders the parameter's value (with a warning on each run); write {{ parameter.${name} }}`
            : `{{ input.${name} }} names no field of the input schema; it renders empty`,
        });
      } else if (ns === "parameter" && !parameters.has(name)) {
        warnings.push({ ...where, message: `{{ parameter.${name} }} names no field of the parameter schema; it renders empty` });
      }
    }
  }
  return warnings;
}

/** Loads a skill package; throws `invalid_skill` listing every problem. */
export function loadSkill(dir: string): SkillManifest {
  const check = checkSkill(dir);
  if (check.manifest) return check.manifest;
  const lines = check.errors.map(
    (e) => `  ${e.file ?? ""}${e.pointer ? ` ${e.pointer}` : ""}${e.line ? ` line ${e.line}` : ""}: ${e.message}`,
  );
  const first = check.errors[0];
  throw new SkillrigError("invalid_skill", `invalid skill package ${displayPath(check.dir)}:\n${lines.join("\n")}`, {
    file: first?.file,
    pointer: first?.pointer,
    line: first?.line,
    violations: check.errors,
  });
}

export interface FoundSkill {
  id: string;
  dir: string;
  root: string;
}

/** Skill package folders in the roots: every sub-folder holding a SKILL.md or assets/runner.json. */
export function findSkills(roots: string[]): FoundSkill[] {
  const found: FoundSkill[] = [];
  for (const root of roots) {
    if (!existsSync(root) || !statSync(root).isDirectory()) continue;
    for (const name of readdirSync(root).sort()) {
      const dir = join(root, name);
      // A dangling symlink or unreadable entry is not a package; `skills validate <dir>` reports it if named.
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      if (existsSync(join(dir, "SKILL.md")) || existsSync(join(dir, "assets", "runner.json"))) found.push({ id: name, dir, root });
    }
  }
  return found;
}

/** The configured skill roots (`skills.roots`, relative to the config file; default `["skills"]`), absolute. */
export function skillRoots(runner: Runner): string[] {
  return (runner.config.skills?.roots ?? ["skills"]).map((r) => resolve(runner.configDir, r));
}

/** Throws `invalid_config` naming a configured skill root that does not exist. */
export function checkSkillRoots(runner: Runner): void {
  const configured = runner.config.skills?.roots;
  if (!configured) return;
  configured.forEach((root, index) => {
    const abs = resolve(runner.configDir, root);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      throw new SkillrigError("invalid_config", `skill root "${root}" (skills.roots[${index}]) is not a folder: ${abs}`, {
        file: runner.configFile,
        pointer: `/skills/roots/${index}`,
        field: `skills.roots[${index}]`,
      });
    }
  });
}

/** Finds and loads the skill `id` in the runner's configured roots. */
export function resolveSkill(runner: Runner, id: string): SkillManifest {
  if (!isSafeSkillId(id)) {
    throw new SkillrigError("skill_not_found", `"${id}" is not a valid skill id (lowercase letters, digits, "-" and "_"; no paths)`, {
      field: "skill_id",
    });
  }
  checkSkillRoots(runner);
  const roots = skillRoots(runner);
  for (const root of roots) {
    const dir = join(root, id);
    if (existsSync(dir) && statSync(dir).isDirectory()) return loadSkill(dir);
  }
  const available = findSkills(roots).map((s) => s.id);
  throw new SkillrigError(
    "skill_not_found",
    `no skill "${id}" in ${roots.map((r) => displayPath(r)).join(", ")}` +
      (available.length > 0 ? `; available: ${available.join(", ")}` : "; no skills found there"),
    { field: "skill_id", hint: 'set "skills.roots" in skillrig.config to the folders holding your skill packages' },
  );
}
