/**
 * The Input & File Protocol's input side, for one job:
 * - file inputs (`x-input-source: file`, the default) come only from the run's `uploads/<field>` and become the
 *   file's absolute path; a required one that is missing is `input_missing_file` naming `uploads/<field>`;
 * - inline inputs come from the request's `input`;
 * - keys the schemas do not name are errors (strict), with a hint when the key belongs to the other namespace;
 * - the merged input is validated against the input schema, the parameters against the parameter schema with
 *   defaults filled in; every violation is listed with its pointer into the request (`/input/...`, `/parameter/...`).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { escapePointerToken, type CompiledSchema, type JobInputResolution, type JobWork, type Violation } from "@skillrig/core";
import { compiledSchema } from "./compiled-schemas.js";
import { checkFileExtensions } from "./file-extensions.js";
import { displayPath } from "./paths.js";
import { allowsAdditionalKeys, inputFields, parameterNames, schemaProperties, type InputField } from "./protocol.js";

/** The violation rule that marks a missing upload; runJob turns it into the `input_missing_file` code. */
export const MISSING_FILE_RULE = "input_missing_file";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What every step of one resolution reads: the skill's fields and where its schemas are, for messages. */
interface InputSteps {
  skill: JobWork["skill"];
  fields: InputField[];
  byName: Map<string, InputField>;
  inputSchemaFile: string | undefined;
  parameterSchemaFile: string | undefined;
  /** Every problem found so far, in the order found; later steps read earlier ones (a missing upload is said once). */
  violations: Violation[];
}

export async function resolveJobInput(resolution: JobInputResolution, work: JobWork): Promise<JobInputResolution> {
  const { skill, request, run } = work;
  const violations: Violation[] = [...resolution.violations];
  const warnings: string[] = [...(resolution.warnings ?? [])];
  // A plain Agent Skill has no schemas: its files are already in the workspace, input and parameter were refused.
  if (skill.plain === true) return { ...resolution, violations, warnings };
  const fields = inputFields(skill);
  const steps: InputSteps = {
    skill,
    fields,
    byName: new Map(fields.map((f) => [f.name, f])),
    inputSchemaFile: skill.schemas.input ? displayPath(skill.schemas.input.file) : undefined,
    parameterSchemaFile: skill.schemas.parameter ? displayPath(skill.schemas.parameter.file) : undefined,
    violations,
  };

  const requestInput = request.input ?? {};
  const requestParameter = request.parameter ?? {};
  if (!isPlainObject(requestInput)) violations.push({ pointer: "/input", message: "must be an object of inline input values" });
  if (!isPlainObject(requestParameter)) violations.push({ pointer: "/parameter", message: "must be an object of parameter values" });

  const input: Record<string, unknown> = isPlainObject(resolution.value) ? { ...resolution.value } : {};
  if (isPlainObject(requestInput)) addInlineValues(steps, requestInput, input);
  await addUploadedFiles(steps, run.uploads, request.files, input);
  warnings.push(...unusedUploads(steps, run.uploads));
  checkMergedInput(steps, input);
  const parameter: Record<string, unknown> = isPlainObject(requestParameter) ? structuredClone(requestParameter) : {};
  if (isPlainObject(requestParameter)) dropUnknownParameters(steps, requestParameter, parameter);
  checkParameters(steps, parameter);
  return { value: inSchemaOrder(fields, input), violations, parameter, warnings };
}

/** Inline values into `input`, and request keys that name no inline field as violations. */
function addInlineValues(steps: InputSteps, requestInput: Record<string, unknown>, input: Record<string, unknown>): void {
  const { skill, fields, byName, violations, inputSchemaFile } = steps;
  const parameters = new Set(parameterNames(skill));
  for (const [key, value] of Object.entries(requestInput)) {
    const field = byName.get(key);
    const at = `/input/${escapePointerToken(key)}`;
    if (field?.source === "file") {
      violations.push({
        pointer: at,
        field: key,
        message: `"${key}" is a file input: upload the file as uploads/${key} (skillrig run --file ${key}=<path>), not as an inline value`,
      });
    } else if (field || allowsAdditionalKeys(skill.schemas.input?.schema)) {
      input[key] = value;
    } else {
      violations.push({
        pointer: at,
        field: key,
        message: parameters.has(key)
          ? `"${key}" is a parameter, not an input: pass it under "parameter" (skillrig run --param ${key}=<value>)`
          : `"${key}" is not a field of the input schema${inputSchemaFile ? ` (${inputSchemaFile})` : ""}; fields: ${fields.map((f) => f.name).join(", ") || "none"}`,
      });
    }
  }
}

