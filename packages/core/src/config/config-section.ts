/**
 * Config sections: the top-level keys of skillrig.config other than core's own, each contributed by the package
 * that reads it (`server` by @skillrig/server, a team's `acme` by its plugin) as a JSON Schema fragment, with its
 * TypeScript type added to `SkillrigConfig` by declaration merging (as vitest adds `test` to vite's config).
 * Core composes its base schema with every registered fragment to validate a config and to give editors one schema.
 */
import { createRequire } from "node:module";
import { byCodeUnit } from "../code-unit-order.js";
import { SkillrigError } from "../errors.js";
import { compileSchema } from "../schema-validation.js";

/** One top-level key of the config file and the package that owns it. */
export interface ConfigSection {
  /** The key in the config file (`server`, `acme`): lowercase letters, digits and `_`, starting with a letter. */
  readonly section: string;
  /** The package that contributes (and reads) the section; named in errors and in the composed schema. */
  readonly owner: string;
  /** A draft-07 JSON Schema of the section's value; `$ref`s point inside the fragment (`#/definitions/x`), never remote. */
  readonly schema: Readonly<Record<string, unknown>>;
}

/** Core's own keys: no package may contribute a section under these names. */
export const CORE_CONFIG_KEYS = ["$schema", "plugins", "builtins", "runs_dir"] as const;

const SECTION_NAME = /^[a-z][a-z0-9_]{0,63}$/;

const require = createRequire(import.meta.url);
/** Core's base schema: its own keys only, unknown keys refused. Sections are added by `composeConfigSchema`. */
export function baseConfigSchema(): Record<string, unknown> {
  return structuredClone(require("./config.schema.json") as Record<string, unknown>);
}

/**
 * Identity helper for types; checks the declaration's shape at once (name, owner, a schema object) so a package's
 * mistake fails its own tests. The schema itself is compiled when a config is loaded with the section (a plugin's
 * section then, with the plugin's pointer): compiling at import would cost every command of every user.
 */
export function defineConfigSection(section: ConfigSection): ConfigSection {
  const problem = sectionProblem(section, false);
  if (problem !== undefined) {
    throw new SkillrigError(
      "invalid_config",
      `config section "${String(section?.section)}" of ${String(section?.owner)} is invalid: ${problem}`,
      {
        field: String(section?.section),
      },
    );
  }
  return Object.freeze({ ...section });
}

