/**
 * The tests' side of a private registry on loopback (the one `pnpm release:local` serves, or a Verdaccio of a
 * test's own): a publishing user, publishing a folder to it, and installing from it in a new project whose
 * `.npmrc` points only the given scopes at it, so every other package still comes from the public registry.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Finished, run, userEnv } from "../../src/processes.js";
import { type RegistryDocument, registryManifest as registryDocument } from "../../src/manifest-problems.js";
import { startVerdaccio } from "../../src/verdaccio-registry.js";

export interface Registry {
  /** `http://127.0.0.1:PORT/`, with the trailing slash npm writes in its config keys. */
  url: string;
  /** A user config for npm and pnpm: the registry and a publishing user's token. */
  userconfig: string;
  /** Environment for commands that publish to, or read everything from, this registry. */
  env: (extra?: Record<string, string>) => NodeJS.ProcessEnv;
}

/**
 * A publishing user of its own on the registry at `url` (one that `pnpm release:local` serves: its own user's
 * token stays in its folder), created over Verdaccio's API; its token in `dir/npmrc`.
 */
export async function registryAt(url: string, dir: string): Promise<Registry> {
  mkdirSync(dir, { recursive: true });
  const name = `release-check-${process.pid}-${Date.now()}`;
  const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}`, type: "user", roles: [] }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token) throw new Error(`Verdaccio at ${url} did not create a user: ${response.status} ${JSON.stringify(body)}`);
  const userconfig = join(dir, "npmrc");
  writeFileSync(userconfig, `registry=${url}\n${url.replace(/^http:/, "")}:_authToken=${body.token}\n`);
  return { url, userconfig, env: (extra = {}) => userEnv({ npm_config_registry: url, npm_config_userconfig: userconfig, ...extra }) };
}

/** A Verdaccio of the test's own, in this process (verdaccio-registry.ts), with its publishing user. */
export async function startRegistry(dir: string): Promise<Registry & { stop: () => Promise<void> }> {
  const local = await startVerdaccio(dir, 0);
  return {
    url: local.url,
    userconfig: local.userconfig,
    env: (extra = {}) => userEnv({ npm_config_registry: local.url, npm_config_userconfig: local.userconfig, ...extra }),
    stop: local.stop,
  };
}

/** The manifest of `name` as the registry serves it (every version), or undefined when it has none. */
export function registryManifest(registry: Registry, name: string): Promise<RegistryDocument | undefined> {
  return registryDocument(registry.url, name);
}

/** `npm publish` of a package folder (a plugin a test wrote or scaffolded) to the registry. */
export async function publishFolder(registry: Registry, folder: string): Promise<void> {
  const r = await run("npm", ["publish", "--access", "public", "--loglevel=error"], {
    cwd: folder,
    env: registry.env(),
    timeoutMs: 300_000,
  });
  if (r.code !== 0) throw new Error(`npm publish of ${folder} to ${registry.url} failed:\n${r.stdout}\n${r.stderr}`);
}

/**
 * A project folder whose `.npmrc` sends only `scopes` to the registry (`@skillrig:registry=<url>`, as the README
 * says), with an empty package.json, as `npm init -y` leaves it, unless it has one.
 */
export function newProject(registry: Registry, dir: string, scopes: string[] = ["@skillrig"]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ".npmrc"), scopes.map((scope) => `${scope}:registry=${registry.url}\n`).join(""));
  // A kept project keeps its package.json: what it lists stays installed (npm would prune the rest).
  if (!existsSync(join(dir, "package.json"))) {
    writeFileSync(
      join(dir, "package.json"),
      `${JSON.stringify({ name: "release-check-app", version: "1.0.0", private: true }, null, 2)}\n`,
    );
  }
  return dir;
}

/**
 * Runs an install command line in a project as a user's shell would (`sh -c`), with npm's cache preferred for
 * third-party packages (the environment says so; the line itself is not changed).
 */
export function install(project: string, line: string, extraEnv: Record<string, string> = {}): Promise<Finished> {
  return run("sh", ["-c", line], { cwd: project, env: userEnv({ npm_config_prefer_offline: "true", ...extraEnv }), timeoutMs: 1_200_000 });
}
