/**
 * The plugin API. A plugin is an object with a stable `name` and `apply(runner)`; inside `apply`
 * it taps the runner's hooks and claims what it handles. This file is the public contract for
 * third-party plugins: changing it is a breaking change.
 */
import type { ConfigSection } from "./config/config-section.js";
import type { Runner } from "./runner.js";

export interface SkillrigPlugin {
  /** Stable name, used in hook taps and in error messages (usually the package name). */
  readonly name: string;
  apply(runner: Runner): void;
  /**
   * Top-level config sections this plugin reads (`runner.config.<section>`), validated with the config when it
   * is loaded. Type them by declaration merging into `SkillrigConfig` (docs/plugin-api.md, "Config sections").
   */
  readonly configSections?: readonly ConfigSection[];
}

/** What a plugin package's default export may be: a factory taking options, or a class. */
export type PluginFactory<Options = Record<string, unknown>> =
  | ((options?: Options) => SkillrigPlugin)
  | (new (
      options?: Options,
    ) => SkillrigPlugin);

/** Identity helper that exists for types, as `defineConfig` does. */
export function definePlugin<Options = Record<string, unknown>>(factory: (options?: Options) => SkillrigPlugin) {
  return factory;
}

export function isPlugin(value: unknown): value is SkillrigPlugin {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as SkillrigPlugin).name === "string" &&
    typeof (value as SkillrigPlugin).apply === "function"
  );
}
