/**
 * `skillrig config schema [--out FILE]`: the JSON Schema of this project's config for editors: core's keys, the
 * bundled packages' sections and the sections of the plugins the config lists (loaded as every command loads
 * them). Without plugins of its own, a project can point `$schema` at the shipped @skillrig/cli/config-schema.json.
 * `skillrig config sections`: which sections this config may have and the package that contributes each.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { composeConfigSchema, CORE_CONFIG_KEYS } from "@skillrig/core";
import type { CommandModule } from "../command.js";
import { schemaText } from "../config-sections.js";
import { ExitCode } from "../exit-codes.js";

export const configCommand: CommandModule = {
  register(program, context, setExit) {
    const config = program.command("config").description("The config's schema (for editors) and the sections it may have");
    config
      .command("schema")
      .description("Print (or write with --out) the JSON Schema of this project's config, with its plugins' sections")
      .option("--out <file>", "write the schema to this file instead of stdout")
      .action(async (options: { out?: string }, command) => {
        const ctx = context(command);
        const loaded = await ctx.config();
        // The composition for this project: without the $id naming core's base schema.
        const { $id: _baseId, ...schema } = composeConfigSchema(loaded.sections ?? []);
        if (options.out === undefined) {
          // The schema is the result, with or without --json.
          ctx.out.streams.stdout.write(schemaText(schema));
        } else {
          const out = resolve(ctx.cwd, options.out);
          mkdirSync(dirname(out), { recursive: true });
          writeFileSync(out, schemaText(schema));
          const ref = loaded.file ? relative(dirname(loaded.file), out).split("\\").join("/") : out;
          ctx.out.result(
            { out, sections: Object.keys(schema.properties as object).filter((k) => !(CORE_CONFIG_KEYS as readonly string[]).includes(k)) },
            `wrote ${out}\npoint the config at it: "$schema": "${/^(\.\.?\/|\/)/.test(ref) ? ref : `./${ref}`}"`,
          );
        }
        setExit(ExitCode.Success);
      });
    config
      .command("sections")
      .description("List the config sections this project may have and the package that contributes each")
      .action(async (_options, command) => {
        const ctx = context(command);
        const loaded = await ctx.config();
        const sections = [...(loaded.sections ?? [])]
          .sort((a, b) => (a.section < b.section ? -1 : a.section > b.section ? 1 : 0))
          .map((s) => ({ section: s.section, owner: s.owner, set: Object.hasOwn(loaded.config, s.section) }));
        ctx.out.result(
          { config: loaded.file ?? null, core_keys: CORE_CONFIG_KEYS, sections },
          [
            `config: ${loaded.file ?? "(none found; defaults apply)"}`,
            `core's keys: ${CORE_CONFIG_KEYS.join(", ")}`,
            "sections (* = set in this config):",
            ...sections.map((s) => `  ${s.set ? "*" : " "} ${s.section.padEnd(12)} ${s.owner}`),
          ].join("\n"),
        );
        setExit(ExitCode.Success);
      });
  },
};
