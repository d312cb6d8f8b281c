/**
 * Finds, loads and validates the config file.
 * Discovery walks up from the working directory and takes the first folder that holds one of
 * CONFIG_FILE_NAMES (in that order); `--config` names a file directly.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { SkillrigError, type Violation } from "../errors.js";
import { compileSchema, compiledFrom, type CompiledSchema } from "../schema-validation.js";
import { schemaKey, type PrecompiledSchema } from "../precompiled-schema.js";
import { pointerToKeyPath } from "../json-pointer.js";
import { readJsonFile } from "../json-text.js";
import { closestName } from "../closest-name.js";
import type { SkillrigPlugin } from "../plugin.js";
import {
  CORE_CONFIG_KEYS,
  checkConfigSections,
  sectionThatDoesNotCompile,
  composeConfigSchema,
  describeKnownSections,
  type ConfigSection,
  type SectionSource,
} from "./config-section.js";
import type { SkillrigConfig } from "./define-config.js";
import { loadPlugins, type PluginSource } from "./resolve-plugins.js";
import { importTypeScript } from "./typescript-module.js";

export const CONFIG_FILE_NAMES = [
  "skillrig.config.ts",
  "skillrig.config.mts",
  "skillrig.config.js",
  "skillrig.config.mjs",
  "skillrig.config.json",
] as const;

export interface LoadedConfig {
  config: SkillrigConfig;
  /** Absolute path of the config file, or undefined when none was found (defaults apply). */
  file?: string;
  /** Folder relative paths in the config resolve against. */
  dir: string;
  /** The config's plugins, resolved and validated with the config (`createRunner` applies these). */
  plugins?: SkillrigPlugin[];
  /** Where each of `plugins` came from, in the same order (`skillrig plugins` shows it). */
  pluginSources?: PluginSource[];
  /** Every section the config was validated against: the host's and its plugins'. */
  sections?: ConfigSection[];
}

export interface LoadConfigOptions {
  cwd?: string;
  /** A config file to load instead of discovering one (`--config`). */
  configPath?: string;
  /**
   * Sections the host knows without a plugin listed in the config: the CLI registers those of its bundled
   * packages (`oracle`, `sandbox`, `skills`, `server`, `solve`, `run`). The config's plugins add theirs.
   */
  sections?: readonly ConfigSection[];
  /**
   * Validators compiled when the host was built (`precompiledSchemaModule`) for the composed schemas it expects:
   * the CLI's for its own sections. One whose key matches the composed schema is used instead of compiling it;
   * a config whose plugins add sections composes another schema, compiled now.
   */
  precompiled?: readonly PrecompiledSchema[];
}

// Validators by composed schema: a process loads one config (the CLI) or a few (tests, the server's workers).
const validators = new Map<string, CompiledSchema<SkillrigConfig>>();
function configValidator(sections: readonly ConfigSection[], precompiled: readonly PrecompiledSchema[]): CompiledSchema<SkillrigConfig> {
  const schema = composeConfigSchema(sections);
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (validator === undefined && precompiled.length > 0) {
    // A key names one schema and its options; the config is validated as written (no defaults filled, no coercion).
    const wanted = schemaKey(schema);
    const match = precompiled.find((p) => p.schemaKey === wanted);
    if (match !== undefined) {
      validator = compiledFrom<SkillrigConfig>(match.validate);
      validators.set(key, validator);
    }
  }
  if (validator === undefined) {
    try {
      validator = compileSchema<SkillrigConfig>(schema);
    } catch (error) {
      const culprit = sectionThatDoesNotCompile(sections);
      throw new SkillrigError(
        "invalid_config",
        culprit
          ? `config section "${culprit.section.section}" of ${culprit.section.owner} is invalid: ${culprit.problem}`
          : `the composed config schema does not compile: ${(error as Error).message}`,
        culprit ? { field: culprit.section.section } : {},
      );
    }
    if (validators.size >= 16) validators.delete(validators.keys().next().value!);
    validators.set(key, validator);
  }
  return validator;
}

