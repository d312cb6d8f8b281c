/**
 * Finds, loads and validates the config file.
 * Discovery walks up from the working directory and takes the first folder that holds one of
 * CONFIG_FILE_NAMES (in that order); `--config` names a file directly.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { InvalidConfigError } from "../errors.js";
import { compileSchema, type CompiledSchema } from "../schema-validation.js";
import { pointerToKeyPath } from "../json-pointer.js";
import type { SkillrigConfig } from "./define-config.js";

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
}

const require = createRequire(import.meta.url);
let validator: CompiledSchema<SkillrigConfig> | undefined;
function configValidator() {
  validator ??= compileSchema<SkillrigConfig>(require("./config.schema.json"));
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

/** Loads the config named by `configPath`, or the one found from `cwd`, and validates it. */
export async function loadConfig(options: { cwd?: string; configPath?: string } = {}): Promise<LoadedConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  let file: string | undefined;
  if (options.configPath !== undefined) {
    file = resolve(cwd, options.configPath);
    if (!existsSync(file)) {
      throw new InvalidConfigError(`config file ${options.configPath} does not exist`, { file: options.configPath });
    }
  } else {
    file = findConfigFile(cwd);
  }
  if (file === undefined) return { config: {}, dir: cwd };
  const raw = await readConfigFile(file);
  validateConfig(raw, file);
  return { config: raw as SkillrigConfig, file, dir: dirname(file) };
}

async function readConfigFile(file: string): Promise<unknown> {
  if (file.endsWith(".json")) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new InvalidConfigError(`cannot read config file ${file}: ${(error as Error).message}`, { file, cause: error });
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new InvalidConfigError(`config file ${file} is not valid JSON: ${(error as Error).message}`, { file, cause: error });
    }
  }
  try {
    // jiti loads TypeScript and ESM config files without a build step (as vitest and nuxt do).
    const { createJiti } = await import("jiti");
    const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false });
    const mod = (await jiti.import(file)) as { default?: unknown };
    return mod && typeof mod === "object" && "default" in mod ? mod.default : mod;
  } catch (error) {
    throw new InvalidConfigError(`cannot load config file ${file}: ${(error as Error).message}`, { file, cause: error });
  }
}

/** Validates a config value; throws `invalid_config` naming each key path at fault. */
export function validateConfig(config: unknown, file?: string): asserts config is SkillrigConfig {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new InvalidConfigError(`config${file ? ` in ${file}` : ""} must be an object (export default defineConfig({...}))`, { file });
  }
  const raw = configValidator().validate(config);
  // Where an anyOf failed (a plugin entry), its branch errors at or below the same pointer add only noise.
  const anyOfAt = raw.filter((v) => v.rule === "anyOf").map((v) => v.pointer ?? "");
  const violations = raw
    .filter((v) => v.rule === "anyOf" || !anyOfAt.some((p) => v.pointer === p || (v.pointer ?? "").startsWith(`${p}/`)))
    .map((v) => ({ ...v, message: describeViolation(v.message, v.rule), file, field: pointerToKeyPath(v.pointer ?? "") }));
  if (violations.length > 0) {
    const lines = violations.map((v) => `  ${v.field}: ${v.message}`);
    const first = violations[0]!;
    throw new InvalidConfigError(`invalid config${file ? ` in ${file}` : ""}:\n${lines.join("\n")}`, {
      file,
      pointer: first.pointer,
      field: first.field,
      violations,
    });
  }
}

function describeViolation(message: string, rule?: string): string {
  if (rule === "additionalProperties") return "unknown key";
  if (rule === "anyOf") return 'must be a plugin object, a package name, or ["package", { options }]';
  return message;
}
