/**
 * Node releases to run the installed product on. Node itself is a package on the npm registry (`node@22` ships
 * the official binary), so the public registry gives each version: `npx -y -p node@<major> node` fetches it once,
 * and its binary is kept in the repository's ignored cache folder (`node_modules/.cache/release-check/`), so later
 * runs need neither npx nor the network.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { run, userEnv } from "../../src/processes.js";
import { REPO } from "../../src/release-steps.js";

export interface NodeRelease {
  major: number;
  /** `v22.x.y`, as the binary reports it. */
  version: string;
  /** A folder holding only `node`: first on a PATH, it makes npm, npx and every `#!/usr/bin/env node` run on it. */
  binDir: string;
}

const CACHE = join(REPO, "node_modules/.cache/release-check");

async function versionOf(binary: string): Promise<string> {
  const r = await run(binary, ["--version"], { cwd: REPO, env: userEnv(), timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`${binary} --version failed (${r.code}): ${r.stderr}`);
  return r.stdout.trim();
}

/** Node `major` (its latest release on the registry when first fetched), from the cache or through npx. */
export async function nodeRelease(major: number): Promise<NodeRelease> {
  const binDir = join(CACHE, `node-${major}`, "bin");
  const binary = join(binDir, "node");
  if (!existsSync(binary)) {
    const fetched = await run("npx", ["-y", "-p", `node@${major}`, "node", "-p", "process.execPath"], {
      cwd: REPO,
      env: userEnv(),
      timeoutMs: 900_000,
    });
    if (fetched.code !== 0) throw new Error(`npx -y -p node@${major} failed (${fetched.code}):\n${fetched.stdout}\n${fetched.stderr}`);
    mkdirSync(binDir, { recursive: true });
    // Copied under a temporary name, then renamed: a run stopped half-way leaves no broken binary behind.
    const partial = `${binary}.${process.pid}.partial`;
    copyFileSync(fetched.stdout.trim(), partial);
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
  }
  const version = await versionOf(binary);
  if (!version.startsWith(`v${major}.`)) throw new Error(`${binary} is ${version}, not Node ${major}: delete ${binDir} to fetch it again`);
  return { major, version, binDir };
}