/** Walks up from `cwd` to the filesystem root; returns the first config file found. */
export function findConfigFile(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Loads the config named by `configPath`, or the one found from `cwd`, and validates all of it before anything
 * runs: core's keys and the host's sections first, then its plugins are resolved (their sections are part of
 * what a config may say), then every section against its owner's schema. Every problem is listed at once.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const precompiled = options.precompiled ?? [];
  let file: string | undefined;
  if (options.configPath !== undefined) {
    file = resolve(cwd, options.configPath);
    if (!existsSync(file)) {
      throw new SkillrigError("invalid_config", `config file ${options.configPath} does not exist`, { file: options.configPath });
    }
  } else {
    file = findConfigFile(cwd);
  }
  const hostSections = checkConfigSections((options.sections ?? []).map((section) => ({ section })));
  if (file === undefined) return { config: {}, dir: cwd, plugins: [], pluginSources: [], sections: hostSections };
  const raw = await readConfigFile(file);
  assertConfigObject(raw, file);
  // A top-level key nobody has contributed yet may be a plugin's section: judged once the plugins are resolved.
  // Other problems wait too, unless the plugin list itself is malformed and cannot be resolved.
  const early = configViolations(raw, hostSections, precompiled, file).filter((v) => !isUnknownTopLevelKey(v));
  if (early.some((v) => v.pointer === "/plugins" || (v.pointer ?? "").startsWith("/plugins/"))) throwViolations(early, file, hostSections);
  const dir = dirname(file);
  const config = raw as SkillrigConfig;
  const resolved = await loadPlugins(config.plugins ?? [], dir, file);
  const plugins = resolved.map((r) => r.plugin);
  const sections = checkConfigSections([...hostSections.map((section) => ({ section })), ...pluginSections(plugins, file)], file);
  const violations = configViolations(config, sections, precompiled, file);
  if (violations.length > 0) throwViolations(violations, file, sections);
  return { config, file, dir, plugins, pluginSources: resolved.map((r) => r.source), sections };
}

/** Each plugin's `configSections`, with its index in the config for errors; a plugin's malformed list is named. */
function pluginSections(plugins: readonly SkillrigPlugin[], file?: string): SectionSource[] {
  return plugins.flatMap((plugin, pluginIndex) => {
    const declared: unknown = plugin.configSections;
    if (declared === undefined) return [];
    if (!Array.isArray(declared)) {
      throw new SkillrigError(
        "invalid_config",
        `plugin "${plugin.name}" (plugins[${pluginIndex}]) has a configSections that is not an array of config sections`,
        {
          file,
          pointer: `/plugins/${pluginIndex}`,
          field: `plugins[${pluginIndex}]`,
        },
      );
    }
    return declared.map((section: ConfigSection) => ({ section, pluginIndex }));
  });
}

async function readConfigFile(file: string): Promise<unknown> {
  if (file.endsWith(".json")) return readJsonFile(file, { file, what: "config file", code: "invalid_config" });
  try {
    // jiti loads TypeScript and ESM config files without a build step (as vitest and nuxt do).
    const mod = await importTypeScript(file);
    return mod && typeof mod === "object" && "default" in mod ? mod.default : mod;
  } catch (error) {
    throw new SkillrigError("invalid_config", `cannot load config file ${file}: ${(error as Error).message}`, { file, cause: error });
  }
}

/**
 * Validates a config value against core's keys plus `sections` (the host's and its plugins'); throws
 * `invalid_config` naming each key path at fault. A top-level key that no section claims is refused with the
 * list of sections that exist and the package that contributes each.
 */
export function validateConfig(config: unknown, file?: string, sections: readonly ConfigSection[] = []): asserts config is SkillrigConfig {
  assertConfigObject(config, file);
  const violations = configViolations(config, sections, [], file);
  if (violations.length > 0) throwViolations(violations, file, sections);
}

function assertConfigObject(config: unknown, file?: string): asserts config is Record<string, unknown> {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new SkillrigError("invalid_config", `config${file ? ` in ${file}` : ""} must be an object (export default defineConfig({...}))`, {
      file,
    });
  }
}

