import type { CommandModule } from "../command.js";
import { ExitCode } from "../exit-codes.js";

/** `skillrig plugins`: which config was found, the plugins applied in order, and what each one claims. */
export const pluginsCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("plugins")
      .description("Show the config file in use, the plugins applied (in order) and what each claims")
      .action(async (_options, command) => {
        const ctx = context(command);
        const loaded = await ctx.config();
        const runner = await ctx.runner();
        const kinds = ["deliverable", "engine", "compare", "reporter"] as const;
        const claims = kinds.flatMap((kind) => runner.claims(kind));
        const report = {
          config: loaded.file ?? null,
          plugins: runner.plugins.map((p) => ({
            name: p.name,
            claims: claims.filter((c) => c.plugin === p.name).map((c) => `${c.kind}:${c.name}`),
          })),
        };
        const human = [
          `config: ${report.config ?? "(none found; defaults apply)"}`,
          "plugins (in the order applied):",
          ...report.plugins.map((p) => `  ${p.name}${p.claims.length ? `  [${p.claims.join(", ")}]` : ""}`),
        ].join("\n");
        ctx.out.result(report, human);
        setExit(ExitCode.Success);
      });
  },
};
