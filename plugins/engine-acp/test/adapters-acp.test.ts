/**
 * Claude Code's ACP adapter (`claude-code-acp`, the pinned @zed-industries/claude-code-acp 0.16.2, which drives the
 * Claude Agent SDK's own Claude Code) through engine-acp, offline: the real adapter in the agent jail against
 * @skillrig/mock-model speaking Anthropic's Messages API on loopback.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import AcpEnginePlugin, { type AcpOptions } from "@skillrig/engine-acp";
import { resolvePackageBin } from "@skillrig/engine-kit";
import { jobConfinement } from "@skillrig/engine-kit/testing";
import { fixtureRunner, runNote } from "./helpers.js";

const CODEX_ACP = resolvePackageBin("@zed-industries/codex-acp", "codex-acp", import.meta.url)!;
const CLAUDE_ACP = resolvePackageBin("@zed-industries/claude-code-acp", "claude-code-acp", import.meta.url)!;

function claudeAcpOptions(over: Partial<AcpOptions> = {}): AcpOptions {
  return {
    name: "claude-acp",
    command: [CLAUDE_ACP],
    display_name: "Claude Code (ACP adapter)",
    context_file: "CLAUDE.md",
    permissions: "allow_all",
    key_env: ["ANTHROPIC_API_KEY"],
    base_url_env: ["ANTHROPIC_BASE_URL"],
    env: {
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_RETRIES: "0",
    },
    timeout_ms: 120_000,
    ...over,
  };
}

describe("Claude Code's ACP adapter through engine-acp", () => {
  it("runs a shell call and answers, jailed against the mock model (Anthropic dialect)", async () => {
    const scenario = { turns: [{ shell: { command: "printf 'a note\\n' > note.txt" } }, { text: "noted" }] };
    const runner = fixtureRunner(new AcpEnginePlugin(claudeAcpOptions({ mock_scenario: scenario })));
    const { result, events } = await runNote(runner, "claude-acp", "Take a note.");
    expect(result.status, JSON.stringify({ error: result.error, events })).toBe("succeeded");
    expect(result.output).toBe("noted");
    expect(readFileSync(join(result.run_dir, "workspace/note.txt"), "utf8")).toBe("a note\n");
    expect(result.engine_version).toBe("0.16.2");
    expect(jobConfinement(result)).toMatchObject({ isolation: "namespaces", network: "model-endpoint-only", capabilities: "none" });
    // The adapter reports Claude Code's Bash call as an ACP tool call titled "Terminal", then its completion; the
    // job's metering proxy adds what the model calls used (usage events, docs/cost.md).
    expect(events.some((e) => e.type === "usage")).toBe(true);
    expect(events.slice(1).filter((e) => e.type !== "usage")).toEqual([
      { type: "tool_call", id: "toolu_mock_0001", tool: "Terminal", args: {}, status: "pending" },
      expect.objectContaining({ type: "tool_result", id: "toolu_mock_0001", tool: "Terminal", status: "completed" }),
      { type: "message", role: "assistant", text: "noted", delta: true },
    ]);
    expect(events[0]).toMatchObject({ type: "status", status: "running" });
  });

  it("refuses Claude Code's shell call under deny_all (verdict: the command never ran, the turn ends without an answer)", async () => {
    const scenario = { turns: [{ shell: { command: "printf 'a note\\n' > note.txt" } }, { text: "not noted" }] };
    const runner = fixtureRunner(new AcpEnginePlugin(claudeAcpOptions({ permissions: "deny_all", mock_scenario: scenario })));
    const { result, events } = await runNote(runner, "claude-acp", "Take a note.");
    expect(existsSync(join(result.run_dir, "workspace/note.txt"))).toBe(false);
    expect(events).toContainEqual({
      type: "status",
      status: "warning",
      message: `refused the agent's permission request for "\`printf 'a note\\n' > note.txt\`" (tool kind other): the "permissions" option does not allow it`,
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "tool_result",
        id: "toolu_mock_0001",
        tool: "Terminal",
        status: "failed",
        output: expect.stringContaining("User refused permission"),
      }),
    );
    // The adapter answers a refusal with Claude Code's "deny and interrupt": the model is not asked again, the turn
    // ends with no message, so the job fails for want of a final answer.
    expect(result.status).toBe("failed");
    expect(result.error?.details).toMatchObject({ kind: "malformed_output", mockModel: { requests: 1 } });
  });
});

/**
 * Codex's ACP adapter as a config names it. codex-acp asks the client to authenticate (ACP `authenticate`) for
 * OpenAI's own provider, which engine-acp does not call ("ACP: Authentication required"); codex's built-in `ollama`
 * provider needs no login and takes its base URL from CODEX_OSS_BASE_URL (the mock serves any path ending in
 * /responses). Codex's own bubblewrap sandbox cannot start in the agent jail (no user namespaces there: "bwrap: No
 * permissions to create new namespace"), so codex runs its commands unsandboxed, confined by the jail; its
 * approval policy `untrusted` makes it ask the client (the `permissions` policy) before each command.
 */
