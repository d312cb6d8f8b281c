/**
 * What the loader and the protocol read out of a skill's schemas: the input fields with their source
 * (`x-input-source`, default file) and allowed `extensions`, the parameter names, and the artifacts of the
 * output schema (`x-type: artifact`).
 */
import type { ArtifactSpec, JsonSchema, SkillManifest } from "@skillrig/core";

export interface InputField {
  name: string;
  source: "file" | "inline";
  required: boolean;
  /** Lower-cased, each starting with "."; undefined when the schema does not restrict them. */
  extensions?: string[];
  description?: string;
}

type SchemaObject = Record<string, unknown>;

export function schemaProperties(schema: JsonSchema | undefined): Record<string, SchemaObject> {
  if (typeof schema !== "object" || schema === null) return {};
  const props = schema.properties;
  if (typeof props !== "object" || props === null || Array.isArray(props)) return {};
  return props as Record<string, SchemaObject>;
}

export function schemaRequired(schema: JsonSchema | undefined): string[] {
  if (typeof schema !== "object" || schema === null || !Array.isArray(schema.required)) return [];
  return schema.required.filter((r): r is string => typeof r === "string");
}

/** Whether the schema accepts keys it does not list (`additionalProperties` absent, true or a schema). */
export function allowsAdditionalKeys(schema: JsonSchema | undefined): boolean {
  if (typeof schema !== "object" || schema === null) return true;
  if (schema.properties === undefined) return schema.additionalProperties !== false;
  return schema.additionalProperties !== undefined && schema.additionalProperties !== false;
}

export function inputFields(manifest: Pick<SkillManifest, "schemas">): InputField[] {
  const schema = manifest.schemas.input?.schema;
  const required = new Set(schemaRequired(schema));
  return Object.entries(schemaProperties(schema)).map(([name, prop]) => ({
    name,
    source: prop["x-input-source"] === "inline" ? "inline" : "file",
    required: required.has(name),
    extensions: Array.isArray(prop.extensions) ? (prop.extensions as string[]).map((e) => e.toLowerCase()) : undefined,
    description: typeof prop.description === "string" ? prop.description : undefined,
  }));
}

export function parameterNames(manifest: Pick<SkillManifest, "schemas">): string[] {
  return Object.keys(schemaProperties(manifest.schemas.parameter?.schema));
}

/** The artifacts an output schema declares, in property order. */
export function artifactsOf(schema: JsonSchema | undefined): ArtifactSpec[] {
  const required = new Set(schemaRequired(schema));
  const out: ArtifactSpec[] = [];
  for (const [field, prop] of Object.entries(schemaProperties(schema))) {
    if (prop["x-type"] !== "artifact") continue;
    out.push({
      field,
      role: typeof prop["x-role"] === "string" ? prop["x-role"] : "output",
      filename: typeof prop["x-filename"] === "string" ? prop["x-filename"] : field,
      required: required.has(field),
    });
  }
  return out;
}
