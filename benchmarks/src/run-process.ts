/** Spawning a process and collecting its output, timed from spawn to exit. */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

export interface ProcessRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

export function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; stdin?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", reject);
    // A child that exits without reading its stdin (most tools) closes the pipe first: EPIPE is not a failure.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.on("close", (exitCode, signal) => {
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
        wallMs: performance.now() - started,
      });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

/** Runs `count` tasks with at most `concurrency` at a time; resolves when all are done. */
export async function runPool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
