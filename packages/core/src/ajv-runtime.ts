/**
 * The modules precompiled validators (precompiled-schema.ts) may need at run time: ajv's runtime helpers and
 * ajv-formats' format checks. Generated code asks for one by its module id; it is loaded from core's own ajv and
 * ajv-formats, so a package that ships a precompiled validator depends on neither.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The module ids generated code may ask for. */
export const AJV_RUNTIME_MODULE = /^(ajv\/dist\/runtime\/\w+|ajv-formats\/dist\/formats)$/;

export function ajvRuntime(id: string): unknown {
  if (!AJV_RUNTIME_MODULE.test(id)) throw new Error(`not a module a precompiled validator may load: ${id}`);
  return require(id);
}