function configViolations(
  config: object,
  sections: readonly ConfigSection[],
  precompiled: readonly PrecompiledSchema[],
  file?: string,
): Violation[] {
  const raw = configValidator(sections, precompiled).validate(config);
  // Where an anyOf failed (a plugin entry), its branch errors at or below the same pointer add only noise.
  const anyOfAt = raw.filter((v) => v.rule === "anyOf").map((v) => v.pointer ?? "");
  const schema = composeConfigSchema(sections);
  // One line per mistake: the first problem found at a place stands for the place.
  const seen = new Set<string>();
  return raw
    .filter((v) => v.rule === "anyOf" || !anyOfAt.some((p) => v.pointer === p || (v.pointer ?? "").startsWith(`${p}/`)))
    .filter((v) => !seen.has(v.pointer ?? "") && seen.add(v.pointer ?? ""))
    .map((v) => ({
      ...v,
      message: isUnknownTopLevelKey(v) ? unknownSectionMessage(v.pointer!, sections) : describeViolation(v, schema),
      file,
      field: pointerToKeyPath(v.pointer ?? ""),
    }));
}

/** "unknown section", with the nearest known key when the name looks like a slip of the keyboard. */
function unknownSectionMessage(pointer: string, sections: readonly ConfigSection[]): string {
  const near = closestName(pointerToKeyPath(pointer), [...CORE_CONFIG_KEYS, ...sections.map((s) => s.section)]);
  return near === undefined ? "unknown section" : `unknown section (did you mean "${near}"?)`;
}

function throwViolations(violations: Violation[], file: string | undefined, sections: readonly ConfigSection[]): never {
  const lines = violations.map((v) => `  ${v.field}: ${v.message}`);
  const unknownSection = violations.some(isUnknownTopLevelKey);
  if (unknownSection) lines.push(`  (${describeKnownSections(sections)})`);
  const first = violations[0]!;
  throw new SkillrigError("invalid_config", `invalid config${file ? ` in ${file}` : ""}:\n${lines.join("\n")}`, {
    file,
    pointer: first.pointer,
    field: first.field,
    violations,
    details: unknownSection ? { sections: Object.fromEntries(sections.map((s) => [s.section, s.owner])) } : undefined,
    hint: unknownSection
      ? 'a section comes from the package that reads it: check the spelling, or add the plugin that contributes it to "plugins"'
      : undefined,
  });
}

function isUnknownTopLevelKey(v: Violation): boolean {
  return v.rule === "additionalProperties" && /^\/[^/]*$/.test(v.pointer ?? "");
}

/** A violation's message with what to do: the nearest known key for an unknown one, the rule a name must follow. */
function describeViolation(v: Violation, schema: Record<string, unknown>): string {
  if (v.rule === "anyOf") return 'must be a plugin object, a package name, or ["package", { options }]';
  if (v.rule === "additionalProperties") {
    const tokens = (v.pointer ?? "").split("/").slice(1).map(unescapePointerToken);
    const key = tokens.pop()!;
    const known = Object.keys(propertiesAt(schema, tokens));
    if (known.length === 0) return "unknown key";
    const near = closestName(key, known);
    return near !== undefined ? `unknown key (did you mean "${near}"?)` : `unknown key (known here: ${known.join(", ")})`;
  }
  if (v.rule === "pattern" && v.message.startsWith("is not a valid name")) {
    return `${v.message.replace(/: must match pattern "(.*)"$/, "")}: rename it to match ${/pattern "(.*)"$/.exec(v.message)?.[1] ?? "the pattern"}`;
  }
  return v.message;
}

/** The `properties` of the schema that describes the value at `tokens` (through properties, additionalProperties, items). */
function propertiesAt(schema: Record<string, unknown>, tokens: string[]): Record<string, unknown> {
  let at: unknown = schema;
  for (const token of tokens) {
    const node = (at ?? {}) as Record<string, unknown>;
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    if (token in properties) at = properties[token];
    else if (typeof node.additionalProperties === "object") at = node.additionalProperties;
    else if (typeof node.items === "object") at = node.items;
    else return {};
  }
  return (((at ?? {}) as Record<string, unknown>).properties ?? {}) as Record<string, unknown>;
}

function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}