function codexAcpOptions(over: Partial<AcpOptions> = {}): AcpOptions {
  return {
    name: "codex-acp",
    command: [
      CODEX_ACP,
      "-c",
      'model_provider="ollama"',
      "-c",
      'model="gpt-5.1-codex"',
      "-c",
      'sandbox_mode="danger-full-access"',
      "-c",
      'approval_policy="untrusted"',
    ],
    display_name: "Codex (ACP adapter)",
    permissions: "allow_all",
    key_env: ["CODEX_API_KEY"],
    base_url_env: ["CODEX_OSS_BASE_URL"],
    timeout_ms: 120_000,
    ...over,
  };
}

describe("Codex's ACP adapter through engine-acp", () => {
  const scenario = { turns: [{ shell: { command: "printf 'a note\\n' > note.txt" } }, { text: "noted" }] };

  it("runs a shell call and answers, jailed against the mock model (Responses dialect)", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(codexAcpOptions({ mock_scenario: scenario })));
    const { result, events } = await runNote(runner, "codex-acp", "Take a note.");
    expect(result.status, JSON.stringify({ error: result.error, events })).toBe("succeeded");
    expect(result.output).toBe("noted");
    expect(readFileSync(join(result.run_dir, "workspace/note.txt"), "utf8")).toBe("a note\n");
    expect(result.engine_version).toBe("0.16.0");
    expect(jobConfinement(result)).toMatchObject({ isolation: "namespaces", network: "model-endpoint-only", capabilities: "none" });
    const command = "printf 'a note\\n' > note.txt";
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "tool_call",
        id: "call_1",
        tool: command,
        args: expect.objectContaining({ command: ["/usr/bin/bash", "-lc", command] }),
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "tool_result",
        id: "call_1",
        tool: command,
        status: "completed",
        output: expect.stringContaining('"exit_code":0'),
      }),
    );
    expect(events.filter((e) => e.type !== "usage").at(-1)).toEqual({ type: "message", role: "assistant", text: "noted", delta: true });
    // Codex asked before running the command (approval policy untrusted) and the policy allowed it.
    expect(events.filter((e) => e.type === "status" && e.status === "warning")).toEqual([]);
  });

  it("refuses codex's shell call under deny_all (verdict: the command never ran, codex aborts its turn)", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(codexAcpOptions({ permissions: "deny_all", mock_scenario: scenario })));
    const { result, events } = await runNote(runner, "codex-acp", "Take a note.");
    expect(existsSync(join(result.run_dir, "workspace/note.txt"))).toBe(false);
    expect(events).toContainEqual({
      type: "status",
      status: "warning",
      message: `refused the agent's permission request for "printf 'a note\\n' > note.txt" (tool kind execute): the "permissions" option does not allow it`,
    });
    // Codex answers a rejected command by aborting its turn (stopReason "cancelled"), without asking the model again.
    expect(result.status).toBe("failed");
    expect(result.error?.details, JSON.stringify(result.error)).toMatchObject({ kind: "canceled", mockModel: { requests: 1 } });
  });
});
