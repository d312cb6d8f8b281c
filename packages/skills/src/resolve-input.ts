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
import { allowsAdditionalKeys, inputFields, parameterNames, schemaProperties } from "./protocol.js";

/** The violation rule that marks a missing upload; runJob turns it into the `input_missing_file` code. */
export const MISSING_FILE_RULE = "input_missing_file";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export async function resolveJobInput(resolution: JobInputResolution, work: JobWork): Promise<JobInputResolution> {
  const { skill, request, run } = work;
  const violations: Violation[] = [...resolution.violations];
  const warnings: string[] = [...(resolution.warnings ?? [])];
  // A plain Agent Skill has no schemas: its files are already in the workspace, input and parameter were refused.
  if (skill.plain === true) return { ...resolution, violations, warnings };
  const inputSchemaFile = skill.schemas.input ? displayPath(skill.schemas.input.file) : undefined;
  const parameterSchemaFile = skill.schemas.parameter ? displayPath(skill.schemas.parameter.file) : undefined;

  const requestInput = request.input ?? {};
  const requestParameter = request.parameter ?? {};
  if (!isPlainObject(requestInput)) violations.push({ pointer: "/input", message: "must be an object of inline input values" });
  if (!isPlainObject(requestParameter)) violations.push({ pointer: "/parameter", message: "must be an object of parameter values" });

  const fields = inputFields(skill);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const parameters = new Set(parameterNames(skill));
  const input: Record<string, unknown> = isPlainObject(resolution.value) ? { ...resolution.value } : {};

  // Inline values, and request keys that name no inline field.
  if (isPlainObject(requestInput)) {
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

  // File values: only uploads/<field>, by exact name.
  for (const field of fields) {
    if (field.source !== "file") continue;
    const path = join(run.uploads, field.name);
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
    if (field.extensions) {
      // A host file named exactly as the field (a server's uploads/ folder, a zip) carries the protocol's name,
      // not an original one: only its content can be checked.
      const host = request.files?.[field.name];
      const originalName = host === undefined || basename(host) === field.name ? undefined : basename(host);
      const problem = await checkFileExtensions(path, field.extensions, originalName);
      if (problem) {
        violations.push({
          pointer: `/input/${escapePointerToken(field.name)}`,
          field: field.name,
          file: `uploads/${field.name}`,
          rule: "extensions",
          message: problem,
        });
      }
    }
  }
  if (existsSync(run.uploads)) {
    for (const name of readdirSync(run.uploads)) {
      if (byName.get(name)?.source !== "file")
        warnings.push(`uploads/${name} matches no file input of skill "${skill.id}" and is not used`);
    }
  }

  // Merged input against the input schema.
  if (skill.schemas.input) {
    let compiled: CompiledSchema | undefined;
    try {
      compiled = compiledSchema(skill.schemas.input.schema);
    } catch (error) {
      violations.push({ file: inputSchemaFile, message: `is not a valid JSON Schema: ${(error as Error).message}` });
    }
    const alreadyMissing = new Set(violations.filter((v) => v.rule === MISSING_FILE_RULE).map((v) => v.pointer));
    for (const v of compiled?.validate(input) ?? []) {
      const at = `/input${v.pointer ?? ""}`;
      if (alreadyMissing.has(at)) continue;
      if (v.rule === "additionalProperties" && violations.some((x) => x.pointer === at)) continue;
      violations.push({ ...v, pointer: at, message: `input ${v.pointer || "(root)"} ${v.message}` });
    }
  }

  // Parameters: strict keys, schema with defaults filled in.
  const parameter: Record<string, unknown> = isPlainObject(requestParameter) ? structuredClone(requestParameter) : {};
  const parameterSchema = skill.schemas.parameter?.schema;
  if (isPlainObject(requestParameter) && !allowsAdditionalKeys(parameterSchema)) {
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
  if (parameterSchema !== undefined) {
    try {
      const compiled = compiledSchema(parameterSchema, { useDefaults: true });
      for (const v of compiled.validate(parameter)) {
        violations.push({ ...v, pointer: `/parameter${v.pointer ?? ""}`, message: `parameter ${v.pointer || "(root)"} ${v.message}` });
      }
    } catch (error) {
      violations.push({ file: parameterSchemaFile, message: `is not a valid JSON Schema: ${(error as Error).message}` });
    }
  }

  // Schema order, so the prompt lists inputs as the skill author declared them.
  const ordered: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(input, field.name)) ordered[field.name] = input[field.name];
  for (const [key, value] of Object.entries(input)) if (!Object.hasOwn(ordered, key)) ordered[key] = value;
  return { value: ordered, violations, parameter, warnings };
}
