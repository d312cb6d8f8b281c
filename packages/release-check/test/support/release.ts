/**
 * The release as a team makes it: in a copy of the repository (the checkout is never changed), `changeset version`
 * and `changeset publish` to a private registry (registry.ts), exactly as a team would; pnpm publish rewrites the
 * `workspace:` ranges. Before and after publishing, every public package's manifest is checked for what would
 * make it uninstallable: no `files`, a `workspace:` range left in, a peer range its own release does not satisfy.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import semver from "semver";
import { run, userEnv } from "./processes.js";
import { type Registry, registryManifest } from "./registry.js";

export const REPO = resolve(import.meta.dirname, "../../../..");
const PNPM_VERSION = "9.15.9";

/**
 * The pinned pnpm as `[command, ...args]`: after one `npx --yes pnpm@9.15.9` (what the README uses; it makes
 * sure that copy is in npm's cache), that copy's pnpm.cjs run with node directly.
 */
async function pnpmCommand(): Promise<string[]> {
  const warmed = await run("npx", ["--yes", `pnpm@${PNPM_VERSION}`, "--version"], { cwd: REPO, timeoutMs: 300_000 });
  if (warmed.code !== 0) throw new Error(`npx pnpm@${PNPM_VERSION} failed:\n${warmed.stderr}`);
  const cache = (await run("npm", ["config", "get", "cache"], { cwd: REPO })).stdout.trim();
  const npxDir = join(cache, "_npx");
  for (const entry of existsSync(npxDir) ? readdirSync(npxDir) : []) {
    const manifest = join(npxDir, entry, "node_modules/pnpm/package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === PNPM_VERSION) {
      return [process.execPath, join(npxDir, entry, "node_modules/pnpm/bin/pnpm.cjs")];
    }
  }
  return ["npx", "--yes", `pnpm@${PNPM_VERSION}`];
}

export interface WorkspacePackage {
  name: string;
  version: string;
  dir: string;
  manifest: Record<string, unknown>;
}

/** packages/* and plugins/* of `root` that are not private: what a release publishes. */
export function publishablePackages(root: string = REPO): WorkspacePackage[] {
  return ["packages", "plugins"].flatMap((group) =>
    readdirSync(join(root, group))
      .map((name) => join(root, group, name))
      .filter((dir) => existsSync(join(dir, "package.json")))
      .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown> }))
      .filter(({ manifest }) => manifest.private !== true)
      .map(({ dir, manifest }) => ({ name: manifest.name as string, version: manifest.version as string, dir, manifest })),
  );
}

/** The version of the Gemini CLI this repository tests against (engine-gemini's pinned dev dependency). */
export function geminiCliVersion(): string {
  const manifest = JSON.parse(readFileSync(join(REPO, "plugins/engine-gemini/package.json"), "utf8"));
  return manifest.devDependencies["@google/gemini-cli"];
}

const SKIPPED = new Set(["node_modules", ".git", ".turbo", "coverage", ".skillrig", "bench-results", "tmp"]);

/**
 * A copy of the repository at `dest` as the build left it (dist folders included; node_modules, .git and caches
 * not). publishRelease installs its node_modules: pnpm publish reads the versions it writes for `workspace:`
 * ranges from the linked packages there, which must be the copy's, as `changeset version` left them.
 */
export function copyRepository(dest: string): string {
  rmSync(dest, { recursive: true, force: true });
  cpSync(REPO, dest, {
    recursive: true,
    filter: (source) => {
      const rel = relative(REPO, source);
      return rel === "" || !rel.split("/").some((part) => SKIPPED.has(part));
    },
  });
  return dest;
}

const DEPENDENCY_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"] as const;

/** What a `workspace:` range becomes when pnpm publishes it against `version`. */
function publishedRange(range: string, version: string): string {
  const rest = range.slice("workspace:".length);
  if (rest === "*") return version;
  if (rest === "^" || rest === "~") return `${rest}${version}`;
  return rest;
}

/**
 * Why the public packages of a workspace (as `changeset version` left it) cannot be published as they are, one
 * line each naming the package and the field: no `files` list (npm would publish everything, or the build would
 * be left out), or a peer range on a sibling that the sibling's version being released does not satisfy.
 */
export function sourceManifestProblems(root: string): string[] {
  const packages = publishablePackages(root);
  const versions = new Map(packages.map((pkg) => [pkg.name, pkg.version]));
  const problems: string[] = [];
  for (const pkg of packages) {
    const where = `${relative(root, pkg.dir)}/package.json (${pkg.name})`;
    const files = pkg.manifest.files;
    if (!Array.isArray(files) || files.length === 0)
      problems.push(`${where}: "files" is missing: list what the package ships (dist, README.md, ...)`);
    const peers = (pkg.manifest.peerDependencies ?? {}) as Record<string, string>;
    for (const [dep, range] of Object.entries(peers)) {
      const version = versions.get(dep);
      if (version === undefined) continue;
      const effective = range.startsWith("workspace:") ? publishedRange(range, version) : range;
      if (!semver.satisfies(version, effective)) {
        problems.push(`${where}: peerDependencies["${dep}"] is "${range}", which ${dep} ${version} (this release) does not satisfy`);
      }
    }
  }
  return problems;
}

