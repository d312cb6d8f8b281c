/**
 * A private npm registry on loopback, as a team runs one for its internal packages: Verdaccio with its storage in
 * a temporary folder, no uplinks (it serves only what is published to it), publishing open to a throwaway user
 * created over its API. The helpers here publish a folder to it and install from it in a new project whose
 * `.npmrc` points only the given scopes at it, so every other package still comes from the public registry.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Finished, run, start, userEnv } from "./processes.js";

export interface Registry {
  /** `http://127.0.0.1:PORT/`, with the trailing slash npm writes in its config keys. */
  url: string;
  /** A user config for npm and pnpm: the registry and the throwaway user's token. */
  userconfig: string;
  /** Environment for commands that publish to, or read everything from, this registry. */
  env: (extra?: Record<string, string>) => NodeJS.ProcessEnv;
  stop: () => Promise<void>;
}

const requireHere = createRequire(import.meta.url);

/** Verdaccio's config: storage and the user file in `dir`, no uplinks, every package readable and publishable by a logged-in user. */
function verdaccioConfig(dir: string): string {
  return `storage: ${JSON.stringify(join(dir, "storage"))}
auth:
  htpasswd:
    file: ${JSON.stringify(join(dir, "htpasswd"))}
uplinks: {}
packages:
  "**":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
server:
  keepAliveTimeout: 60
max_body_size: 200mb
log: { type: stdout, format: json, level: warn }
`;
}

/**
 * Starts Verdaccio on 127.0.0.1 on a port the kernel picks (its own process: `runServer` from the verdaccio
 * package, listening on port 0), creates a throwaway user and writes `dir/npmrc` with its token.
 */
export async function startRegistry(dir: string): Promise<Registry> {
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, "config.yaml");
  writeFileSync(configFile, verdaccioConfig(dir));
  const verdaccioEntry = requireHere.resolve("verdaccio");
  const script = `
const { runServer } = require(${JSON.stringify(verdaccioEntry)});
runServer(${JSON.stringify(configFile)}).then((app) => {
  const server = app.listen(0, "127.0.0.1", () => {
    console.log(JSON.stringify({ registry: "http://127.0.0.1:" + server.address().port + "/" }));
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}, (error) => { console.error(error); process.exit(1); });
`;
  const server = await start(process.execPath, ["-e", script], {
    cwd: dir,
    env: userEnv(),
    ready: /"registry":"([^"]+)"/,
    timeoutMs: 120_000,
  });
  const url = server.match[1]!;
  const stop = async () => {
    await server.stop();
  };
  try {
    const name = `release-check-${process.pid}`;
    const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}`, type: "user", roles: [] }),
    });
    const body = (await response.json()) as { token?: string };
    if (!response.ok || !body.token)
      throw new Error(`Verdaccio at ${url} did not create a user: ${response.status} ${JSON.stringify(body)}`);
    const userconfig = join(dir, "npmrc");
    writeFileSync(userconfig, `registry=${url}\n${url.replace(/^http:/, "")}:_authToken=${body.token}\n`);
    const env = (extra: Record<string, string> = {}) => userEnv({ npm_config_registry: url, npm_config_userconfig: userconfig, ...extra });
    return { url, userconfig, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The manifest of `name` as the registry serves it (every version), or undefined when it has none. */
export async function registryManifest(
  registry: Registry,
  name: string,
): Promise<{ "dist-tags": Record<string, string>; versions: Record<string, Record<string, unknown>> } | undefined> {
  const response = await fetch(`${registry.url}${name.replace("/", "%2f")}`);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${registry.url} answered ${response.status} for ${name}`);
  return (await response.json()) as { "dist-tags": Record<string, string>; versions: Record<string, Record<string, unknown>> };
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
export function install(project: string, line: string, timeoutMs = 1_200_000): Promise<Finished> {
  return run("sh", ["-c", line], { cwd: project, env: userEnv({ npm_config_prefer_offline: "true" }), timeoutMs });
}
