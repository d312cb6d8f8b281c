/**
 * The release as a user gets it: every publishable package of the workspace packed with `pnpm pack` (which
 * rewrites `workspace:` ranges to the versions being released) and installed with npm, by tarball, into a
 * project outside the repository.
 *
 * The project lives in `$TMPDIR/skillrig-release-check/project` and is kept between runs so that third-party
 * packages (the Gemini CLI, better-sqlite3's native build) are not fetched and compiled every time: each run packs
 * anew, removes every `@skillrig/*` package and the lockfiles, and lets `npm install` put the new tarballs in.
 * `SKILLRIG_RELEASE_CHECK_FRESH=1` deletes the project first, for a run from an empty folder.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { run, userEnv } from "./processes.js";

export const REPO = resolve(import.meta.dirname, "../../../..");
const PNPM_VERSION = "9.15.9";

/**
 * The pinned pnpm as `[command, ...args]`. `npx --yes pnpm@9.15.9` is what the README uses, but starting npx for
 * each of fourteen packages costs more than the packing on a loaded machine, so after one npx call (which makes
 * sure it is in npm's cache) the test runs that copy's pnpm.cjs with node directly.
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
}

/** packages/* and plugins/* that are not private: what a release publishes. */
export function publishablePackages(): WorkspacePackage[] {
  return ["packages", "plugins"].flatMap((group) =>
    readdirSync(join(REPO, group))
      .map((name) => join(REPO, group, name))
      .filter((dir) => existsSync(join(dir, "package.json")))
      .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
      .filter(({ manifest }) => manifest.private !== true)
      .map(({ dir, manifest }) => ({ name: manifest.name as string, version: manifest.version as string, dir })),
  );
}

/** Packs every publishable package into `dest`; resolves to package name -> tarball path. */
export async function packAll(dest: string): Promise<Map<string, string>> {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const packages = publishablePackages();
  const tarballs = new Map<string, string>();
  const [pnpm, ...pnpmArgs] = (await pnpmCommand()) as [string, ...string[]];
  // Three at a time: pnpm's start-up dominates, and the machine is shared.
  for (let i = 0; i < packages.length; i += 3) {
    await Promise.all(
      packages.slice(i, i + 3).map(async (pkg) => {
        const r = await run(pnpm, [...pnpmArgs, "pack", "--pack-destination", dest], { cwd: pkg.dir, timeoutMs: 300_000 });
        if (r.code !== 0) throw new Error(`pnpm pack failed in ${pkg.dir}:\n${r.stdout}\n${r.stderr}`);
        const file = join(dest, `${pkg.name.replace("@", "").replace("/", "-")}-${pkg.version}.tgz`);
        if (!existsSync(file)) throw new Error(`pnpm pack in ${pkg.dir} did not write ${file}:\n${r.stdout}`);
        tarballs.set(pkg.name, file);
      }),
    );
  }
  return tarballs;
}

/** The version of the Gemini CLI this repository tests against (engine-gemini's pinned dev dependency). */
export function geminiCliVersion(): string {
  const manifest = JSON.parse(readFileSync(join(REPO, "plugins/engine-gemini/package.json"), "utf8"));
  return manifest.devDependencies["@google/gemini-cli"];
}

export interface InstalledRelease {
  root: string;
  project: string;
  tarballs: Map<string, string>;
  timings: { packMs: number; installMs: number };
}

/**
 * Packs the workspace and installs every tarball, plus the Gemini CLI, into the cached project, as
 * `npm i -D <the packages>` would in a user's project.
 */
export async function installRelease(): Promise<InstalledRelease> {
  const root = join(tmpdir(), "skillrig-release-check");
  const project = join(root, "project");
  if (process.env.SKILLRIG_RELEASE_CHECK_FRESH === "1") rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });

  const packStarted = Date.now();
  const tarballs = await packAll(join(root, "tarballs"));
  const packMs = Date.now() - packStarted;

  const devDependencies: Record<string, string> = { "@google/gemini-cli": geminiCliVersion() };
  for (const [name, file] of tarballs) devDependencies[name] = `file:${file}`;
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "release-check-project", private: true, devDependencies }, null, 2)}\n`,
  );
  // The tarballs change every run under the same names: drop the old copies and what the lockfiles say of them.
  rmSync(join(project, "node_modules/@skillrig"), { recursive: true, force: true });
  rmSync(join(project, "package-lock.json"), { force: true });
  rmSync(join(project, "node_modules/.package-lock.json"), { force: true });

  const installStarted = Date.now();
  const install = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: project,
    env: userEnv(),
    timeoutMs: 1_200_000,
  });
  if (install.code !== 0) throw new Error(`npm install of the packed release failed:\n${install.stdout}\n${install.stderr}`);
  return { root, project, tarballs, timings: { packMs, installMs: Date.now() - installStarted } };
}
