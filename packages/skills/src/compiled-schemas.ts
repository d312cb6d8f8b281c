/**
 * Compiled validators of a skill's schemas, kept per schema object. Compiling a JSON Schema (ajv code generation)
 * costs far more than validating with it, and a jobs server runs the same skill's schemas for every job: a loaded
 * manifest is reused while its files are unchanged, so its schema objects are too, and each is compiled once. A
 * WeakMap lets a schema and its validator go when the manifest holding them is dropped.
 */
import { compileSchema, type CompiledSchema, type JsonSchema, type SchemaValidatorOptions } from "@skillrig/core";

const plain = new WeakMap<object, CompiledSchema>();
const withDefaults = new WeakMap<object, CompiledSchema>();

export function compiledSchema(schema: JsonSchema, options: SchemaValidatorOptions = {}): CompiledSchema {
  if (typeof schema !== "object" || schema === null) return compileSchema(schema, options);
  // Only `useDefaults` varies between the callers; anything else is compiled afresh rather than mixed up.
  const keyed = Object.keys(options).every((k) => k === "useDefaults");
  if (!keyed) return compileSchema(schema, options);
  const cache = options.useDefaults ? withDefaults : plain;
  let compiled = cache.get(schema);
  if (!compiled) {
    compiled = compileSchema(schema, options);
    cache.set(schema, compiled);
  }
  return compiled;
}
