/**
 * The plugins the CLI applies after the config's own (unless the config says `builtins: false`).
 * Each line imports one plugin package that the CLI depends on; they are imported (in parallel) only when a
 * command builds a runner, so `skillrig --version`, `--help` and commands that need no runner never load them.
 */
import type { ConfigSection, LoadedConfig, SkillrigPlugin } from "@skillrig/core";

/** The bundled packages' config sections, for a host that loads the config itself (the server's job workers). */
export async function builtinSections(): Promise<readonly ConfigSection[]> {
  return (await import("./config-sections.js")).builtinConfigSections;
}

export async function builtinPlugins(_loaded: LoadedConfig): Promise<SkillrigPlugin[]> {
  const [sandbox, oracle, script, cli, fn, skills, assertionKinds] = await Promise.all([
    import("@skillrig/sandbox"),
    import("@skillrig/oracle/one-task"),
    import("@skillrig/deliverable-script"),
    import("@skillrig/deliverable-cli"),
    import("@skillrig/deliverable-function"),
    import("@skillrig/skills/plugin"),
    import("@skillrig/evals/assertion-kinds"),
  ]);
  return [
    oracle.compareModesPlugin(),
    script.default(),
    cli.default(),
    fn.default(),
    skills.skillProtocolPlugin(),
    assertionKinds.builtinAssertionKinds(),
    sandbox.default(), // last: the default sandbox answers only when no other plugin does
  ];
}
