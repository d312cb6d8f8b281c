/**
 * A project's runner, built the one way every host builds it: the config file found from `cwd` (or `configPath`),
 * validated with the host's config sections, then its plugins and the host's built-in plugins applied. The CLI
 * calls it for every command and the server's job workers call it in their threads, so a job runs with exactly the
 * runner the command line would have built. The built-ins are data (module specifiers resolved from the host's own
 * folder), which is what lets a worker thread be told them: core never imports the CLI or a plugin package itself.
 */
import { defineConfigSection, type ConfigSection } from "./config/config-section.js";
import { createRunner } from "./config/create-runner.js";
import { loadConfig, type LoadedConfig } from "./config/load-config.js";
import { importerFrom, loadBuiltinPlugins, type BuiltinImporter, type BuiltinPluginModule } from "./config/resolve-plugins.js";
import { SkillrigError } from "./errors.js";
import type { PrecompiledSchema } from "./precompiled-schema.js";
import type { Runner } from "./runner.js";

export type { BuiltinImporter, BuiltinPluginModule } from "./config/resolve-plugins.js";

/** A host's built-in config section as data: the module and the export that is the section. */
export interface BuiltinSectionModule {
  module: string;
  export: string;
  /**
   * The module's package is an optional peer of the host: when it is not installed, this stand-in keeps the key
   * known (a config written for it still loads) and checks only that its value is an object.
   */
  optional?: { section: string; owner: string; description: string };
}

/** What a host (the CLI) always offers, as plain data a worker thread can be sent. */
export interface ProjectBuiltins {
  /** The folder the modules are resolved from: the host package's own, so its dependencies are found. */
  from: string;
  /** Applied after the config's own plugins, in this order, unless the config says `builtins: false`. */
  plugins: readonly BuiltinPluginModule[];
  /** Known whether or not the built-in plugins are on (`builtins: false` turns off plugins, not sections). */
  sections: readonly BuiltinSectionModule[];
}

export interface OpenProjectRunnerOptions {
  cwd: string;
  /** A config file to load instead of discovering one (`--config`). */
  configPath?: string;
  builtins?: ProjectBuiltins;
  /**
   * How the host imports the modules of `builtins` when it has its own copies (a bundled host: the CLI's bundle
   * inlines some of them, and must not load them a second time as files). Default: resolved from `builtins.from`.
   */
  importModule?: BuiltinImporter;
  /** Sections the host holds as objects, before those of `builtins` (a server used as a library: its own). */
  sections?: readonly ConfigSection[];
  /** Validators compiled when the host was built, for the composed schemas it expects (see `loadConfig`). */
  precompiled?: readonly PrecompiledSchema[];
  /** The config, if the host loaded it already with `loadProjectConfig` and these options. */
  loaded?: LoadedConfig;
}

/** The host's built-in sections, in their order, each imported from its package (or its stand-in). */
export async function loadBuiltinSections(
  builtins: Pick<ProjectBuiltins, "from" | "sections">,
  importModule: BuiltinImporter = importerFrom(builtins.from),
): Promise<ConfigSection[]> {
  return Promise.all(
    builtins.sections.map(async ({ module, export: name, optional }) => {
      let mod: Record<string, unknown>;
      try {
        mod = await importModule(module);
      } catch (error) {
        if (optional === undefined || !packageMissing(error, module)) throw error;
        return defineConfigSection({
          section: optional.section,
          owner: optional.owner,
          schema: { type: "object", description: optional.description },
        });
      }
      const section = mod[name];
      if (typeof section !== "object" || section === null || typeof (section as ConfigSection).section !== "string") {
        throw new SkillrigError(
          "unhandled",
          `built-in config section "${module}" (export ${name}) is not a config section: the install of skillrig is broken`,
          {
            details: { module, export: name, from: builtins.from },
          },
        );
      }
      return section as ConfigSection;
    }),
  );
}

/** True when `error` is Node's "Cannot find package '<the module's package>'" (not a module missing inside it). */
function packageMissing(error: unknown, module: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const parts = module.split("/");
  const name = module.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  return code === "ERR_MODULE_NOT_FOUND" && typeof message === "string" && message.includes(`'${name}'`);
}

/** The project's config, validated with the host's sections (`options.sections`, then those of `options.builtins`). */
export async function loadProjectConfig(options: Omit<OpenProjectRunnerOptions, "loaded">): Promise<LoadedConfig> {
  const builtinSections = options.builtins ? await loadBuiltinSections(options.builtins, importerOf(options)) : [];
  return loadConfig({
    cwd: options.cwd,
    configPath: options.configPath,
    sections: [...(options.sections ?? []), ...builtinSections],
    precompiled: options.precompiled,
  });
}

/** The project's runner: its config (`options.loaded`, else loaded now), its plugins, then the host's built-ins. */
export async function openProjectRunner(options: OpenProjectRunnerOptions): Promise<Runner> {
  const loaded = options.loaded ?? (await loadProjectConfig(options));
  const builtins =
    options.builtins && loaded.config.builtins !== false ? await loadBuiltinPlugins(options.builtins.plugins, importerOf(options)) : [];
  return createRunner(loaded, { cwd: options.cwd, builtins });
}

function importerOf(options: Pick<OpenProjectRunnerOptions, "builtins" | "importModule">): BuiltinImporter {
  return options.importModule ?? importerFrom(options.builtins?.from ?? process.cwd());
}
