/**
 * The config sections of the packages the CLI bundles, registered when the config is loaded (before any plugin or
 * command module is imported), so `server`, `solve`, ... are known whether or not the built-in plugins are on
 * (`builtins: false` turns off plugins, not sections). Each comes from its package's light `config-section` entry.
 * `config.schema.json` at this package's root is core's base schema composed with these (scripts/write-config-schema.mjs).
 */
import { composeConfigSchema, loadBuiltinSections, type ConfigSection } from "@skillrig/core";
import { cliBuiltins, importCliModule } from "./builtins.js";

// The list is builtins.ts's (the server's job workers load the same one); the server's is a stand-in when it is not installed.
export const builtinConfigSections: readonly ConfigSection[] = await loadBuiltinSections(cliBuiltins, importCliModule);

/** The schema editors get for a project using only the bundled packages: what `skillrig init` points `$schema` at. */
export function bundledConfigSchema(): Record<string, unknown> {
  const schema = composeConfigSchema(builtinConfigSections);
  // The base schema's $id names core's schema; this one is the CLI's composition.
  schema.$id = "https://skillrig.dev/schemas/cli/config.schema.json";
  schema.description = `${String(schema.description)} This schema: core's keys and the sections of the packages @skillrig/cli bundles; \`skillrig config schema\` writes one that adds your plugins' sections.`;
  return schema;
}

/** The composed schema as it is written to a file: two-space JSON with a final newline. */
export function schemaText(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
