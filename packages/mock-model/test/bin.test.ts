/** The skillrig-mock-model command, as a user runs it. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const BIN = resolve(import.meta.dirname, "../dist/bin.js");

function scenarioFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "mock-model-bin-")), "scenario.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("skillrig-mock-model", () => {
  it("prints its URL, serves the scenario, logs requests and stops on SIGTERM", async () => {
    const server = execa("node", [BIN, "--scenario", scenarioFile({ turns: [{ text: "hello" }] }), "--log"], {
      reject: false,
      buffer: false,
    });
    const lines: string[] = [];
    const url = await new Promise<string>((ok, fail) => {
      server.stdout!.on("data", (d: Buffer) => {
        lines.push(...d.toString().split("\n").filter(Boolean));
        if (lines[0]) ok(lines[0]);
      });
      // A server that ends before printing its URL fails the test at once, not at the test's time limit.
      server.on("exit", (code) => fail(new Error(`skillrig-mock-model exited (${code}) before printing its URL`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/v1/responses`, { method: "POST", body: JSON.stringify({ input: [] }) });
    expect(await res.text()).toContain('"text":"hello"');
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.some((l) => l.includes('"api":"responses"') && l.includes('"answer":"text"'))).toBe(true);
    server.kill("SIGTERM");
    expect((await server).exitCode).toBe(0);
  });

  it("exits 2 with the problem on a bad scenario or bad arguments", async () => {
    const bad = await execa("node", [BIN, "--scenario", scenarioFile({ turns: [{ hang: false }] })], { reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/invalid mock-model scenario in .*scenario\.json: \/turns\/0/);
    const missing = await execa("node", [BIN], { reject: false });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("--scenario is required");
    const port = await execa("node", [BIN, "--scenario", "x.json", "--port", "99999"], { reject: false });
    expect(port.stderr).toContain('--port must be an integer from 0 to 65535, got "99999"');
  });
});