/** Why a section declaration cannot be used, or undefined. With `compile`, the schema is compiled, so a bad one is named. */
function sectionProblem(section: ConfigSection, compile: boolean): string | undefined {
  if (typeof section !== "object" || section === null) return "a config section must be an object { section, owner, schema }";
  if (typeof section.owner !== "string" || section.owner === "") return "its owner must be a package name";
  if (typeof section.section !== "string" || !SECTION_NAME.test(section.section)) {
    return `its name must match ${SECTION_NAME.source} (lowercase letters, digits and _, starting with a letter)`;
  }
  if ((CORE_CONFIG_KEYS as readonly string[]).includes(section.section)) return `"${section.section}" is one of core's own keys`;
  if (typeof section.schema !== "object" || section.schema === null || Array.isArray(section.schema)) {
    return "its schema must be a JSON Schema object";
  }
  if (!compile) return undefined;
  try {
    compiledFragment(section.schema);
  } catch (error) {
    return `its schema does not compile: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * The first section whose schema does not compile, with why: for a composed schema that failed to compile, to name
 * the section at fault instead of reporting ajv's message alone.
 */
export function sectionThatDoesNotCompile(sections: readonly ConfigSection[]): { section: ConfigSection; problem: string } | undefined {
  for (const section of sections) {
    const problem = sectionProblem(section, true);
    if (problem !== undefined) return { section, problem };
  }
  return undefined;
}

const fragmentCache = new WeakMap<object, true>();
function compiledFragment(schema: Readonly<Record<string, unknown>>): void {
  if (fragmentCache.has(schema)) return;
  compileSchema(fragmentForComposition(schema));
  fragmentCache.set(schema, true);
}

/** A fragment as it sits inside the composed schema: no `$schema`/`$id` of its own (the base's draft-07 applies). */
function fragmentForComposition(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema: _dialect, $id: _id, ...rest } = structuredClone(schema) as Record<string, unknown>;
  return rest;
}

/** Where a section came from, for errors: the host (the CLI, the server) or the config's plugins[index]. */
export interface SectionSource {
  section: ConfigSection;
  /** Index in the config's `plugins` list when a plugin contributed it. */
  pluginIndex?: number;
}

/**
 * Checks a set of sections together: each declaration valid, no name contributed twice. The same section object
 * given twice (a host list that also names a plugin's) counts once. Throws `invalid_config` for a bad declaration
 * and `plugin_conflict` for two owners of one name, with the config file and the plugin's pointer where known.
 */
export function checkConfigSections(sources: readonly SectionSource[], file?: string): ConfigSection[] {
  const byName = new Map<string, SectionSource>();
  for (const source of sources) {
    const where =
      source.pluginIndex === undefined ? {} : { pointer: `/plugins/${source.pluginIndex}`, field: `plugins[${source.pluginIndex}]` };
    const by = source.pluginIndex === undefined ? "" : ` (plugins[${source.pluginIndex}])`;
    // A plugin's schema is compiled here, to name the plugin if it is broken; the host's own sections (the CLI's
    // bundled packages) are compiled only as part of the composed schema, which names the section if one fails.
    const problem = sectionProblem(source.section, source.pluginIndex !== undefined);
    if (problem !== undefined) {
      throw new SkillrigError(
        "invalid_config",
        `${String(source.section?.owner ?? "a plugin")}${by} contributes config section "${String(source.section?.section)}", which is invalid: ${problem}`,
        { file, ...where },
      );
    }
    const existing = byName.get(source.section.section);
    if (existing === undefined) {
      byName.set(source.section.section, source);
      continue;
    }
    if (existing.section === source.section || sameSection(existing.section, source.section)) continue;
    throw new SkillrigError(
      "plugin_conflict",
      `config section "${source.section.section}" is contributed by both ${existing.section.owner} and ${source.section.owner}${by}; remove one of them from the config`,
      { file, ...where, details: { section: source.section.section, owners: [existing.section.owner, source.section.owner] } },
    );
  }
  return [...byName.values()].map((s) => s.section);
}

/** Two copies of one package's section (the CLI's list and the plugin object) are the same section. */
function sameSection(a: ConfigSection, b: ConfigSection): boolean {
  return a.owner === b.owner && JSON.stringify(a.schema) === JSON.stringify(b.schema);
}

/**
 * The config's JSON Schema: core's base schema with each section under `properties`, its owner in the
 * description. This is what validates a config and what `skillrig config schema` prints for editors.
 */
export function composeConfigSchema(sections: readonly ConfigSection[]): Record<string, unknown> {
  const schema = baseConfigSchema();
  const properties = schema.properties as Record<string, unknown>;
  for (const section of [...sections].sort((a, b) => byCodeUnit(a.section, b.section))) {
    const fragment = rebaseRefs(fragmentForComposition(section.schema), `#/properties/${section.section}`);
    const said = typeof fragment.description === "string" ? `${fragment.description} ` : "";
    properties[section.section] = { ...fragment, description: `${said}(contributed by ${section.owner})` };
  }
  return schema;
}

/** Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

/**
 * A fragment's `$ref`s point inside the fragment (`#/definitions/x`); once it sits at `/properties/<section>` of the
 * composed schema they must say so, for ajv and for editors alike.
 */
function rebaseRefs<T>(value: T, base: string): T {
  if (Array.isArray(value)) return value.map((item) => rebaseRefs(item, base)) as T;
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === "$ref" && typeof child === "string" && child.startsWith("#")) out[key] = `${base}${child.slice(1)}`;
    else out[key] = DATA_KEYWORDS.has(key) ? child : rebaseRefs(child, base);
  }
  return out as T;
}

/** `name (owner)` for each section, and core's keys: what an "unknown section" error lists. */
export function describeKnownSections(sections: readonly ConfigSection[]): string {
  const contributed = [...sections]
    .sort((a, b) => byCodeUnit(a.section, b.section))
    .map((s) => `${s.section} (${s.owner})`)
    .join(", ");
  return `${contributed ? `sections: ${contributed}; ` : "no sections are registered; "}core's keys: ${CORE_CONFIG_KEYS.join(", ")}`;
}
