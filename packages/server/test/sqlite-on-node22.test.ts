/**
 * The server on Node 22 with its built-in node:sqlite, beside Node 20 with better-sqlite3 (the Node running this
 * suite). Node 22 comes from the npm registry (support/node-release.ts). The workspace's better-sqlite3 is built
 * for Node 20, so under Node 22 it cannot load at all: whatever works there works without it.
 *
 * - The store's own test files (the driver contract, the migrations from a skillrig 0.1 data folder, the batched
 *   event writes) run again under Node 22, unchanged: the same SQL and the same assertions on both drivers.
 * - `skillrig serve` under Node 22 reports node:sqlite, prints no ExperimentalWarning, and runs a job; the data
 *   folder it wrote is then served by Node 20 through better-sqlite3 (a team that moves between Node versions
 *   keeps its jobs).
 * - With neither driver loadable, `skillrig serve` stops with one error naming both and why each failed.
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnServer, type ChildServer } from "./support/child-server.js";
import { nodeBinary } from "./support/node-release.js";
import { api, makeProject, waitForStatus } from "./support/server-harness.js";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const CLI = join(ROOT, "packages", "cli", "dist", "bin.js");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");

/** This environment without vitest's own variables, so a vitest started from here runs as a fresh one. */
function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1", ...extra };
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("VITEST") && key !== "NODE_OPTIONS" && key !== "TINYPOOL_WORKER_ID") env[key] ??= value;
  }
  return env;
}

/** Runs a command to its end without blocking this worker (a nested vitest takes a minute on a loaded machine). */
function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("error", fail);
    child.once("close", (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

let node22: string;
beforeAll(async () => {
  node22 = await nodeBinary("22");
}, 600_000);

describe("the jobs server on Node 22 (node:sqlite) and Node 20 (better-sqlite3)", () => {
  const servers: ChildServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.kill();
  });

  it("runs the store's test files under Node 22 as they are, with node:sqlite", async () => {
    const files = ["sqlite-driver.test.ts", "sqlite-migrations.test.ts", "sqlite-event-batching.test.ts"].map((f) =>
      join("packages", "server", "test", f),
    );
    const run = await runToEnd(node22, [VITEST, "run", ...files], { cwd: ROOT, env: freshEnv(), timeoutMs: 900_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/Test Files\s+3 passed \(3\)/);
    expect(output).not.toContain("ExperimentalWarning");
  }, 900_000);

  it("serve under Node 22 says node:sqlite, warns nothing, runs a job; Node 20 then serves that data folder through better-sqlite3", async () => {
    const dir = makeProject();
    const on22 = await spawnServer(dir, [], { node: node22 });
    servers.push(on22);
    expect(on22.started).toMatchObject({ backend: "sqlite", sqlite_driver: "node:sqlite" });
    let client = api(on22.url);
    const created = await client.json("POST", "/v1/jobs", {
      skill_id: "quick-echo",
      engine: "echo",
      input: { message: "written by node:sqlite" },
      parameter: { delay_ms: 0 },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await waitForStatus(client, id, ["succeeded"]);
    expect((await client.json("GET", `/v1/jobs/${id}/result`)).body.output).toEqual({ echo: "written by node:sqlite" });
    expect(on22.stderr()).not.toContain("ExperimentalWarning");
    expect(on22.stderr()).not.toContain("SQLite is an experimental feature");
    await on22.kill();
    servers.splice(0);

    const on20 = await spawnServer(dir);
    servers.push(on20);
    expect(on20.started).toMatchObject({ sqlite_driver: process.versions.node.startsWith("20.") ? "better-sqlite3" : "node:sqlite" });
    client = api(on20.url);
    const job = await client.json("GET", `/v1/jobs/${id}`);
    expect(job.body).toMatchObject({ id, status: "succeeded" });
    expect((await client.json("GET", `/v1/jobs/${id}/result`)).body.output).toEqual({ echo: "written by node:sqlite" });
    const next = await client.json("POST", "/v1/jobs", {
      skill_id: "quick-echo",
      engine: "echo",
      input: { message: "then better-sqlite3" },
      parameter: { delay_ms: 0 },
    });
    await waitForStatus(client, next.body.id, ["succeeded"]);
  }, 600_000);

  it("names both drivers and why each did not load when neither does (node:sqlite turned off, better-sqlite3 built for Node 20)", async () => {
    const dir = makeProject();
    const args = ["--no-experimental-sqlite", CLI, "serve", "--config", join(dir, "skillrig.config.json"), "--port", "0"];
    const run = await runToEnd(node22, args, { cwd: dir, env: freshEnv(), timeoutMs: 180_000 });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      "error[plugin_not_found]: the jobs server's SQLite store has no driver that loads: node:sqlite: turned off in this Node (v22.",
    );
    expect(run.stderr).toContain("better-sqlite3: installed, but its native build does not load in Node v22.");
    expect(run.stderr).toContain("hint: run the server on Node 22.13 or newer");
    expect(run.stderr).not.toMatch(/^\s+at /m);
  }, 300_000);
});
