/** Runs the real `skillrig serve` (the built CLI) as a child process, so a test can SIGKILL it. */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "cli", "dist", "bin.js");

export interface ChildServer {
  url: string;
  child: ChildProcess;
  recovered: { failed: string[]; requeued: string[] };
  /** The document `skillrig serve --json` printed when it started listening. */
  started: Record<string, unknown>;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** SIGKILL, then wait for the process to be gone. */
  kill(): Promise<void>;
}

export interface SpawnOptions {
  /** The `node` binary to run the CLI with (default: the one running the tests). */
  node?: string;
  /** Added to the environment. */
  env?: Record<string, string>;
}

export function spawnServer(projectDir: string, args: string[] = [], options: SpawnOptions = {}): Promise<ChildServer> {
  const child = spawn(
    options.node ?? process.execPath,
    [CLI, "serve", "--config", join(projectDir, "skillrig.config.json"), "--port", "0", "--json", ...args],
    {
      cwd: projectDir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
    },
  );
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let stdout = "";
  let stderr = "";
  return new Promise((resolvePromise, reject) => {
    // Generous: several servers may start at once on a loaded machine; a healthy start takes a second or two.
    const timer = setTimeout(() => reject(new Error(`skillrig serve did not start within 180 s; stderr: ${stderr}`)), 180_000);
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("exit", (code) => reject(new Error(`skillrig serve exited with ${code} before listening; stderr: ${stderr}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      let info: { url: string; recovered: ChildServer["recovered"] } & Record<string, unknown>;
      try {
        info = JSON.parse(stdout);
      } catch {
        return; // the JSON document is not complete yet
      }
      clearTimeout(timer);
      resolvePromise({
        url: info.url,
        child,
        recovered: info.recovered,
        started: info,
        stderr: () => stderr,
        async kill() {
          child.kill("SIGKILL");
          await exited;
        },
      });
    });
  });
}
