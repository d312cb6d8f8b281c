/**
 * The agent profile without an engine: real bubblewrap, real loopback HTTP. The jail reaches the model endpoint
 * through the egress relay and nothing else; a named endpoint keeps its name; a missing program is engine_not_found;
 * level "none" is unconfined and says so.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confineAgent, modelEndpointOf, probeHost } from "@skillrig/sandbox";

let model: Server;
let other: Server;
const port = (s: Server) => (s.address() as { port: number }).port;

beforeAll(async () => {
  model = createServer((_req, res) => res.end("model-answer"));
  other = createServer((_req, res) => res.end("other-answer"));
  await Promise.all([model, other].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
});
afterAll(async () => {
  await Promise.all([model, other].map((s) => new Promise((r) => s.close(r))));
});

function folders() {
  const root = mkdtempSync(join(tmpdir(), "skillrig-agent-profile-"));
  mkdirSync(join(root, "workspace"));
  mkdirSync(join(root, "engine"));
  return { workspace: join(root, "workspace"), engine: join(root, "engine") };
}

/** Runs a confined command to its end (asynchronously: the relay lives in this process). */
function run(file: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const FETCH = (url: string) =>
  `fetch(${JSON.stringify(url)}).then(r => r.text()).then(t => console.log("GOT " + t), e => console.log("FAILED " + (e.cause?.code ?? e.message)))`;

describe("agent profile", () => {
  it("the model endpoint is reachable through the relay; another port on 127.0.0.1 is not", async () => {
    const f = folders();
    const script = `${FETCH(`http://127.0.0.1:${port(model)}/`)}.then(() => ${FETCH(`http://127.0.0.1:${port(other)}/`)})`;
    const confined = await confineAgent({
      command: [process.execPath, "-e", script],
      workspace: f.workspace,
      writable: [f.engine],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      modelBaseUrl: `http://127.0.0.1:${port(model)}/v1`,
    });
    try {
      expect(probeHost().namespacesWork, "bubblewrap must work on this machine").toBe(true);
      expect({ isolation: confined.isolation, network: confined.network }).toEqual({
        isolation: "namespaces",
        network: "model-endpoint-only",
      });
      const r = await run(confined.file, confined.args, confined.env);
      expect(r.stdout, r.stderr).toContain("GOT model-answer");
      expect(r.stdout).toMatch(/FAILED ECONNREFUSED/);
      expect(r.stdout).not.toContain("other-answer");
    } finally {
      await confined.close();
    }
  });

  it("a named endpoint resolves to the relay inside the jail (TLS keeps its host name)", async () => {
    const f = folders();
    const confined = await confineAgent({
      command: ["getent", "hosts", "api.example.com"],
      workspace: f.workspace,
      writable: [f.engine],
      env: { PATH: "/usr/bin:/bin" },
      modelBaseUrl: "https://api.example.com/v1",
    });
    try {
      expect(modelEndpointOf("https://api.example.com/v1")).toEqual({ host: "api.example.com", port: 443 });
      const r = await run(confined.file, confined.args, confined.env);
      expect(r.stdout.trim(), r.stderr).toMatch(/^127\.0\.0\.1\s+.*api\.example\.com/);
    } finally {
      await confined.close();
    }
  });

  it("a program that does not exist is engine_not_found; level none is unconfined with a warning", async () => {
    const f = folders();
    await expect(confineAgent({ command: ["/nonexistent/engine"], workspace: f.workspace, env: {} })).rejects.toMatchObject({
      code: "engine_not_found",
    });
    const open = await confineAgent({ command: ["true"], workspace: f.workspace, env: {} }, { level: "none" });
    expect({ isolation: open.isolation, network: open.network, file: open.file }).toEqual({
      isolation: "none",
      network: "host",
      file: "true",
    });
    expect(open.warnings.join()).toMatch(/runs unconfined \(level "none" was chosen\)/);
  });
});
