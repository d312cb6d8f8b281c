/**
 * Turns the config's plugin entries into plugin instances. Package names and ./paths are resolved
 * from the config file's folder (the user's project), not from skillrig's own install, and imported.
 */
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { isSkillrigError, SkillrigError } from "../errors.js";
import { isPlugin, type SkillrigPlugin } from "../plugin.js";
import type { PluginEntry } from "./define-config.js";

export async function resolvePlugins(entries: PluginEntry[], fromDir: string, file?: string): Promise<SkillrigPlugin[]> {
  const plugins: SkillrigPlugin[] = [];
  for (const [index, entry] of entries.entries()) {
    const pointer = `/plugins/${index}`;
    if (isPlugin(entry)) {
      plugins.push(entry);
      continue;
    }
    const [specifier, options] =
      typeof entry === "string" ? [entry, undefined] : Array.isArray(entry) ? [entry[0], entry[1]] : [undefined, undefined];
    if (typeof specifier !== "string") {
      throw new SkillrigError(
        "invalid_config",
        `plugins[${index}] is not a plugin: it needs a "name" string and an "apply(runner)" function`,
        {
          file,
          pointer,
          field: `plugins[${index}]`,
        },
      );
    }
    plugins.push(await importPlugin(specifier, options, fromDir, { file, pointer, index }));
  }
  return plugins;
}

async function importPlugin(
  specifier: string,
  options: Record<string, unknown> | undefined,
  fromDir: string,
  where: { file?: string; pointer: string; index: number },
): Promise<SkillrigPlugin> {
  // Loaded here, not with core: a config without plugins never needs it.
  const { resolve: resolveModule } = await import("import-meta-resolve");
  let url: string;
  try {
    url = resolveModule(specifier, pathToFileURL(join(fromDir, "noop.js")).href);
  } catch (error) {
    const isPath = specifier.startsWith(".") || specifier.startsWith("/");
    throw new SkillrigError(
      "plugin_not_found",
      isPath
        ? `plugin file "${specifier}" (plugins[${where.index}]) was not found from ${fromDir}`
        : `plugin package "${specifier}" (plugins[${where.index}]) cannot be found from ${fromDir}; install it with: pnpm add -D ${specifier}  (or npm install -D ${specifier})`,
      {
        file: where.file,
        pointer: where.pointer,
        field: `plugins[${where.index}]`,
        hint: isPath ? undefined : `pnpm add -D ${specifier}`,
        details: { package: specifier, reason: (error as Error).message },
      },
    );
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new SkillrigError(
      "invalid_config",
      `plugin "${specifier}" (plugins[${where.index}]) failed to load: ${(error as Error).message}`,
      {
        file: where.file,
        pointer: where.pointer,
        cause: error,
      },
    );
  }
  const exported = mod.default ?? mod.plugin;
  let plugin: unknown;
  try {
    if (isPlugin(exported)) plugin = exported;
    else if (typeof exported === "function") {
      const fn = exported as (...args: unknown[]) => unknown;
      plugin = isClass(fn) ? new (fn as unknown as new (o?: unknown) => unknown)(options) : fn(options);
    }
  } catch (error) {
    // A plugin that raises a coded error on purpose (from its own copy of core, too) keeps its code. Its pointers
    // are read as pointers into its options, which sit at /plugins/<index>/1 of the config file.
    if (isSkillrigError(error)) {
      const optionsPointer = `${where.pointer}/1`;
      const what = error.code === "invalid_config" ? "rejected its options" : "failed to start";
      throw new SkillrigError(error.code, `plugin "${specifier}" (plugins[${where.index}]) ${what}: ${error.message}`, {
        file: where.file,
        pointer: `${optionsPointer}${error.pointer ?? ""}`,
        field: error.field,
        violations: error.violations.map((v) => ({ ...v, file: where.file, pointer: `${optionsPointer}${v.pointer ?? ""}` })),
        details: error.details,
        hint: error.hint,
        cause: error,
      });
    }
    // Plugins validate their options in their constructor; their message names the option.
    const message = (error as Error).message;
    throw new SkillrigError("invalid_config", `plugin "${specifier}" (plugins[${where.index}]) rejected its options: ${message}`, {
      file: where.file,
      pointer: `${where.pointer}/1`,
      cause: error,
    });
  }
  if (!isPlugin(plugin)) {
    throw new SkillrigError(
      "invalid_config",
      `module "${specifier}" (plugins[${where.index}]) does not export a plugin: its default export must be a plugin, a factory (options) => plugin, or a plugin class`,
      { file: where.file, pointer: where.pointer },
    );
  }
  return plugin;
}

function isClass(fn: unknown): boolean {
  return typeof fn === "function" && /^class[\s{]/.test(Function.prototype.toString.call(fn));
}
