/**
 * A real redis-server (Debian's, installed by scripts/setup-system.sh) on a free loopback port with its own temp
 * folder, for the tests of the redis backend. No mock: a test that needs Redis fails with a clear message when
 * redis-server is missing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CANDIDATES = [process.env.SKILLRIG_REDIS_SERVER, "/usr/bin/redis-server", "/usr/local/bin/redis-server"];

export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  /** SIGKILL (no save on the way out), then wait for the process to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder (with AOF on, it reloads what it had acknowledged). */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  stop(): Promise<void>;
}

function redisBinary(): string {
  const found = CANDIDATES.find((c): c is string => typeof c === "string" && existsSync(c));
  if (!found) {
    throw new Error(
      "redis-server is not installed, and the redis backend's tests need a real one: run scripts/setup-system.sh as root (apt-get install redis-server), or set SKILLRIG_REDIS_SERVER to its path",
    );
  }
  return found;
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

function launch(binary: string, port: number, dir: string, aof: boolean): Promise<ChildProcess> {
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    aof ? "yes" : "no",
    // Every acknowledged write is on disk before the answer: what "loses no acknowledged job" needs.
    "--appendfsync",
    "always",
    "--daemonize",
    "no",
  ];
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 20 s: ${output}`)), 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code} before it was ready: ${output}`));
    });
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve(child);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
  });
}

export async function startRedis(options: { aof?: boolean } = {}): Promise<TestRedis> {
  const binary = redisBinary();
  const aof = options.aof ?? false;
  const dir = mkdtempSync(join(tmpdir(), "skillrig-redis-"));
  const port = await freePort();
  let child = await launch(binary, port, dir, aof);
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await gone;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    kill,
    async restart() {
      await kill();
      child = await launch(binary, port, dir, aof);
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
