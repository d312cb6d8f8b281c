/** The built CLI run as a user runs it, and a folder of files to run it in. */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const bin = resolve(import.meta.dirname, "../dist/bin.js");

/**
 * Runs `skillrig <args>` in `cwd` (the environment plus `env`) to its end. Asynchronous on purpose: a test that runs
 * the CLI several times with spawnSync blocks its worker's event loop past vitest's fixed 60 s RPC timeout on a loaded
 * machine, and the run then fails with `Timeout calling "onTaskUpdate"` though every test passed.
 */
export function skillrig(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** A fresh temp folder holding `files` (relative path -> content). */
export function writeTree(files: Record<string, string>, prefix = "skillrig-cli-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
