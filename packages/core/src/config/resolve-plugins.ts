/**
 * Turns the config's plugin entries into plugin instances. Package names and ./paths are resolved
 * from the config file's folder (the user's project), not from skillrig's own install, and imported:
 * a `.ts` file with the loader that loads `skillrig.config.ts`. Each plugin comes with where it was found
 * (`PluginSource`, for `skillrig plugins`).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { isBuiltin, register } from "node:module";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { didYouMean } from "../closest-name.js";
import { isSkillrigError, SkillrigError } from "../errors.js";
import { addDevDependencyCommand, projectPackageManager } from "../package-manager.js";
import { isPlugin, type SkillrigPlugin } from "../plugin.js";
import type { PluginEntry } from "./define-config.js";
import { importTypeScript, isTypeScriptFile } from "./typescript-module.js";

/** Where a plugin of the config came from. */
export type PluginSource =
  /** A plugin object written in the config file itself. */
  | { kind: "inline" }
  /** A package installed in a `node_modules` folder (npm, pnpm, yarn). */
  | { kind: "package"; package: string; version?: string; path: string }
  /** A package whose `node_modules` entry links to a folder outside every `node_modules` (`npm i -D ../x`, `file:`, `npm link`). */
  | { kind: "linked"; package: string; version?: string; path: string; link: string }
  /** A module file named by path (`./plugins/my-engine.ts`). */
  | { kind: "path"; path: string };

export interface ResolvedPlugin {
  plugin: SkillrigPlugin;
  source: PluginSource;
}

export async function resolvePlugins(entries: PluginEntry[], fromDir: string, file?: string): Promise<SkillrigPlugin[]> {
  return (await loadPlugins(entries, fromDir, file)).map((resolved) => resolved.plugin);
}

interface LocatedEntry {
  specifier: string;
  options: Record<string, unknown> | undefined;
  url: string;
  source: PluginSource;
  /** The folder whose `@skillrig/*` imports the kit hook resolves from the project (outside every node_modules). */
  ownRoot?: string;
  where: { file?: string; pointer: string; index: number };
}

