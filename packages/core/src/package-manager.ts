/**
 * The package manager a project uses, so a hint names the command a person would type there (`npm i -D x` in an
 * npm project, `pnpm add -D x` in a pnpm one). Read from the nearest `packageManager` field or lockfile walking up
 * from the project's folder; npm when nothing says (it comes with Node, and the README's lines use it).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

const LOCKFILES: [string, PackageManager][] = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
];

/** The package manager of the project at or above `dir`. */
export function projectPackageManager(dir: string): PackageManager {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const declared = declaredManager(join(at, "package.json"));
    if (declared !== undefined) return declared;
    for (const [file, manager] of LOCKFILES) if (existsSync(join(at, file))) return manager;
    if (dirname(at) === at) return "npm";
  }
}

function declaredManager(manifest: string): PackageManager | undefined {
  if (!existsSync(manifest)) return undefined;
  try {
    const field = (JSON.parse(readFileSync(manifest, "utf8")) as { packageManager?: unknown }).packageManager;
    const name = typeof field === "string" ? field.split("@")[0] : undefined;
    return name === "npm" || name === "pnpm" || name === "yarn" || name === "bun" ? name : undefined;
  } catch {
    return undefined; // a broken package.json is the package manager's to report, not a hint's
  }
}

/** The command that adds `packages` as dev dependencies with the project's package manager. */
export function addDevDependencyCommand(dir: string, ...packages: string[]): string {
  const manager = projectPackageManager(dir);
  const verb = manager === "npm" ? "i -D" : "add -D";
  return `${manager} ${verb} ${packages.join(" ")}`;
}

/** The command that runs a package's script with the project's package manager (`npm run build`). */
export function runScriptCommand(dir: string, script: string): string {
  return `${projectPackageManager(dir)} run ${script}`;
}
