/** Runs the built `skillrig` CLI as a user would, in its own process, and collects what it printed. */
import { spawn } from "node:child_process";
import { resolve } from "node:path";

export const CLI = resolve(import.meta.dirname, "..", "..", "..", "cli", "dist", "bin.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `onStart` gets a function that sends the CLI SIGINT (Ctrl-C), for tests of cancelling. */
export function cli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  onStart?: (interrupt: () => void) => void,
): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => done({ code, stdout, stderr }));
    onStart?.(() => child.kill("SIGINT"));
  });
}
