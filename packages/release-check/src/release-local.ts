#!/usr/bin/env node
/**
 * `pnpm release:local`: the release, published with one command.
 *
 * Without --registry (a rehearsal): a Verdaccio on 127.0.0.1 (this process, through Verdaccio's API), a copy of
 * the checkout installed, built, versioned with changesets and published to it; prints the `.npmrc` line a project
 * needs and serves until Ctrl-C (SIGINT or SIGTERM), then stops and removes its folder. The checkout is not changed.
 *
 * With --registry URL (the team's release): the same steps in the checkout itself (so `changeset version`'s
 * versions and changelogs are there to commit), published with the user's own npm credentials for that URL.
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  buildWorkspace,
  copyRepository,
  installWorkspace,
  type PublishTarget,
  pnpmCommand,
  publishWorkspace,
  REPO,
  ReleaseStepError,
  versionWorkspace,
} from "./release-steps.js";

const USAGE = `usage: pnpm release:local [--port N] [--registry URL]
  (no --registry)  rehearse: publish a copy of this checkout to a Verdaccio on 127.0.0.1:N (default 4873, 0: any
                   free port) and serve it until Ctrl-C
  --registry URL   release: version and publish this checkout to your team's registry with your npm credentials`;

interface Options {
  port: number;
  registry?: string;
}

class UsageError extends Error {}

function parseOptions(argv: string[]): Options | "help" {
  let values: { port?: string; registry?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { port: { type: "string" }, registry: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const port = values.port === undefined ? 4873 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || values.port?.trim() === "")
    throw new UsageError(`--port: "${values.port}" is not a port number (0 to 65535; 0: any free port)`);
  if (values.registry === undefined) return { port };
  if (values.port !== undefined) throw new UsageError("--port: only for the local registry; with --registry URL nothing is served here");
  let url: URL;
  try {
    url = new URL(values.registry);
  } catch {
    throw new UsageError(`--registry: "${values.registry}" is not a URL (e.g. https://npm.example.internal/)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--registry: "${values.registry}" is not an http(s) URL (e.g. https://npm.example.internal/)`);
  const href = url.href.endsWith("/") ? url.href : `${url.href}/`;
  return { port, registry: href };
}

/** Runs `step` and prints how long it took. */
async function step<T>(name: string, body: () => Promise<T> | T): Promise<T> {
  const started = Date.now();
  process.stdout.write(`release: ${name} ...\n`);
  const result = await body();
  process.stdout.write(`release: ${name} done (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return result;
}

/** The lines a project's .npmrc needs: only the @skillrig scope from this registry, the rest from the public one. */
function npmrcLines(url: string): string {
  return `@skillrig:registry=${url}\n`;
}

async function publish(workspace: string, target: PublishTarget, options: { copy: boolean }): Promise<Map<string, string>> {
  const pnpm = await step("pnpm", pnpmCommand);
  if (options.copy) await step("pnpm install (the copy)", () => installWorkspace(workspace, pnpm));
  await step("build", () => buildWorkspace(workspace, pnpm));
  await step("changeset version", () => versionWorkspace(workspace));
  return step(`publish to ${target.url}`, () => publishWorkspace(workspace, pnpm, target));
}

function printPublished(versions: Map<string, string>, url: string): void {
  const list = [...versions].map(([name, version]) => `${name}@${version}`).join(", ");
  process.stdout.write(`release: published ${versions.size} packages to ${url}: ${list}\n`);
  process.stdout.write(`\nIn a project's .npmrc (or ~/.npmrc), so @skillrig comes from this registry and the rest from npm's:\n\n`);
  process.stdout.write(npmrcLines(url));
  process.stdout.write("\n");
}

async function rehearse(port: number): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "skillrig-release-local-"));
  let stopRegistry: (() => Promise<void>) | undefined;
  let stopping = false;
  const cleanUp = async () => {
    await stopRegistry?.();
    await rm(work, { recursive: true, force: true });
  };
  // Ctrl-C while publishing stops too: the folder goes, the exit status says it was interrupted.
  const interrupted = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`release: ${signal}, stopping\n`);
    void cleanUp().then(() => process.exit(130));
  };
  process.on("SIGINT", interrupted).on("SIGTERM", interrupted);
  try {
    // Imported here, not at the top: Verdaccio takes seconds to load, and a usage error needs none of it.
    const { startVerdaccio } = await import("./verdaccio-registry.js");
    const registry = await step("local registry (Verdaccio)", () => startVerdaccio(join(work, "registry"), port));
    stopRegistry = registry.stop;
    process.stdout.write(`release: Verdaccio on ${registry.url}, storage in ${work}\n`);
    const copy = await step("copy of the checkout", () => copyRepository(join(work, "repo")));
    const versions = await publish(copy, registry, { copy: true });
    // Published: the copy (a gigabyte of node_modules) is not needed while serving, and Ctrl-C then stops at once.
    await step("remove the copy", () => rm(copy, { recursive: true, force: true }));
    printPublished(versions, registry.url);
  } catch (error) {
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
    await cleanUp();
    throw error;
  }
  process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
  process.stdout.write("release: serving until Ctrl-C\n");
  await new Promise<void>((resolvePromise) => {
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(`release: ${signal}, stopping the registry\n`);
      void cleanUp().then(() => resolvePromise());
    };
    process.on("SIGINT", stop).on("SIGTERM", stop);
  });
  process.stdout.write("release: stopped\n");
}

async function release(registry: string): Promise<void> {
  const versions = await publish(REPO, { url: registry }, { copy: false });
  printPublished(versions, registry);
  process.stdout.write(
    "release: commit what changeset version changed (package.json versions, CHANGELOG.md, the consumed .changeset files); `pnpm changeset tag` tags it\n",
  );
}

async function main(): Promise<number> {
  let options: Options | "help";
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`release:local: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    if (options.registry === undefined) await rehearse(options.port);
    else await release(options.registry);
    return 0;
  } catch (error) {
    const message = error instanceof ReleaseStepError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`release:local failed: ${message}\n`);
    return 1;
  }
}

// exit, not exitCode: Verdaccio leaves timers behind that would keep the process up after the registry stopped.
process.exit(await main());
