/**
 * `skillrig init [dir]`: scaffolds a project a user can run at once: skillrig.config.json, an example task with a
 * deliverable that passes, and an example skill (runner.json, schemas, SKILL.md, a script and a mock-model scenario
 * for running it offline). Every file a user edits against a skillrig schema gets a `$schema` pointing at the
 * schema shipped in the installed package, so editors complete and check it. Existing files are never
 * overwritten without --force; the files come from packages/cli/templates/init.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { SkillrigError } from "@skillrig/core";
import type { CommandModule } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { cliProjectDir, refuseFetchedCli, writeScopeRegistry } from "../plugin-scaffold-registry.js";

const TEMPLATES = resolve(import.meta.dirname, "../../templates/init");
const PLUGIN_TEMPLATES = resolve(import.meta.dirname, "../../templates/plugin");

/** Scaffolded files that get a `$schema`, and the package export holding that schema. */
const SCHEMA_OF: Record<string, { pkg: string; subpath: string }> = {
  // The CLI's composed schema: core's keys and the bundled packages' sections (`skillrig config schema` adds plugins').
  "skillrig.config.json": { pkg: "@skillrig/cli", subpath: "./config-schema.json" },
  "tasks/add-numbers/task.json": { pkg: "@skillrig/oracle", subpath: "./task.schema.json" },
  "skills/line-count/assets/runner.json": { pkg: "@skillrig/skills", subpath: "./runner-schema.json" },
};

interface InitOptions {
  force?: boolean;
  plugin?: string;
  dir?: string;
}

export const initCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("init")
      .description("Scaffold skillrig.config.json, an example task and an example skill in a folder; or, with --plugin, a plugin package")
      .argument("[dir]", "the project folder (default: the working directory); with --plugin, the plugin's package name", ".")
      .option("--force", "overwrite files that already exist")
      .option("--plugin <kind>", "scaffold a publishable plugin package instead: engine, deliverable or assertion, in ./<name>")
      .option("--dir <folder>", "with --plugin: the folder to write the package's folder in (default: the working directory)")
      .action(async (dirArg: string, options: InitOptions, command) => {
        const ctx = context(command);
        if (options.plugin !== undefined) {
          refuseFetchedCli(fileURLToPath(import.meta.url));
          const parent = resolve(ctx.cwd, options.dir ?? ".");
          const scaffold = scaffoldPlugin(parent, options.plugin, dirArg, options.force === true, ctx.cwd);
          const npmrc = writeScopeRegistry(scaffold.dir, [ctx.cwd, parent, cliProjectDir(fileURLToPath(import.meta.url)) ?? ctx.cwd]);
          if (npmrc !== undefined) scaffold.created.push(".npmrc");
          ctx.out.result(
            scaffold,
            [
              `Created the ${scaffold.kind} plugin package ${scaffold.name} in ./${scaffold.folder}:`,
              ...scaffold.created.map((file) => `  ${file}`),
              "",
              "Next:",
              ...scaffold.next.map((line) => `  ${line}`),
            ].join("\n"),
          );
          setExit(ExitCode.Success);
          return;
        }
        const dir = resolve(ctx.cwd, dirArg);
        const files = listTemplates(TEMPLATES);
        refuseOverwrite(dir, files, options.force === true);
        const existing = files.filter((file) => existsSync(join(dir, file)));
        for (const file of files) {
          const target = join(dir, file);
          mkdirSync(dirname(target), { recursive: true });
          const text = readFileSync(join(TEMPLATES, file), "utf8");
          const schema = SCHEMA_OF[file];
          writeFileSync(target, schema ? withSchema(text, schemaPath(schema, dir, dirname(target))) : text);
        }
        const shown = relative(ctx.cwd, dir) || ".";
        const cd = shown === "." ? [] : [`cd ${shown}`];
        const next = [
          ...cd,
          "npx skillrig test tasks/add-numbers/task.json --deliverable tasks/add-numbers/solution.py",
          "npx skillrig skills validate skills/line-count",
          "npm i -D @skillrig/engine-gemini @google/gemini-cli   # or any engine plugin; then add it to plugins in skillrig.config.json",
          "GEMINI_API_KEY=... npx skillrig run line-count --engine gemini --file text=samples/notes.txt",
        ];
        ctx.out.result(
          { dir, created: files, overwritten: existing, next },
          [
            `Created a skillrig project in ${shown}${existing.length ? ` (overwrote ${existing.length} file(s))` : ""}:`,
            ...files.map((file) => `  ${file}`),
            "",
            "Next:",
            ...next.map((line) => `  ${line}`),
            "",
            "Offline, with no key: give the engine plugin the skill's mock scenario,",
            '  ["@skillrig/engine-gemini", { "approval_mode": "yolo", "mock_scenario": "./skills/line-count/mock-model.scenario.json" }]',
          ].join("\n"),
        );
        setExit(ExitCode.Success);
      });
  },
};

