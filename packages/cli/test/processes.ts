/**
 * Runs a command to its end without blocking the test worker's event loop (a long spawnSync starves vitest's RPC,
 * which then reports a timeout); the built `skillrig` of this repository as a command.
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";

export const REPO = resolve(import.meta.dirname, "../../..");
const BIN = join(REPO, "packages/cli/dist/bin.js");

export interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `command args` in `cwd`, with the environment plus `env` (or `env` alone when `inherit` is false), to its end.
 */
export function runCommand(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  { inherit = true }: { inherit?: boolean } = {},
): Promise<Ended> {
  return new Promise((done, fail) => {
    const childEnv = inherit ? { ...process.env, ...env } : env;
    const child = spawn(command, args, { cwd, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** `node <args>` in `cwd`, with the environment plus `env`. */
export const runNode = (args: string[], cwd: string, env: Record<string, string> = {}) => runCommand(process.execPath, args, cwd, env);

/** The real `skillrig` of this repository in `cwd`. */
export const skillrig = (args: string[], cwd: string) => runNode([BIN, ...args], cwd);
