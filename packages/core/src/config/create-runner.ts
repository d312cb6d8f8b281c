import { Runner } from "../runner.js";
import type { SkillrigPlugin } from "../plugin.js";
import type { LoadedConfig } from "./load-config.js";
import { resolvePlugins } from "./resolve-plugins.js";

export interface CreateRunnerOptions {
  cwd?: string;
  /**
   * Plugins the host (the CLI, the server) always offers: the deliverable plugins, the default sandbox ...
   * Applied after the config's plugins, so a user's sandbox or compare mode taps first; skipped when
   * the config says `builtins: false`.
   */
  builtins?: SkillrigPlugin[];
}

/**
 * Builds a runner from a loaded config and applies its plugins in order: those `loadConfig` resolved, or, for a
 * config built by hand, the plugin entries resolved here from the config's folder.
 */
export async function createRunner(loaded: LoadedConfig, options: CreateRunnerOptions = {}): Promise<Runner> {
  const runner = new Runner({ cwd: options.cwd, config: loaded.config, configDir: loaded.dir, configFile: loaded.file });
  const plugins = loaded.plugins ?? (await resolvePlugins(loaded.config.plugins ?? [], loaded.dir, loaded.file));
  for (const plugin of plugins) runner.use(plugin);
  if (loaded.config.builtins !== false) for (const plugin of options.builtins ?? []) runner.use(plugin);
  return runner;
}
