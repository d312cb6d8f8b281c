/**
 * The release as named steps, each a small function: prepare a workspace (a copy of the checkout, installed from
 * pnpm's store, or the checkout itself), build it, `changeset version`, check the manifests, publish every public
 * package with pnpm (run through node: no global pnpm is needed), and read the published manifests back.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { publishablePackages, publishedManifestProblems, registryManifest, sourceManifestProblems } from "./manifest-problems.js";
import { run, userEnv } from "./processes.js";

/** The repository this package is in (src/ and dist/ are both two levels below packages/release-check). */
export const REPO = resolve(import.meta.dirname, "../../..");
const PNPM_VERSION = "9.15.9";

/** A step that failed: its message is what a person reads (no stack trace); `exitCode` 1 (the work failed). */
export class ReleaseStepError extends Error {
  constructor(
    readonly step: string,
    message: string,
  ) {
    super(`${step}: ${message}`);
  }
}

/** The last `max` characters of a command's output, for an error message. */
function tail(output: string, max = 4000): string {
  return output.length > max ? `...${output.slice(-max)}` : output;
}

/**
 * The pinned pnpm as `[node, pnpm.cjs]`: the pnpm running this command when started as `pnpm release:local`
 * (`npm_execpath`), else the copy `npx --yes pnpm@9.15.9` (the README's) keeps in npm's cache, fetched there from
 * the public registry if missing (never from the registry being published to).
 */
export async function pnpmCommand(): Promise<[string, string]> {
  const execpath = process.env.npm_execpath;
  if (execpath && /pnpm\.c?js$/.test(execpath) && existsSync(execpath)) return [process.execPath, execpath];
  const warmed = await run("npx", ["--yes", `pnpm@${PNPM_VERSION}`, "--version"], { cwd: REPO, env: userEnv(), timeoutMs: 300_000 });
  if (warmed.code !== 0) throw new ReleaseStepError("pnpm", `npx --yes pnpm@${PNPM_VERSION} failed:\n${tail(warmed.stderr)}`);
  const cache = (await run("npm", ["config", "get", "cache"], { cwd: REPO, env: userEnv() })).stdout.trim();
  const npxDir = join(cache, "_npx");
  for (const entry of existsSync(npxDir) ? readdirSync(npxDir) : []) {
    const manifest = join(npxDir, entry, "node_modules/pnpm/package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === PNPM_VERSION) {
      return [process.execPath, join(npxDir, entry, "node_modules/pnpm/bin/pnpm.cjs")];
    }
  }
  throw new ReleaseStepError("pnpm", `npx --yes pnpm@${PNPM_VERSION} ran, but its pnpm.cjs is not in ${npxDir}`);
}

/**
 * A PATH with `pnpm` on it, for the tools that look pnpm up there (turbo finds the workspace's package manager
 * binary on the PATH): a one-line shim that runs the pinned pnpm with node, in a folder of its own.
 */