function refuseOverwrite(dir: string, files: string[], force: boolean): void {
  const existing = files.filter((file) => existsSync(join(dir, file)));
  if (existing.length > 0 && !force) {
    throw new SkillrigError("usage", `init would overwrite ${existing.length} existing file(s) in ${dir}: ${existing.join(", ")}`, {
      field: "--force",
      violations: existing.map((file) => ({ file: join(dir, file), message: "already exists" })),
      hint: "move them away, run init in an empty folder, or pass --force to overwrite them",
    });
  }
}

const PLUGIN_KINDS = ["engine", "deliverable", "assertion"] as const;
// npm's rule for a package name (lower case, URL-safe, optionally scoped).
const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/**
 * `init --plugin engine|deliverable|assertion NAME`: a publishable plugin package in ./<NAME without its scope>, from
 * templates/plugin/<kind>. Its @skillrig ranges are `^<major>.0.0` of the core this CLI runs with (the packages are
 * released together), so the plugin installs beside this release and the next minors.
 */
function scaffoldPlugin(cwd: string, kind: string, name: string, force: boolean, shownFrom: string) {
  if (!(PLUGIN_KINDS as readonly string[]).includes(kind)) {
    throw new SkillrigError("usage", `--plugin must be one of ${PLUGIN_KINDS.join(", ")}, not "${kind}"`, { field: "--plugin" });
  }
  if (name === "." || !PACKAGE_NAME.test(name) || name.length > 214) {
    throw new SkillrigError("usage", `init --plugin ${kind} needs the plugin's package name (lower case, npm's rules), not "${name}"`, {
      field: "name",
      hint: `skillrig init --plugin ${kind} @acme/skillrig-${kind}-mine`,
    });
  }
  const folder = name.split("/").at(-1)!;
  const id = folder.replace(/^skillrig-(?:engine-|deliverable-|assertion-)?/, "").replace(/[^a-z0-9-]/g, "-") || kind;
  const words = id.split("-").filter(Boolean);
  const pascal = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  const range = rangeOf("@skillrig/core");
  const values: Record<string, string> = {
    __NAME__: name,
    __FOLDER__: folder,
    __ENGINE__: id,
    __TYPE__: id,
    // An assertion kind is named as the built-in ones are (`file_contains`), and must start with a letter.
    __KIND__: (/^[a-z]/.test(id) ? id.replace(/-/g, "_") : `kind_${id.replace(/-/g, "_")}`).slice(0, 64),
    __TYPE_NAME__: /^[A-Za-z]/.test(pascal) ? `${pascal}Assertion` : `Assertion${pascal}`,
    __DISPLAY__: `${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ")} CLI`,
    __PLUGIN__: /^[A-Za-z]/.test(pascal) ? `${pascal}Plugin` : `Plugin${pascal}`,
    __OPTIONS__: /^[A-Za-z]/.test(pascal) ? `${pascal}Options` : `Options${pascal}`,
    __CORE_RANGE__: range,
    // A kit has its own version line (engine-kit took a major of its own): its range is its version's, not core's.
    __KIT_RANGE__: rangeOf(`@skillrig/${kind}-kit`),
  };
  const root = join(PLUGIN_TEMPLATES, kind);
  const templates = listTemplates(root);
  const files = templates.map((file) => file.replace(/\.tmpl$/, ""));
  const dir = resolve(cwd, folder);
  refuseOverwrite(dir, files, force);
  for (const [i, template] of templates.entries()) {
    const target = join(dir, files[i]!);
    mkdirSync(dirname(target), { recursive: true });
    const text = readFileSync(join(root, template), "utf8").replace(/__[A-Z_]+__/g, (key) => values[key] ?? key);
    // The stand-in CLI under bin/ is executable whatever mode the template arrived with: npm publishes every file
    // that is not a package's own `bin` as 0644, so the installed CLI's templates have lost the bit.
    writeFileSync(target, text, { mode: files[i]!.startsWith("bin/") ? 0o755 : 0o644 });
  }
  const shown = relative(shownFrom, dir) || ".";
  const next = [
    `cd ${shown} && npm install && npm test   # npm install builds it (prepare); the test runs it for real`,
    `cd <your project> && npm i -D ${relativeFromSibling(dir)}   # then add "${name}" to plugins in skillrig.config.json`,
  ];
  return { kind, name, folder, dir, created: files, next };
}

