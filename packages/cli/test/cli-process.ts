/** The built CLI run as a user runs it, and a folder of files to run it in. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const bin = resolve(import.meta.dirname, "../dist/bin.js");

/** Runs `skillrig <args>` in `cwd` (the environment plus `env`) and waits for it. */
export function skillrig(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
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
