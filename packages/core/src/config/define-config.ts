import type { SkillrigPlugin } from "../plugin.js";

/** A plugin in the config: an instance, a package name (or ./path), or [name, options]. */
export type PluginEntry = SkillrigPlugin | string | [string] | [string, Record<string, unknown>];

export interface SandboxLimitsConfig {
  cpu_ms?: number;
  memory_bytes?: number;
  processes?: number;
  output_bytes?: number;
  file_bytes?: number;
  /** The most a case may have on disk (its folder, and its private temp folder where that is on disk); default 256 MiB. */
  disk_bytes?: number;
}

/**
 * The config file's shape: core's own keys. `config.schema.json` is their JSON Schema; keep the two in step.
 * Every other section is added by the package that reads it, by declaration merging, beside its schema fragment
 * (its `ConfigSection`):
 *
 *     declare module "@skillrig/core" {
 *       interface SkillrigConfig { server?: ServerConfig }
 *     }
 *
 * so `runner.config.server` is typed wherever @skillrig/server's types are loaded.
 */
export interface SkillrigConfig {
  $schema?: string;
  plugins?: PluginEntry[];
  /** Apply the built-in plugins (function/script/cli deliverables, default sandbox, compare modes). Default true. */
  builtins?: boolean;
  /** Where run folders go, relative to the config file. Default `.skillrig/runs`. */
  runs_dir?: string;
}

/** Identity function that exists only to give a config file types. */
export function defineConfig(config: SkillrigConfig): SkillrigConfig {
  return config;
}
