/**
 * The plugins the CLI applies after the config's own (unless the config says `builtins: false`).
 * Each line imports one plugin package that the CLI depends on.
 */
import type { LoadedConfig, SkillrigPlugin } from "@skillrig/core";
import sandboxPlugin from "@skillrig/sandbox";
import { compareModesPlugin } from "@skillrig/oracle";
import scriptPlugin from "@skillrig/deliverable-script";
import cliPlugin from "@skillrig/deliverable-cli";
import functionPlugin from "@skillrig/deliverable-function";
import { skillProtocolPlugin } from "@skillrig/skills";

export async function builtinPlugins(_loaded: LoadedConfig): Promise<SkillrigPlugin[]> {
  return [
    compareModesPlugin(),
    scriptPlugin(),
    cliPlugin(),
    functionPlugin(),
    skillProtocolPlugin(),
    sandboxPlugin(), // last: the default sandbox answers only when no other plugin does
  ];
}