/** The plugins of a config, each with its source: every entry located, the kit hook registered if needed, then imported. */
export async function loadPlugins(entries: PluginEntry[], fromDir: string, file?: string): Promise<ResolvedPlugin[]> {
  const located: (LocatedEntry | ResolvedPlugin)[] = [];
  for (const [index, entry] of entries.entries()) {
    const pointer = `/plugins/${index}`;
    if (isPlugin(entry)) {
      located.push({ plugin: entry, source: { kind: "inline" } });
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
    located.push(await locatePlugin(specifier, options, fromDir, { file, pointer, index }));
  }
  registerKitHook(
    located.flatMap((entry) => ("ownRoot" in entry && entry.ownRoot !== undefined ? [entry.ownRoot] : [])),
    fromDir,
  );
  const plugins: ResolvedPlugin[] = [];
  for (const entry of located)
    plugins.push("plugin" in entry ? entry : { plugin: await importPlugin(entry, fromDir), source: entry.source });
  return plugins;
}

async function locatePlugin(
  specifier: string,
  options: Record<string, unknown> | undefined,
  fromDir: string,
  where: { file?: string; pointer: string; index: number },
): Promise<LocatedEntry> {
  // Loaded here, not with core: a config without plugins never needs it.
  const { resolve: resolveModule } = await import("import-meta-resolve");
  const isPath = specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:");
  let url: string;
  try {
    url = resolveModule(specifier, pathToFileURL(join(fromDir, "noop.js")).href);
  } catch (error) {
    if (!isPath) {
      const unbuilt = unbuiltPackage(packageNameOf(specifier), fromDir);
      if (unbuilt !== undefined) throw unbuiltPackageError(specifier, unbuilt, where, error);
    }
    const install = addDevDependencyCommand(fromDir, packageNameOf(specifier));
    const near = isPath ? "" : didYouMean(packageNameOf(specifier), installedPackageNames(fromDir));
    throw new SkillrigError(
      "plugin_not_found",
      isPath
        ? `plugin file "${specifier}" (plugins[${where.index}]) was not found from ${fromDir}`
        : `plugin package "${specifier}" (plugins[${where.index}]) cannot be found from ${fromDir}${near}`,
      {
        file: where.file,
        pointer: where.pointer,
        field: `plugins[${where.index}]`,
        hint: isPath ? undefined : near ? `fix the name in the config, or install it: ${install}` : `install it: ${install}`,
        details: { package: specifier, reason: (error as Error).message },
      },
    );
  }
  const base = { specifier, options, url, where };
  if (!url.startsWith("file:")) return { ...base, source: { kind: "package", package: specifier, path: url } };
  const path = fileURLToPath(url);
  if (isPath) {
    return { ...base, source: { kind: "path", path }, ownRoot: isInside(path, fromDir) ? undefined : packageRootOf(path) };
  }
  const name = packageNameOf(specifier);
  const entry = installedEntry(name, fromDir);
  if (entry === undefined) return { ...base, source: { kind: "package", package: name, path } };
  const real = realpathSync(entry);
  const version = versionAt(real);
  if (!lstatSync(entry).isSymbolicLink() || real.split(sep).includes("node_modules")) {
    return { ...base, source: { kind: "package", package: name, ...(version ? { version } : {}), path: entry } };
  }
  return { ...base, source: { kind: "linked", package: name, ...(version ? { version } : {}), path: real, link: entry }, ownRoot: real };
}

/**
 * Registers the kit hook (`plugin-kit-hook.ts`) for these plugin folders, once per set of folders and project:
 * nothing is registered for plugins installed in node_modules, which resolve the project's copies already.
 */
const registeredKitHooks = new Set<string>();
function registerKitHook(roots: string[], fromDir: string): void {
  if (roots.length === 0 || typeof register !== "function") return;
  const data = {
    roots: roots.map((root) => `${pathToFileURL(root).href}/`),
    from: [pathToFileURL(join(fromDir, "noop.js")).href, import.meta.url],
  };
  const key = JSON.stringify(data);
  if (registeredKitHooks.has(key)) return;
  registeredKitHooks.add(key);
  try {
    register("./plugin-kit-hook.js", { parentURL: import.meta.url, data });
  } catch {
    // A host where hooks cannot be registered (a Node without them in this thread): the plugin then resolves its
    // imports as Node does, and a missing @skillrig/* package is named in its load error.
  }
}

/** An installed package (often a linked folder) whose manifest names an entry file that is not there: not built yet. */
interface UnbuiltPackage {
  /** The package's real folder. */
  dir: string;
  /** The entry file its manifest names, relative to `dir` (`dist/index.js`). */
  entry: string;
}

function unbuiltPackage(name: string, fromDir: string): UnbuiltPackage | undefined {
  const link = installedEntry(name, fromDir);
  if (link === undefined) return undefined;
  let dir: string;
  let manifest: { exports?: unknown; main?: unknown };
  try {
    dir = realpathSync(link);
    manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as typeof manifest;
  } catch {
    return undefined;
  }
  const entry = entryFileOf(manifest);
  if (entry === undefined || existsSync(join(dir, entry))) return undefined;
  return { dir, entry: entry.replace(/^\.\//, "") };
}

/** The file `import "<package>"` loads, as its manifest says (`exports["."]`'s import or default, else `main`). */
function entryFileOf(manifest: { exports?: unknown; main?: unknown }): string | undefined {
  let target: unknown = manifest.exports;
  if (typeof target === "object" && target !== null && "." in target) target = (target as Record<string, unknown>)["."];
  while (typeof target === "object" && target !== null && !Array.isArray(target)) {
    const conditions = target as Record<string, unknown>;
    target = conditions.import ?? conditions.node ?? conditions.default;
  }
  if (typeof target === "string") return target;
  return typeof manifest.main === "string" ? manifest.main : undefined;
}

function unbuiltPackageError(
  specifier: string,
  unbuilt: UnbuiltPackage,
  where: { file?: string; pointer: string; index: number },
  cause: unknown,
): SkillrigError {
  const manager = projectPackageManager(unbuilt.dir);
  const build = `cd ${unbuilt.dir} && ${existsSync(join(unbuilt.dir, "node_modules")) ? "" : `${manager} install && `}${manager} run build`;
  return new SkillrigError(
    "plugin_not_found",
    `plugin package "${specifier}" (plugins[${where.index}]) is installed from ${unbuilt.dir} but has not been built: its entry ${unbuilt.entry} does not exist`,
    {
      file: where.file,
      pointer: where.pointer,
      field: `plugins[${where.index}]`,
      hint: `build it: ${build}`,
      details: { package: packageNameOf(specifier), path: unbuilt.dir, entry: unbuilt.entry },
      cause,
    },
  );
}

/** The package names installed in the `node_modules` folders from `fromDir` up (for "did you mean"). */
function installedPackageNames(fromDir: string): string[] {
  const names = new Set<string>();
  for (let dir = fromDir; ; dir = dirname(dir)) {
    for (const entry of safeList(join(dir, "node_modules"))) {
      if (entry.startsWith(".")) continue;
      if (entry.startsWith("@")) for (const sub of safeList(join(dir, "node_modules", entry))) names.add(`${entry}/${sub}`);
      else names.add(entry);
    }
    if (dirname(dir) === dir) return [...names];
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** The `node_modules/<name>` entry Node finds first from `fromDir` (a link is not followed), or undefined. */
function installedEntry(name: string, fromDir: string): string | undefined {
  if (isBuiltin(name)) return undefined;
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ...name.split("/"));
    try {
      lstatSync(candidate);
      return candidate;
    } catch {
      // not here: look one folder up
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function versionAt(packageDir: string): string | undefined {
  try {
    const version = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The nearest folder above `file` with a package.json, else the file's own folder. */
function packageRootOf(file: string): string {
  for (let dir = dirname(realpathSync(file)); ; dir = dirname(dir)) {
    try {
      lstatSync(join(dir, "package.json"));
      return dir;
    } catch {
      if (dirname(dir) === dir) return dirname(realpathSync(file));
    }
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(realpathSync(dir), realpathSync(path));
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) && !rel.split(sep).includes("node_modules");
}

async function importPlugin(located: LocatedEntry, fromDir: string): Promise<SkillrigPlugin> {
  const { specifier, options, url, where } = located;
  let mod: Record<string, unknown>;
  try {
    // A TypeScript plugin file is loaded as skillrig.config.ts is (jiti), without a build step.
    mod = (isTypeScriptFile(url) ? await importTypeScript(fileURLToPath(url)) : await import(url)) as Record<string, unknown>;
  } catch (error) {
    const source = located.source;
    if (source.kind === "package" || source.kind === "linked") {
      const unbuilt = unbuiltPackage(source.package, fromDir);
      if (unbuilt !== undefined) throw unbuiltPackageError(specifier, unbuilt, where, error);
    }
    // A package the plugin imports that is installed nowhere it looks: say what to install, and where.
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec((error as Error).message)?.[1];
    const name = missing && !missing.startsWith(".") && !missing.startsWith("/") ? packageNameOf(missing) : undefined;
    throw new SkillrigError(
      "invalid_config",
      `plugin "${specifier}" (plugins[${where.index}]) failed to load: ${(error as Error).message}`,
      {
        file: where.file,
        pointer: where.pointer,
        cause: error,
        ...(name
          ? {
              hint: `install ${name} in the project (${addDevDependencyCommand(where.file ? dirname(where.file) : process.cwd(), name)}), or in the plugin's own dependencies`,
              details: { missing: name },
            }
          : {}),
      },
    );
  }
  let plugin: unknown;
  try {
    plugin = pluginOf(mod.default ?? mod.plugin, options);
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

/** What a plugin module exports, made a plugin: the plugin itself, a factory called with the options, or a class. */
function pluginOf(exported: unknown, options: Record<string, unknown> | undefined): unknown {
  if (isPlugin(exported) || typeof exported !== "function") return exported;
  const fn = exported as (...args: unknown[]) => unknown;
  return isClass(fn) ? new (fn as unknown as new (o?: unknown) => unknown)(options) : fn(options);
}

/** A host's built-in plugin as data: the module (a package specifier) and its export that makes the plugin. */
export interface BuiltinPluginModule {
  module: string;
  /** The export: a plugin, a factory () => plugin, or a plugin class; default `default`. */
  export?: string;
}

/** How a host's built-in modules are imported: by specifier, to the module's namespace. */
export type BuiltinImporter = (specifier: string) => Promise<Record<string, unknown>>;

/** The importer of a host whose modules are files: each specifier resolved from the host's folder, then imported. */
export function importerFrom(fromDir: string): BuiltinImporter {
  const base = pathToFileURL(join(fromDir, "noop.js")).href;
  return async (specifier) => {
    const { resolve: resolveModule } = await import("import-meta-resolve");
    return (await import(resolveModule(specifier, base))) as Record<string, unknown>;
  };
}

/**
 * A host's built-in plugins (the CLI's deliverable types, default sandbox ...), imported by the host's importer and
 * made as the config's plugins are. Unlike the config's, they are the host's dependencies: no kit hook is
 * registered for them, and a failure is the host's install at fault, not the user's config.
 */
export async function loadBuiltinPlugins(
  modules: readonly BuiltinPluginModule[],
  importModule: BuiltinImporter,
): Promise<SkillrigPlugin[]> {
  return Promise.all(
    modules.map(async ({ module, export: name = "default" }) => {
      const plugin = pluginOf((await importModule(module))[name], undefined);
      if (!isPlugin(plugin)) {
        throw new SkillrigError(
          "unhandled",
          `built-in plugin "${module}" (export ${name}) is not a plugin: the install of skillrig is broken`,
          {
            details: { module, export: name },
          },
        );
      }
      return plugin;
    }),
  );
}

function isClass(fn: unknown): boolean {
  return typeof fn === "function" && /^class[\s{]/.test(Function.prototype.toString.call(fn));
}
