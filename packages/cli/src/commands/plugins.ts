import { readFileSync } from "node:fs";
import { relative } from "node:path";
import type { PluginSource } from "@skillrig/core";
import type { CommandModule } from "../command.js";
import { ExitCode } from "../exit-codes.js";

/** Where a plugin the runner applies came from: the config's (`PluginSource`), or bundled with the CLI. */
type PluginOrigin = PluginSource | { kind: "bundled"; package: "@skillrig/cli"; version: string };

/** `skillrig plugins`: which config was found, the plugins applied in order, where each came from and what it claims. */
export const pluginsCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("plugins")
      .description("Show the config file in use, the plugins applied (in order), where each came from and what it claims")
      .action(async (_options, command) => {
        const ctx = context(command);
        const loaded = await ctx.config();
        const runner = await ctx.runner();
        const kinds = ["deliverable", "engine", "compare", "reporter", "assertion"] as const;
        const claims = kinds.flatMap((kind) => runner.claims(kind));
        const bundled: PluginOrigin = { kind: "bundled", package: "@skillrig/cli", version: cliVersion() };
        const report = {
          config: loaded.file ?? null,
          plugins: runner.plugins.map((p) => {
            const index = loaded.plugins?.indexOf(p) ?? -1;
            return {
              name: p.name,
              source: (index >= 0 ? loaded.pluginSources?.[index] : undefined) ?? bundled,
              claims: claims.filter((c) => c.plugin === p.name).map((c) => `${c.kind}:${c.name}`),
            };
          }),
        };
        const human = [
          `config: ${report.config ?? "(none found; defaults apply)"}`,
          "plugins (in the order applied):",
          ...report.plugins.flatMap((p) => [
            `  ${p.name}${p.claims.length ? `  [${p.claims.join(", ")}]` : ""}`,
            `      from ${describeOrigin(p.source, loaded.dir)}`,
          ]),
        ].join("\n");
        ctx.out.result(report, human);
        setExit(ExitCode.Success);
      });
  },
};

function describeOrigin(source: PluginOrigin, projectDir: string): string {
  const shown = (path: string) => {
    const rel = relative(projectDir, path);
    return rel.startsWith("..") ? path : `./${rel}`;
  };
  const at = (version: string | undefined) => (version ? `@${version}` : "");
  switch (source.kind) {
    case "bundled":
      return `bundled with ${source.package}${at(source.version)}`;
    case "inline":
      return "the config file (a plugin object)";
    case "path":
      return `a file: ${shown(source.path)}`;
    case "package":
      return `the project's node_modules: ${source.package}${at(source.version)} (${shown(source.path)})`;
    case "linked":
      return `a linked folder: ${source.package}${at(source.version)} -> ${source.path} (${shown(source.link)})`;
  }
}

function cliVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