/** `^<major>.0.0` of the @skillrig/core this CLI runs with (`^0.<minor>.0` before 1.0, where a minor may break). */
/** `^<major>.0.0` (`^0.<minor>.0` before 1.0) of the installed `name`, the package this CLI runs with. */
function rangeOf(name: string): string {
  const file = createRequire(import.meta.url).resolve(`${name}/package.json`);
  const { version } = JSON.parse(readFileSync(file, "utf8")) as { version: string };
  const [major = "0", minor = "0"] = version.split(".");
  return major === "0" ? `^0.${minor}.0` : `^${major}.0.0`;
}

/** Every file under `root`, as forward-slash paths relative to it, sorted. */
function listTemplates(root: string, prefix = ""): string[] {
  return readdirSync(join(root, prefix))
    .sort()
    .flatMap((name) => {
      const rel = prefix ? `${prefix}/${name}` : name;
      return statSync(join(root, rel)).isDirectory() ? listTemplates(root, rel) : [rel];
    });
}

/** The JSON text with `$schema` as its first key. */
function withSchema(text: string, schema: string): string {
  return `${JSON.stringify({ $schema: schema, ...JSON.parse(text) }, null, 2)}\n`;
}

/**
 * Where the editor finds the schema, relative to the file's folder. Prefer the copy installed in the project
 * (`node_modules/<pkg>`, found walking up, without following symlinks so a pnpm store path that changes with each
 * version is not written down); otherwise the copy the CLI itself loads (a global install, or this repository).
 */
function schemaPath(schema: { pkg: string; subpath: string }, projectDir: string, fileDir: string): string {
  let packageDir: string | undefined;
  for (let dir = projectDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ...schema.pkg.split("/"));
    if (existsSync(join(candidate, "package.json"))) {
      packageDir = candidate;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  packageDir ??= dirname(createRequire(import.meta.url).resolve(`${schema.pkg}/package.json`));
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { exports?: Record<string, unknown> };
  const target = manifest.exports?.[schema.subpath];
  if (typeof target !== "string") {
    throw new SkillrigError("unhandled", `${schema.pkg} does not export ${schema.subpath}; reinstall skillrig's packages at one version`, {
      file: join(packageDir, "package.json"),
      pointer: `/exports/${schema.subpath.replaceAll("~", "~0").replaceAll("/", "~1")}`,
    });
  }
  const path = relative(fileDir, join(packageDir, target)).split(sep).join("/");
  return path.startsWith(".") ? path : `./${path}`;
}

/** How a project next to the plugin's folder names it: `../<folder>`. */
function relativeFromSibling(dir: string): string {
  return `../${dir.split(sep).at(-1)}`;
}
