/**
 * Where a scaffolded plugin gets `@skillrig/*` from. The plugin's folder sits beside the project, outside it, so
 * the project's `.npmrc` does not apply there: without a line for the `@skillrig` scope, `npm install` in the
 * plugin asks the public registry and fails (E404) for a team that publishes skillrig to its own registry. The
 * scaffold copies that one line, from the project's `.npmrc` (or the user's); never a token or any other setting.
 *
 * Also: `init --plugin` is refused when the CLI itself was fetched by npx into its cache (`npx skillrig ...` from
 * a folder without skillrig installed resolves whatever package is called `skillrig` on the public registry).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, sep } from "node:path";
import { SkillrigError } from "@skillrig/core";

const SCOPE = "@skillrig";

/** The `@skillrig:registry=` URL of the first `.npmrc` that has one: each folder's and those above it, then the user's. */
export function scopeRegistry(folders: readonly string[]): { url: string; from: string } | undefined {
  const files: string[] = [];
  for (const start of folders) {
    for (let dir = start; ; dir = dirname(dir)) {
      files.push(join(dir, ".npmrc"));
      if (dirname(dir) === dir) break;
    }
  }
  files.push(process.env.npm_config_userconfig ?? process.env.NPM_CONFIG_USERCONFIG ?? join(homedir(), ".npmrc"));
  for (const file of files) {
    const url = registryLine(file);
    if (url !== undefined) return { url, from: file };
  }
  return undefined;
}

function registryLine(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*@skillrig:registry\s*=\s*(\S+)\s*$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Writes `<dir>/.npmrc` with the scope's registry line found from `folders`; returns its path, or undefined when
 * none was found (skillrig then comes from the default registry, and no `.npmrc` is needed).
 */
export function writeScopeRegistry(dir: string, folders: readonly string[]): string | undefined {
  const found = scopeRegistry(folders);
  if (found === undefined) return undefined;
  const file = join(dir, ".npmrc");
  writeFileSync(
    file,
    `# Where @skillrig/* comes from (copied from ${found.from}); your own scope's line goes here too.\n${SCOPE}:registry=${found.url}\n`,
  );
  return file;
}

/** The project the running CLI is installed in: the folder above its `node_modules`, or undefined (a checkout). */
export function cliProjectDir(cliFile: string): string | undefined {
  const parts = cliFile.split(sep);
  const at = parts.indexOf("node_modules");
  return at > 0 ? parts.slice(0, at).join(sep) || sep : undefined;
}

/** Refuses a CLI that npx fetched into its cache (`<cache>/_npx/<hash>/node_modules/...`) rather than one installed. */
export function refuseFetchedCli(cliFile: string): void {
  if (!cliFile.split(sep).includes("_npx")) return;
  throw new SkillrigError(
    "usage",
    `this skillrig was fetched by npx into its cache (${cliFile}), not installed in a project: a name npx resolves on the public registry may be anyone's package`,
    {
      field: "--plugin",
      hint: "run it from a project that has @skillrig/cli: npx --no skillrig init --plugin ... (--no never fetches), or node_modules/.bin/skillrig",
    },
  );
}
