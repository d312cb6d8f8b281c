/**
 * The real `skillrig serve` (the built CLI, a child process, as root or as uid 65534) on a token-less loopback
 * port, on the sqlite backend or on a real redis-server of its own. One per backend per test file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { asUser, CLI, type Workspace } from "./run.js";

export type Backend = "sqlite" | "redis";

export interface Redis {
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await gone;
}

/** A real redis-server (Debian's) on a free loopback port, no persistence. */
export async function startRedis(dir: string): Promise<Redis> {
  const binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((c) => existsSync(c));
  if (!binary) throw new Error("redis-server is not installed: run scripts/setup-system.sh as root (apt-get install redis-server)");
  const port = await freePort();
  const child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 30 s: ${output}`)), 30_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output}`));
    });
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

export interface Serve {
  url: string;
  /** The server's data folder. */
  dataDir: string;
  backend: Backend;
  child: ChildProcess;
  /** Whether the process is still running. */
  alive(): boolean;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * `skillrig serve --port 0 --json` in a project folder of its own under the workspace (written here), with
 * `extraConfig` merged into its config (plugins, solve variants...) and `args` added to its command line. Started
 * again in the same workspace, it serves the same data (and, on redis, the same key prefix).
 */
export async function startServe(
  ws: Workspace,
  backend: Backend,
  redis: Redis | undefined,
  extraConfig: Record<string, unknown> = {},
  args: string[] = [],
  name = `serve-${backend}`,
): Promise<Serve> {
  const project = join(ws.dir, name);
  mkdirSync(project, { recursive: true });
  const { server: extraServer, ...rest } = extraConfig as { server?: Record<string, unknown> };
  const queue =
    backend === "sqlite"
      ? { backend: "sqlite" }
      : // A server of a fixture's own gets keys of its own: the file's shared server must not run its jobs.
        {
          backend: "redis",
          url: redis!.url,
          prefix: name === `serve-${backend}` ? "corpus" : `corpus-${name}`,
          lock_ms: 5000,
          stalled_check_ms: 2000,
        };
  writeFileSync(
    join(project, "skillrig.config.json"),
    JSON.stringify({ oracle: { jobs: 1 }, ...rest, server: { data_dir: "data", concurrency: 2, queue, ...extraServer } }, null, 2),
  );
  if (ws.user === "nonroot") {
    const { spawnSync } = await import("node:child_process");
    spawnSync("chown", ["-R", "65534:65534", project]);
  }
  const plan = asUser(ws, [
    process.execPath,
    CLI,
    "serve",
    "--config",
    join(project, "skillrig.config.json"),
    "--port",
    "0",
    "--json",
    ...args,
  ]);
  const child = spawn(plan.command, plan.args, { cwd: project, env: plan.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`skillrig serve did not start within 180 s; stderr: ${stderr}`)), 180_000);
    child.once("exit", (code) => reject(new Error(`skillrig serve exited with ${code} before listening; stderr: ${stderr}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        const info = JSON.parse(stdout) as { url: string };
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve(info.url);
      } catch {
        // the JSON document is not complete yet
      }
    });
  });
  return {
    url,
    dataDir: join(project, "data"),
    backend,
    child,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}
