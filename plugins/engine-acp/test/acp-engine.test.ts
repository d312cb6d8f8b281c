/**
 * engine-acp against a small ACP agent written for these tests (test/fixtures/acp-test-agent.mjs, on the SDK's agent
 * side), run for real through runJob: the process in the agent jail, JSON-RPC over its stdin/stdout, permission
 * requests answered by the policy, cancel, a malformed update, a crash, and two ACP engines in one runner.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import AcpEnginePlugin, { type AcpOptions } from "@skillrig/engine-acp";
import { jobConfinement } from "@skillrig/engine-kit/testing";
import { tempDir } from "@skillrig/engine-kit/testing";
import { runJob } from "@skillrig/skills";
import { fixtureRunner, readWorkspaceFile, runNote, testAgent } from "./helpers.js";

const KEY_ENV = "SKILLRIG_ACP_TEST_KEY";

function options(over: Partial<AcpOptions> = {}): AcpOptions {
  return { name: "test-acp", command: [testAgent()], api_key_env: KEY_ENV, timeout_ms: 90_000, ...over };
}

beforeAll(() => {
  process.env[KEY_ENV] = "acp-test-key";
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

describe("engine-acp with the test agent", () => {
  it("runs a job over ACP in the agent jail: messages, tool calls, the file change and the skill it activated", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(options({ permissions: "allow_all" })));
    const { result, events } = await runNote(runner, "test-acp", "Take a note.");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toBe('{"wrote":true}');
    expect(readWorkspaceFile(result, "note.txt")).toBe("a note\n");
    expect(jobConfinement(result)).toMatchObject({ isolation: "namespaces", capabilities: "none", seccomp: true });
    expect(events).toContainEqual({ type: "message", role: "assistant", text: "Let me ", delta: true });
    expect(events).toContainEqual({
      type: "tool_call",
      id: "t1",
      tool: "Write note.txt",
      args: { path: expect.stringMatching(/note\.txt$/) },
      status: "pending",
    });
    expect(events).toContainEqual({ type: "file_change", path: "note.txt", kind: "add" });
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_result", id: "t1", status: "completed" }));
    expect(events).toContainEqual({ type: "skill_activated", skill: "word-stats", via: "activate_skill" });
    expect(result.skills_activated).toEqual(["word-stats"]);
  });

  it("refuses what the permission policy does not allow, and says so (verdict: the file is never written)", async () => {
    for (const permissions of ["deny_all", { allow: ["read"] }] as const) {
      const runner = fixtureRunner(new AcpEnginePlugin(options({ permissions: permissions as AcpOptions["permissions"] })));
      const { result, events } = await runNote(runner, "test-acp", "Take a note.");
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      expect(result.output).toBe('{"wrote":false}');
      expect(readWorkspaceFile(result, "note.txt")).toBeUndefined();
      expect(events).toContainEqual({
        type: "status",
        status: "warning",
        message: `refused the agent's permission request for "Write note.txt" (tool kind edit): the "permissions" option does not allow it`,
      });
      expect(events).toContainEqual(
        expect.objectContaining({ type: "tool_result", id: "t1", status: "failed", output: "permission refused" }),
      );
    }
    const allowEdit = fixtureRunner(new AcpEnginePlugin(options({ permissions: { allow: ["edit"] } })));
    expect((await runNote(allowEdit, "test-acp", "Take a note.")).result.output).toBe('{"wrote":true}');
  });

  it("survives a malformed update and a line that is not JSON: the run goes on to its answer", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(options({ permissions: "allow_all" })));
    const { result, events } = await runNote(runner, "test-acp", "Take a note. MALFORMED");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toBe('{"wrote":true}');
    const warnings = events.filter((e) => e.type === "status" && e.status === "warning").map((e) => (e as { message: string }).message);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^the agent sent a malformed session\/update \(no update kind; dropped\): \{"jsonrpc":"2.0","method":"session\/update"/,
      ),
      "the agent printed a line that is not a JSON-RPC message (dropped): this line is not JSON",
    ]);
    expect(events).toContainEqual({ type: "file_change", path: "note.txt", kind: "add" });
  });

  it("cancels with session/cancel before the process is stopped (verdict: canceled, the agent saw the cancel)", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(options()));
    const controller = new AbortController();
    const { result } = await runNote(runner, "test-acp", "CANCEL", {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "message" && e.text === "working on it") controller.abort();
      },
    });
    expect(result.status).toBe("canceled");
    expect(readWorkspaceFile(result, "cancel-seen.txt")).toBe("session/cancel\n");
  });

  it("reports an agent that exits in the middle of its turn as a crash, with its exit code", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(options()));
    const { result } = await runNote(runner, "test-acp", "CRASH");
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_failed");
    expect(result.error?.message).toMatch(/ACP agent test-acp .*exited with code 3/);
  });
});

describe("engine-acp instances and options", () => {
  it("runs two ACP engines side by side in one runner, each with its own name and environment", async () => {
    const runner = fixtureRunner(
      new AcpEnginePlugin(options({ name: "agent-a", base_url: "http://127.0.0.1:9/a" })),
      new AcpEnginePlugin(options({ name: "agent-b", base_url: "http://127.0.0.1:9/b", base_url_env: ["OTHER_BASE_URL"] })),
    );
    const a = await runNote(runner, "agent-a", "ENV");
    const b = await runNote(runner, "agent-b", "ENV");
    expect(a.result.status, JSON.stringify(a.result.error)).toBe("succeeded");
    expect(b.result.status, JSON.stringify(b.result.error)).toBe("succeeded");
    // Each agent sees its own base URL in its own variable, through the job's metering proxy (a loopback port of its
    // own that keeps the path and forwards to the configured URL: docs/cost.md), never the other agent's.
    const metered = (path: string) => expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:(?!9/)\\d+${path}$`));
    expect(JSON.parse(a.result.output as string)).toEqual({ base: metered("/a"), other: null, key: "acp-test-key" });
    expect(JSON.parse(b.result.output as string)).toEqual({ base: null, other: metered("/b"), key: "acp-test-key" });
    expect(runner.claims("engine").map((c) => c.name)).toEqual(["agent-a", "agent-b"]);
  });

  it("refuses two instances claiming one engine name, and bad options by name", () => {
    expect(() => fixtureRunner(new AcpEnginePlugin(options()), new AcpEnginePlugin(options()))).toThrow(
      /engine "test-acp" is claimed by two @skillrig\/engine-acp instances/,
    );
    expect(() => new AcpEnginePlugin({ name: "x" } as AcpOptions)).toThrow(/@skillrig\/engine-acp options: .*command/);
    expect(() => new AcpEnginePlugin(options({ permissions: "ask" as never }))).toThrow(/@skillrig\/engine-acp options: permissions: /);
    expect(() => new AcpEnginePlugin(options({ name: "Bad Name" }))).toThrow(/@skillrig\/engine-acp options: name: must match pattern/);
  });

  it("refuses a job's engine options that would change the agent's command", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(options()));
    const result = await runJob(
      runner,
      { skill_id: "note-taker", engine: "test-acp", prompt: "hi", options: { engine: { command: ["/bin/sh", "-c", "id"] } } },
      { runsDir: tempDir("skillrig-acp-runs-") },
    );
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/engine options of job .*: "name" and "command" are the plugin's, not a job's/);
  });

  it("names an agent that cannot be started", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(options({ command: [join("/nonexistent", "agent")] })));
    const { result } = await runNote(runner, "test-acp", "hi");
    expect(result.error?.code).toBe("engine_not_found");
    expect(existsSync("/nonexistent/agent")).toBe(false);
  });
});
