/** The built `skillrig` CLI as a child process: one-shot commands, and long-running ones that print their JSON first. */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
export const CLI = resolve(REPO, "packages", "cli", "dist", "bin.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("error", fail);
    child.on("close", (code) => ok({ code, stdout, stderr }));
  });
}

export interface CliService<T> {
  info: T;
  child: ChildProcess;
  /** SIGTERM, then wait until the process is gone. */
  stop(): Promise<void>;
}

/** Starts a serving command with --json and resolves once its JSON document (the URL) is complete on stdout. */
export function startCli<T>(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliService<T>> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? REPO,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let stdout = "";
  let stderr = "";
  return new Promise((ok, fail) => {
    child.stderr!.on("data", (c: Buffer) => (stderr += c));
    child.once("exit", (code) => fail(new Error(`skillrig ${args[0]} exited with ${code} before it printed its URL; stderr: ${stderr}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk;
      let info: T;
      try {
        info = JSON.parse(stdout) as T;
      } catch {
        return; // the JSON document is not complete yet
      }
      ok({
        info,
        child,
        async stop() {
          if (child.exitCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}
