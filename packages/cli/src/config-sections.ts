/**
 * The config sections of the packages the CLI bundles, registered when the config is loaded (before any plugin or
 * command module is imported), so `server`, `solve`, ... are known whether or not the built-in plugins are on
 * (`builtins: false` turns off plugins, not sections). Each comes from its package's light `config-section` entry.
 * `config.schema.json` at this package's root is core's base schema composed with these (scripts/write-config-schema.mjs).
 */
import { composeConfigSchema, type ConfigSection } from "@skillrig/core";
import { evalsConfigSection } from "@skillrig/evals/config-section";
import { oracleConfigSection } from "@skillrig/oracle/config-section";
import { sandboxConfigSection } from "@skillrig/sandbox/config-section";
import { costConfigSection, runConfigSection, skillsConfigSection } from "@skillrig/skills/config-section";
import { solveConfigSection } from "@skillrig/solve/config-section";
import { serverConfigSection } from "./server-package.js";

export const builtinConfigSections: readonly ConfigSection[] = [
  evalsConfigSection,
  costConfigSection,
  oracleConfigSection,
  runConfigSection,
  sandboxConfigSection,
  // The server is an optional peer: its own section when installed, else a stand-in (server-package.ts).
  await serverConfigSection(),
  skillsConfigSection,
  solveConfigSection,
];

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