/** File values: only uploads/<field>, by exact name, each becoming its absolute path in `input`. */
async function addUploadedFiles(
  steps: InputSteps,
  uploads: string,
  hostFiles: Record<string, string> | undefined,
  input: Record<string, unknown>,
): Promise<void> {
  const { violations } = steps;
  for (const field of steps.fields) {
    if (field.source !== "file") continue;
    const path = join(uploads, field.name);
    const exists = existsSync(path);
    const present = exists && statSync(path).isFile();
    if (exists && !present) {
      violations.push({
        pointer: `/input/${escapePointerToken(field.name)}`,
        field: field.name,
        file: `uploads/${field.name}`,
        message: `uploads/${field.name} is a folder; file input "${field.name}" needs a file named exactly "${field.name}"`,
      });
      continue;
    }
    if (!present) {
      // The file named for it (--file field=path) was reported missing already: that is the one mistake to fix.
      const reported = violations.some((v) => v.pointer === `/files/${escapePointerToken(field.name)}`);
      if (field.required && !reported) {
        violations.push({
          pointer: `/input/${escapePointerToken(field.name)}`,
          field: field.name,
          file: `uploads/${field.name}`,
          rule: MISSING_FILE_RULE,
          message: `required file input "${field.name}" was not uploaded: uploads/${field.name} does not exist (upload a file named exactly "${field.name}", or skillrig run --file ${field.name}=<path>)`,
        });
      }
      continue;
    }
    input[field.name] = path;
    if (field.extensions) await checkUploadExtensions(violations, field.name, field.extensions, path, hostFiles?.[field.name]);
  }
}

/** The upload's name and content against the extensions the field allows. */
async function checkUploadExtensions(
  violations: Violation[],
  name: string,
  extensions: string[],
  path: string,
  host: string | undefined,
): Promise<void> {
  // A host file named exactly as the field (a server's uploads/ folder, a zip) carries the protocol's name,
  // not an original one: only its content can be checked.
  const originalName = host === undefined || basename(host) === name ? undefined : basename(host);
  const problem = await checkFileExtensions(path, extensions, originalName);
  if (problem) {
    violations.push({
      pointer: `/input/${escapePointerToken(name)}`,
      field: name,
      file: `uploads/${name}`,
      rule: "extensions",
      message: problem,
    });
  }
}

/** A warning for each file in uploads/ that no file input names. */
function unusedUploads(steps: InputSteps, uploads: string): string[] {
  if (!existsSync(uploads)) return [];
  return readdirSync(uploads)
    .filter((name) => steps.byName.get(name)?.source !== "file")
    .map((name) => `uploads/${name} matches no file input of skill "${steps.skill.id}" and is not used`);
}

/** The merged input against the input schema; a missing upload or an unknown key already listed is not said twice. */
function checkMergedInput(steps: InputSteps, input: Record<string, unknown>): void {
  const { skill, violations } = steps;
  if (!skill.schemas.input) return;
  let compiled: CompiledSchema | undefined;
  try {
    compiled = compiledSchema(skill.schemas.input.schema);
  } catch (error) {
    violations.push({ file: steps.inputSchemaFile, message: `is not a valid JSON Schema: ${(error as Error).message}` });
  }
  const alreadyMissing = new Set(violations.filter((v) => v.rule === MISSING_FILE_RULE).map((v) => v.pointer));
  for (const v of compiled?.validate(input) ?? []) {
    const at = `/input${v.pointer ?? ""}`;
    if (alreadyMissing.has(at)) continue;
    if (v.rule === "additionalProperties" && violations.some((x) => x.pointer === at)) continue;
    violations.push({ ...v, pointer: at, message: `input ${v.pointer || "(root)"} ${v.message}` });
  }
}

/** Parameters are strict: a key the parameter schema does not name is a violation and is dropped from `parameter`. */
function dropUnknownParameters(steps: InputSteps, requestParameter: Record<string, unknown>, parameter: Record<string, unknown>): void {
  const { byName, violations, parameterSchemaFile } = steps;
  const parameterSchema = steps.skill.schemas.parameter?.schema;
  if (allowsAdditionalKeys(parameterSchema)) return;
  const known = new Set(Object.keys(schemaProperties(parameterSchema)));
  for (const key of Object.keys(requestParameter)) {
    if (known.has(key)) continue;
    violations.push({
      pointer: `/parameter/${escapePointerToken(key)}`,
      field: key,
      rule: "unknown_parameter",
      message: byName.has(key)
        ? `"${key}" is an input, not a parameter: pass it as ${byName.get(key)!.source === "file" ? `a file (--file ${key}=<path>)` : `an input (--input ${key}=<value>)`}`
        : `"${key}" is not a field of the parameter schema${parameterSchemaFile ? ` (${parameterSchemaFile})` : ""}; fields: ${[...known].join(", ") || "none"}`,
    });
    delete parameter[key];
  }
}

/** The parameters against the parameter schema, its defaults filled in (`parameter` changes in place). */
function checkParameters(steps: InputSteps, parameter: Record<string, unknown>): void {
  const parameterSchema = steps.skill.schemas.parameter?.schema;
  if (parameterSchema === undefined) return;
  try {
    const compiled = compiledSchema(parameterSchema, { useDefaults: true });
    for (const v of compiled.validate(parameter)) {
      steps.violations.push({ ...v, pointer: `/parameter${v.pointer ?? ""}`, message: `parameter ${v.pointer || "(root)"} ${v.message}` });
    }
  } catch (error) {
    steps.violations.push({ file: steps.parameterSchemaFile, message: `is not a valid JSON Schema: ${(error as Error).message}` });
  }
}

/** Schema order, so the prompt lists inputs as the skill author declared them; keys the schema allows besides, after. */
function inSchemaOrder(fields: InputField[], input: Record<string, unknown>): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(input, field.name)) ordered[field.name] = input[field.name];
  for (const [key, value] of Object.entries(input)) if (!Object.hasOwn(ordered, key)) ordered[key] = value;
  return ordered;
}
