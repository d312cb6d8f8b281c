/**
 * The server's install weight on a Node with `node:sqlite` (issue 42, "a light server"): in a new project whose
 * `.npmrc` sends `@skillrig` to the registry, the README's install line then its server line, run by npm under
 * that Node; the server line's time, the size and package count it adds, and every native module it brought
 * (a `*.node` file: compiled, or a prebuilt binary). Then `skillrig serve` from that install, under that Node:
 * it must report `node:sqlite` and answer `/healthz`.
 *
 * Kept apart from installed-product.test.ts (which installs on the machine's Node), so its numbers and checks can
 * be run from any release-check setup that has a registry with the release on it: `checkServerInstall(registry,
 * dir, node)`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { run, start, userEnv } from "../../src/processes.js";
import { newProject, type Registry } from "./registry.js";

export interface ServerInstall {
  /** `process.version` of the Node that ran npm and the server. */
  node: string;
  /** Wall-clock time of `npm i -D @skillrig/server` alone (the CLI was installed before it). */
  serverLineMs: number;
  /** What the server line added to node_modules (`du -sk`, before and after), in MB. */
  addedMb: number;
  /** Packages it added (entries of node_modules/.package-lock.json). */
  addedPackages: number;
  /** Every native module file under node_modules after it, relative to node_modules. */
  nativeFiles: string[];
  /** What the server line printed (npm's warnings and notices). */
  output: string;
  /** The driver `skillrig serve --json` reported. */
  sqliteDriver: unknown;
  /** What `skillrig serve` printed while it ran (stdout and stderr). */
  serveOutput: string;
}

function duMb(dir: string): number {
  if (!existsSync(dir)) return 0;
  return Number(execFileSync("du", ["-sk", dir], { encoding: "utf8" }).split("\t")[0]) / 1024;
}

function packageCount(nodeModules: string): number {
  const lock = join(nodeModules, ".package-lock.json");
  if (!existsSync(lock)) return 0;
  return Object.keys((JSON.parse(readFileSync(lock, "utf8")) as { packages?: object }).packages ?? {}).length;
}

function nativeFiles(dir: string, root = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return nativeFiles(path, root);
    return entry.isFile() && entry.name.endsWith(".node") ? [relative(root, path)] : [];
  });
}

/** The environment of a user whose `node` (and so npm and npx's) is `node`. */
function envWith(node: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = userEnv({ npm_config_prefer_offline: "true", ...extra });
  return { ...env, PATH: `${dirname(node)}:${env.PATH ?? ""}` };
}

/**
 * Installs the CLI and then the server from `registry` into a new project `dir` with npm run by `node`, measures
 * the server line, and starts the installed `skillrig serve` under `node` once (SIGTERM after `/healthz`).
 */
export async function checkServerInstall(registry: Registry, dir: string, node: string): Promise<ServerInstall> {
  const project = newProject(registry, dir);
  const env = envWith(node);
  const version = (await run(node, ["-p", "process.version"], { cwd: project, env })).stdout.trim();
  const cli = await run("sh", ["-c", "npm i -D @skillrig/cli"], { cwd: project, env, timeoutMs: 1_200_000 });
  if (cli.code !== 0) throw new Error(`npm i -D @skillrig/cli under Node ${version} failed:\n${cli.stdout}\n${cli.stderr}`);
  const nodeModules = join(project, "node_modules");
  const before = { mb: duMb(nodeModules), packages: packageCount(nodeModules) };
  const t0 = Date.now();
  const server = await run("sh", ["-c", "npm i -D @skillrig/server"], { cwd: project, env, timeoutMs: 1_200_000 });
  const serverLineMs = Date.now() - t0;
  if (server.code !== 0) {
    throw new Error(`npm i -D @skillrig/server under Node ${version} failed:\n${server.stdout}\n${server.stderr}`);
  }

  const app = join(project, "app");
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "skillrig.config.json"), `${JSON.stringify({ plugins: [] }, null, 2)}\n`);
  // `--json` prints one document once listening: read it whole (it ends with a "}" line).
  const serve = await start(join(nodeModules, ".bin", "skillrig"), ["serve", "--port", "0", "--json"], {
    cwd: app,
    env,
    ready: /^(\{[\s\S]*?^\})$/m,
    timeoutMs: 180_000,
  });
  let started: { url?: string; sqlite_driver?: unknown } = {};
  let failure: unknown;
  try {
    started = JSON.parse(serve.match[1]!) as typeof started;
    const health = await fetch(`${started.url}/healthz`);
    if (health.status !== 200) failure = new Error(`/healthz answered ${health.status}`);
  } catch (error) {
    failure = error;
  }
  const stopped = await serve.stop();
  if (failure) throw failure;
  if (stopped.code !== 0) throw new Error(`skillrig serve did not stop cleanly on SIGTERM (exit ${stopped.code}):\n${stopped.stderr}`);
  return {
    node: version,
    serverLineMs,
    addedMb: duMb(nodeModules) - before.mb,
    addedPackages: packageCount(nodeModules) - before.packages,
    nativeFiles: nativeFiles(nodeModules),
    output: server.stdout + server.stderr,
    sqliteDriver: started.sqlite_driver,
    serveOutput: serve.output(),
  };
}

/** One line for the release check's figures. */
export function describeServerInstall(i: ServerInstall): string {
  return `server line on Node ${i.node}: ${i.serverLineMs} ms, +${i.addedMb.toFixed(1)} MB, +${i.addedPackages} packages, native: ${
    i.nativeFiles.length === 0 ? "none" : i.nativeFiles.join(", ")
  }, driver ${String(i.sqliteDriver)}`;
}
