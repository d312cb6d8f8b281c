/**
 * The bounds on what an engine produces, for any engine on the kit: a real hostile CLI (test/fixtures/flood-cli.mjs)
 * in the real agent jail, through runJob (so the real event log is written). A flood of ordinary message lines past
 * `sandbox.agent.output_bytes`, a line without a newline far past `line_bytes`, too many events, a workspace filler:
 * each ends the job `output_limit` with a message naming the bound and its key, the run folder holds at most the
 * bound of the output, and a job beside it in the same runner succeeds.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import sandboxPlugin from "@skillrig/sandbox";
import { describe, expect, it } from "vitest";
import { Runner, type JobResult } from "@skillrig/core";
import { createEnginePlugin, type EngineAdapter, type StreamParser } from "@skillrig/engine-kit";
import { tempDir } from "@skillrig/engine-kit/testing";
import type { AgentBoundsConfig } from "@skillrig/sandbox";
import { runJob, skillProtocolPlugin } from "@skillrig/skills";

const MiB = 1024 * 1024;
const FIXTURES = resolve(import.meta.dirname, "fixtures");

function sayParser(): StreamParser {
  let final: string | undefined;
  return {
    stdoutLine(line) {
      const event = JSON.parse(line) as { kind: string; text?: string };
      if (event.kind !== "say") return [];
      final = event.text;
      return [{ type: "message", role: "assistant", text: event.text ?? "", delta: true }];
    },
    finalMessage: () => final,
    usage: () => undefined,
    errors: () => [],
    completed: () => final !== undefined,
  };
}

const floodAdapter: EngineAdapter = {
  engine: "flood",
  displayName: "Flood CLI",
  contextFileName: "AGENTS.md",
  optionProperties: {},
  auth: "none",
  defaultBinary: () => join(FIXTURES, "flood-cli.mjs"),
  mockBaseUrl: (url) => url,
  invocation: (ctx) => ({ args: [ctx.prompt], env: {} }),
  createParser: () => sayParser(),
  classify: (run, parser) => (run.exitCode === 0 && parser.completed() ? undefined : { kind: "crash", message: `exit ${run.exitCode}` }),
};
const FloodPlugin = createEnginePlugin("flood-engine", floodAdapter);

function floodRunner(agent: AgentBoundsConfig = {}): Runner {
  const dir = tempDir("skillrig-flood-");
  const runner = new Runner({
    cwd: dir,
    configDir: dir,
    config: { skills: { roots: [join(FIXTURES, "skills")] }, sandbox: { agent } },
  });
  runner.use(skillProtocolPlugin());
  runner.use(new FloodPlugin());
  // The agent jail comes through the runner's sandbox hook (engine-kit brings no sandbox of its own).
  runner.use(sandboxPlugin());
  return runner;
}

function floodJob(runner: Runner, prompt: string): Promise<JobResult> {
  return runJob(runner, { skill_id: "note-taker", engine: "flood", prompt }, { runsDir: tempDir("skillrig-flood-runs-") });
}

/** Bytes of every file under `folder`. */
function folderBytes(folder: string): number {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

describe("engine output bounds", () => {
  it("a flood of 64 MiB of message lines past output_bytes (4 MiB) ends output_limit; the run folder keeps one bounded copy", async () => {
    const result = await floodJob(floodRunner({ output_bytes: 4 * MiB }), "flood 64");
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "output_limit",
      message: expect.stringMatching(/more than 4194304 bytes \(sandbox\.agent\.output_bytes\)/),
    });
    // The logs and the event log together are within the bound; nothing of the flood is in result.json.
    const logs = folderBytes(join(result.run_dir, "logs"));
    expect(logs).toBeGreaterThan(2 * MiB);
    expect(logs).toBeLessThanOrEqual(4 * MiB + 256 * 1024);
    expect(statSync(join(result.run_dir, "result.json")).size).toBeLessThan(64 * 1024);
    expect(folderBytes(result.run_dir)).toBeLessThan(5 * MiB);
  }, 180_000);

  it("1 GiB without a newline ends output_limit at line_bytes; the runner lives on and a job beside it succeeds", async () => {
    const runner = floodRunner();
    const [giant, beside] = await Promise.all([floodJob(runner, "giant 1024"), floodJob(runner, "answer please")]);
    expect(giant.error).toMatchObject({
      code: "output_limit",
      message: expect.stringMatching(/a line longer than 8388608 bytes \(sandbox\.agent\.line_bytes\)/),
    });
    expect(giant.error?.hint).toMatch(/raise sandbox\.agent\.line_bytes/);
    expect(folderBytes(giant.run_dir)).toBeLessThan(9 * MiB);
    expect(beside.status, JSON.stringify(beside.error)).toBe("succeeded");
    // And the same runner runs the next job.
    expect((await floodJob(runner, "once more")).status).toBe("succeeded");
  }, 180_000);

  it("more events than sandbox.agent.events ends output_limit; the event log holds that many", async () => {
    const result = await floodJob(floodRunner({ events: 1000 }), "events 20");
    expect(result.error).toMatchObject({
      code: "output_limit",
      message: expect.stringMatching(/more than 1000 events \(sandbox\.agent\.events\)/),
    });
    const messages = readFileSync(join(result.run_dir, "logs", "events.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes('"type":"message"'));
    expect(messages.length).toBe(1000);
  }, 180_000);

  it("a workspace filler past workspace_bytes (16 MiB) is stopped while it writes: output_limit, far short of its 2 GiB", async () => {
    const result = await floodJob(floodRunner({ workspace_bytes: 16 * MiB }), "fill 2048");
    expect(result.error).toMatchObject({
      code: "output_limit",
      message: expect.stringMatching(/more than 16777216 bytes to its workspace and engine folder \(sandbox\.agent\.workspace_bytes\)/),
    });
    // Stopped by the watcher while it wrote, not found at its end: one look's worth of writes past the cap, at the
    // disk's speed (about a hundred MiB on a quiet machine). The margin is wide because a loaded machine delays the
    // look (the watcher runs in this test's process) while the filler writes on: under 1 GiB of its 2 GiB holds at
    // any load this suite runs at, and a watcher that never looked writes all 2 GiB.
    expect(folderBytes(join(result.run_dir, "workspace"))).toBeLessThan(1024 * MiB);
  }, 180_000);

  it("within the bounds a job runs as before", async () => {
    const result = await floodJob(floodRunner(), "flood 1");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toBe("done");
  }, 180_000);
});
