/** `skillrig serve` refuses bad options and unsafe exposure with exit code 2 and a clear message, before listening. */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "./support/server-harness.js";

const CLI = resolve(import.meta.dirname, "..", "..", "cli", "dist", "bin.js");

function serve(args: string[], server = {}) {
  const dir = makeProject(server);
  const run = spawnSync(process.execPath, [CLI, "serve", "--config", join(dir, "skillrig.config.json"), ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: run.status, stderr: run.stderr };
}

describe("skillrig serve", () => {
  it("exits 2 for a port that is not a number", () => {
    const { code, stderr } = serve(["--port", "eighty"]);
    expect(code).toBe(2);
    expect(stderr).toContain('error[invalid_config]: --port must be a whole number of at least 0, not "eighty"');
  });

  it("exits 2 for an unknown --on-restart", () => {
    const { code, stderr } = serve(["--on-restart", "retry"]);
    expect(code).toBe(2);
    expect(stderr).toContain('--on-restart must be "fail" or "requeue", not "retry"');
  });

  it("exits 2 instead of listening on a public address without tokens", () => {
    const { code, stderr } = serve(["--host", "0.0.0.0", "--port", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("without bearer tokens");
    expect(stderr).toContain("hint: add at least one token");
  });

  it("exits 2 for an unknown --role, and for api or worker on the one-process sqlite backend", () => {
    const unknown = serve(["--role", "both"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--role must be "all", "api" or "worker", not "both"');
    const split = serve(["--role", "worker", "--port", "0"]);
    expect(split.code).toBe(2);
    expect(split.stderr).toContain('role "worker" splits the server across processes, which needs a shared queue');
    expect(split.stderr).toContain("server.queue");
  });

  it("exits 2 naming server.queue.url when Redis cannot be reached, and refuses a queue config that is not one of the backends", () => {
    // A port nothing listens on: a loopback port bound and released by the OS is not guaranteed free, 1 is never ours.
    const down = serve(["--port", "0"], { queue: { backend: "redis", url: "redis://127.0.0.1:1" } });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain("cannot reach Redis at redis://127.0.0.1:1");
    expect(down.stderr).toContain("server.queue.url");
    const bad = serve(["--port", "0"], { queue: { backend: "postgres", url: "postgres://x" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('server.queue.backend: must be one of "sqlite", "redis"');
    const noUrl = serve(["--port", "0"], { queue: { backend: "redis" } });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("url");
  });
});