export function pathWithPnpm(pnpm: [string, string]): { path: string; remove: () => void } {
  const bin = mkdtempSync(join(tmpdir(), "skillrig-release-pnpm-"));
  const quoted = pnpm.map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(" ");
  writeFileSync(join(bin, "pnpm"), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  return { path: `${bin}${delimiter}${process.env.PATH ?? ""}`, remove: () => rmSync(bin, { recursive: true, force: true }) };
}

const SKIPPED = new Set(["node_modules", ".git", ".turbo", "coverage", ".skillrig", "bench-results", "tmp"]);

/**
 * A copy of the repository at `dest` as the build left it (dist folders included; node_modules, .git and caches
 * not): the checkout is never changed by a rehearsal.
 */
export function copyRepository(dest: string, from: string = REPO): string {
  rmSync(dest, { recursive: true, force: true });
  cpSync(from, dest, {
    recursive: true,
    filter: (source) => {
      const rel = relative(from, source);
      return rel === "" || !rel.split("/").some((part) => SKIPPED.has(part));
    },
  });
  return dest;
}

/**
 * node_modules for a copy, from pnpm's store as the lockfile says (pnpm publish reads the versions it writes for
 * `workspace:` ranges from the linked packages); no install scripts: nothing is run here but the build.
 */
export async function installWorkspace(workspace: string, pnpm: [string, string]): Promise<void> {
  const r = await run(pnpm[0], [pnpm[1], "install", "--prefer-offline", "--frozen-lockfile", "--ignore-scripts"], {
    cwd: workspace,
    env: userEnv(),
    timeoutMs: 900_000,
  });
  if (r.code !== 0) throw new ReleaseStepError("pnpm install", `failed in ${workspace}:\n${tail(r.stdout + r.stderr)}`);
}

/**
 * The checkout's turbo cache: `.turbo/cache` at the repository's root, which for a linked git worktree is the main
 * worktree's (turbo shares one cache between worktrees).
 */
async function checkoutTurboCache(): Promise<string> {
  const common = await run("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: REPO, env: userEnv() }).catch(
    () => undefined,
  );
  const gitDir = common?.code === 0 ? common.stdout.trim() : "";
  return join(gitDir.endsWith("/.git") ? dirname(gitDir) : REPO, ".turbo/cache");
}

/**
 * `turbo run build` in the workspace, with the checkout's turbo cache: what the checkout built is restored, not
 * rebuilt; what changed since is built. The published `dist/` folders are thus the sources' build.
 */
export async function buildWorkspace(workspace: string, pnpm: [string, string]): Promise<void> {
  const turbo = join(workspace, "node_modules/turbo/bin/turbo");
  const cache = workspace === REPO ? [] : ["--cache-dir", await checkoutTurboCache()];
  const shim = pathWithPnpm(pnpm);
  const r = await run(process.execPath, [turbo, "run", "build", ...cache, "--output-logs=errors-only"], {
    cwd: workspace,
    env: userEnv({ PATH: shim.path }),
    timeoutMs: 1_800_000,
  }).finally(shim.remove);
  if (r.code !== 0) throw new ReleaseStepError("build", `turbo run build failed in ${workspace}:\n${tail(r.stdout + r.stderr)}`);
}

/** `changeset version`: consumes the pending changesets into versions and changelogs, as the team's release does. */
export async function versionWorkspace(workspace: string): Promise<void> {
  const changeset = join(workspace, "node_modules/@changesets/cli/bin.js");
  const r = await run(process.execPath, [changeset, "version"], { cwd: workspace, env: userEnv(), timeoutMs: 300_000 });
  if (r.code !== 0) throw new ReleaseStepError("changeset version", `failed in ${workspace}:\n${tail(r.stdout + r.stderr)}`);
  const problems = sourceManifestProblems(workspace);
  if (problems.length > 0) throw new ReleaseStepError("manifests", `the release cannot be published as it is:\n${problems.join("\n")}`);
}

export interface PublishTarget {
  /** The registry's URL, with its trailing slash. */
  url: string;
  /** An npm user config holding the registry's token (the local Verdaccio's); unset: the user's own npm config. */
  userconfig?: string;
}

/**
 * Every public package published with `pnpm -r publish` (pnpm rewrites `workspace:` ranges; versions the registry
 * already has are left alone, so a release can be re-run), then read back: returns name -> version published.
 */
export async function publishWorkspace(workspace: string, pnpm: [string, string], target: PublishTarget): Promise<Map<string, string>> {
  const env = userEnv({ npm_config_registry: target.url, ...(target.userconfig ? { npm_config_userconfig: target.userconfig } : {}) });
  // --no-git-checks: a rehearsal's copy is not a repository; tags are the team's bookkeeping (`changeset tag`).
  const r = await run(pnpm[0], [pnpm[1], "-r", "publish", "--access", "public", "--no-git-checks", "--registry", target.url], {
    cwd: workspace,
    env,
    timeoutMs: 1_800_000,
  });
  if (r.code !== 0) throw new ReleaseStepError("publish", `pnpm -r publish to ${target.url} failed:\n${tail(r.stdout + r.stderr)}`);
  const versions = new Map(publishablePackages(workspace).map((pkg) => [pkg.name, pkg.version]));
  const problems: string[] = [];
  await Promise.all(
    [...versions].map(async ([name, version]) => {
      const manifest = (await registryManifest(target.url, name))?.versions[version];
      if (manifest === undefined) problems.push(`${name}@${version} is not in ${target.url} after publishing`);
      else problems.push(...publishedManifestProblems(manifest, versions));
    }),
  );
  if (problems.length > 0)
    throw new ReleaseStepError("published manifests", `the release cannot be installed as it is:\n${problems.sort().join("\n")}`);
  return versions;
}
