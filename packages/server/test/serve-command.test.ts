/** `skillrig serve` refuses bad options and unsafe exposure with exit code 2 and a clear message, before listening. */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "./support/server-harness.js";

const CLI = resolve(import.meta.dirname, "..", "..", "cli", "dist", "bin.js");

/**
 * `skillrig serve` to its end, asynchronously: a blocked test worker stops answering vitest (its RPC times out
 * after 60 s), and a refusal can take that long to start up on a loaded machine.
 */
function serve(args: string[], server = {}, env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const dir = makeProject(server);
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, "serve", "--config", join(dir, "skillrig.config.json"), ...args],
      { encoding: "utf8", timeout: 240_000, env: { ...process.env, ...env } },
      (error, _stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr }),
    );
  });
}

// Generous: on a loaded machine the CLI alone can take a minute to start, and some tests start it three times.
describe("skillrig serve", { timeout: 600_000 }, () => {
  it("exits 2 for a port that is not a number", async () => {
    const { code, stderr } = await serve(["--port", "eighty"]);
    expect(code).toBe(2);
    expect(stderr).toContain('error[invalid_config]: --port must be a whole number of at least 0, not "eighty"');
  });

  it("exits 2 for an unknown --on-restart", async () => {
    const { code, stderr } = await serve(["--on-restart", "retry"]);
    expect(code).toBe(2);
    expect(stderr).toContain('--on-restart must be "fail" or "requeue", not "retry"');
  });

  it("exits 2 instead of listening on a public address without tokens", async () => {
    const { code, stderr } = await serve(["--host", "0.0.0.0", "--port", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("without bearer tokens");
    expect(stderr).toContain("hint: add at least one token");
  });

  it("exits 2 for an unknown --role, and for api or worker on the one-process sqlite backend", async () => {
    const unknown = await serve(["--role", "both"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--role must be "all", "api" or "worker", not "both"');
    const split = await serve(["--role", "worker", "--port", "0"]);
    expect(split.code).toBe(2);
    expect(split.stderr).toContain('role "worker" splits the server across processes, which needs a shared queue');
    expect(split.stderr).toContain("server.queue");
  });

  it("exits 2 naming server.queue.url when Redis cannot be reached, and refuses a queue config that is not one of the backends", async () => {
    // A port nothing listens on: a loopback port bound and released by the OS is not guaranteed free, 1 is never ours.
    const down = await serve(["--port", "0"], { queue: { backend: "redis", url: "redis://127.0.0.1:1" } });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain("cannot reach Redis at redis://127.0.0.1:1");
    expect(down.stderr).toContain("server.queue.url");
    const bad = await serve(["--port", "0"], { queue: { backend: "postgres", url: "postgres://x" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('server.queue.backend: must be one of "sqlite", "redis"');
    const noUrl = await serve(["--port", "0"], { queue: { backend: "redis" } });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("url");
  });

  it("exits 2 naming SKILLRIG_SQLITE_DRIVER and its values when it names no driver", async () => {
    const { code, stderr } = await serve(["--port", "0"], {}, { SKILLRIG_SQLITE_DRIVER: "sqlite3" });
    expect(code).toBe(2);
    expect(stderr).toContain(
      'error[invalid_config]: SKILLRIG_SQLITE_DRIVER must be "node:sqlite" or "better-sqlite3" (or unset, to take the first that loads), not "sqlite3"',
    );
  });

  it("exits 2 when the driver SKILLRIG_SQLITE_DRIVER asks for does not load, saying why and not trying the other", async () => {
    if (Number(process.versions.node.split(".")[0]) >= 22) {
      // This Node has node:sqlite: ask for better-sqlite3 instead, which the workspace builds for Node 20 only.
      const { code, stderr } = await serve(["--port", "0"], {}, { SKILLRIG_SQLITE_DRIVER: "better-sqlite3" });
      expect(code).toBe(2);
      expect(stderr).toContain("has no driver that loads (SKILLRIG_SQLITE_DRIVER=better-sqlite3): better-sqlite3: ");
      return;
    }
    const { code, stderr } = await serve(["--port", "0"], {}, { SKILLRIG_SQLITE_DRIVER: "node:sqlite" });
    expect(code).toBe(2);
    expect(stderr).toContain(
      `error[plugin_not_found]: the jobs server's SQLite store has no driver that loads (SKILLRIG_SQLITE_DRIVER=node:sqlite): node:sqlite: not in this Node (${process.version}); it is built into Node 22.13 and newer`,
    );
    expect(stderr).toContain("hint: unset SKILLRIG_SQLITE_DRIVER to use whichever driver loads");
    expect(stderr).not.toContain("better-sqlite3:");
  });
});
