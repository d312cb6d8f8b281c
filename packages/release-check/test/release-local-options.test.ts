/**
 * `pnpm release:local` refuses what it cannot do before it starts anything: bad options exit 2 naming the option,
 * and a port already taken exits 1 saying so (the registry is the first step, so nothing was copied or published).
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, userEnv } from "../src/processes.js";
import { REPO } from "./support/release.js";

const COMMAND = join(REPO, "packages/release-check/dist/release-local.js");
const releaseLocal = (...args: string[]) => run(process.execPath, [COMMAND, ...args], { cwd: REPO, env: userEnv(), timeoutMs: 120_000 });

describe("pnpm release:local's options", () => {
  it.each([
    [["--port", "abc"], '--port: "abc" is not a port number'],
    [["--port", "70000"], '--port: "70000" is not a port number'],
    [["--registry", "ftp://npm.example.internal/"], '--registry: "ftp://npm.example.internal/" is not an http(s) URL'],
    [["--registry", "npm.example.internal"], '--registry: "npm.example.internal" is not a URL'],
    [["--registry", "https://npm.example.internal/", "--port", "4873"], "--port: only for the local registry"],
    [["--registy", "https://npm.example.internal/"], "Unknown option '--registy'"],
    [["publish"], "Unexpected argument 'publish'"],
  ])("%j: exit 2, the option named, the usage shown", async (args, message) => {
    const r = await releaseLocal(...args);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(`release:local: ${message}`);
    expect(r.stderr).toContain("usage: pnpm release:local");
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("--help: the usage, exit 0", async () => {
    const r = await releaseLocal("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--registry URL");
  });
});

describe("a port already in use", () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer((_, response) => response.end("taken"));
    await new Promise<void>((resolvePromise) => taken.listen(0, "127.0.0.1", resolvePromise));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolvePromise) => taken.close(() => resolvePromise())));

  it("exit 1 naming the port and what to do, before anything is copied or published", async () => {
    const r = await releaseLocal("--port", String(port));
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(r.stderr).toContain("--port N");
    expect(r.stdout).not.toContain("copy of the checkout");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});