/**
 * Why a manifest as the registry serves it cannot be installed: a `workspace:` range left in any dependency
 * field, or a range on a package of this release that the released version does not satisfy.
 */
export function publishedManifestProblems(manifest: Record<string, unknown>, released: ReadonlyMap<string, string>): string[] {
  const where = `${String(manifest.name)}@${String(manifest.version)} as published`;
  const problems: string[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries((manifest[field] ?? {}) as Record<string, string>)) {
      if (range.startsWith("workspace:")) {
        problems.push(`${where}: ${field}["${dep}"] is "${range}": a workspace: range left in (publish with pnpm, which rewrites it)`);
        continue;
      }
      const version = released.get(dep);
      if (version !== undefined && !semver.satisfies(version, range)) {
        problems.push(`${where}: ${field}["${dep}"] is "${range}", which ${dep} ${version} (this release) does not satisfy`);
      }
    }
  }
  return problems;
}

export interface PublishedRelease {
  /** The repository copy the release was made in. */
  copy: string;
  /** Every public package's name -> the version published. */
  versions: Map<string, string>;
  timings: { installMs: number; versionMs: number; publishMs: number };
}

/**
 * Copies the repository into `work/repo`, installs its node_modules from pnpm's store, runs `changeset version`
 * and `changeset publish` there against the registry, and checks the manifests before and after. Throws with
 * every problem found, each naming the package and the field.
 */
export async function publishRelease(registry: Registry, work: string): Promise<PublishedRelease> {
  const copy = copyRepository(join(work, "repo"));
  // changesets publishes with `pnpm publish` (it sees pnpm-lock.yaml) and finds pnpm on the PATH.
  const bin = join(work, "bin");
  mkdirSync(bin, { recursive: true });
  const [pnpm, ...pnpmArgs] = (await pnpmCommand()) as [string, ...string[]];
  const quoted = [pnpm, ...pnpmArgs].map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(" ");
  writeFileSync(join(bin, "pnpm"), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  const path = `${bin}:${process.env.PATH ?? ""}`;
  const env = registry.env({ PATH: path });
  // From pnpm's store, as the lockfile says (the public registry's packages, so not with the registry's env); no
  // install scripts (nothing is built or run here).
  const installStarted = Date.now();
  const installed = await run(pnpm, [...pnpmArgs, "install", "--offline", "--frozen-lockfile", "--ignore-scripts"], {
    cwd: copy,
    env: userEnv({ PATH: path }),
    timeoutMs: 900_000,
  });
  if (installed.code !== 0) throw new Error(`pnpm install failed in ${copy}:\n${installed.stdout}\n${installed.stderr}`);
  const installMs = Date.now() - installStarted;
  const changeset = join(copy, "node_modules/@changesets/cli/bin.js");

  const versionStarted = Date.now();
  const versioned = await run(process.execPath, [changeset, "version"], { cwd: copy, env, timeoutMs: 300_000 });
  if (versioned.code !== 0) throw new Error(`changeset version failed in ${copy}:\n${versioned.stdout}\n${versioned.stderr}`);
  const versionMs = Date.now() - versionStarted;
  const before = sourceManifestProblems(copy);
  if (before.length > 0) throw new Error(`the release cannot be published as it is:\n${before.join("\n")}`);

  const publishStarted = Date.now();
  // --no-git-tag: the copy is not a repository; tags are the team's bookkeeping, not what users install.
  const published = await run(process.execPath, [changeset, "publish", "--no-git-tag"], { cwd: copy, env, timeoutMs: 900_000 });
  if (published.code !== 0) throw new Error(`changeset publish failed in ${copy}:\n${published.stdout}\n${published.stderr}`);
  const publishMs = Date.now() - publishStarted;

  const versions = new Map(publishablePackages(copy).map((pkg) => [pkg.name, pkg.version]));
  const after: string[] = [];
  for (const [name, version] of versions) {
    const manifest = (await registryManifest(registry, name))?.versions[version];
    if (manifest === undefined) {
      after.push(`${name}@${version} is not in the registry after changeset publish`);
      continue;
    }
    after.push(...publishedManifestProblems(manifest, versions));
  }
  if (after.length > 0) throw new Error(`the published release cannot be installed as it is:\n${after.join("\n")}`);
  return { copy, versions, timings: { installMs, versionMs, publishMs } };
}
