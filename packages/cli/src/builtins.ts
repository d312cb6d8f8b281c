/**
 * The plugins the CLI applies after the config's own (unless the config says `builtins: false`).
 * Each line imports one plugin package that the CLI depends on.
 */
import type { LoadedConfig, SkillrigPlugin } from "@skillrig/core";

export async function builtinPlugins(_loaded: LoadedConfig): Promise<SkillrigPlugin[]> {
  const plugins: SkillrigPlugin[] = [];
  return plugins;
}
