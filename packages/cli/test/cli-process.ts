/** The built CLI run as a user runs it, and a folder of files to run it in. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { runCommand } from "./processes.js";

const bin = resolve(import.meta.dirname, "../dist/bin.js");

/**
 * Runs `skillrig <args>` in `cwd` (the environment plus `env`) to its end. Asynchronous on purpose: a test that runs
 * the CLI several times with spawnSync blocks its worker's event loop past vitest's fixed 60 s RPC timeout on a loaded
 * machine, and the run then fails with `Timeout calling "onTaskUpdate"` though every test passed.
 */
export const skillrig = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  runCommand(process.execPath, [bin, ...args], cwd, env);

/** A fresh temp folder holding `files` (relative path -> content). */
export function writeTree(files: Record<string, string>, prefix = "skillrig-cli-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
