/**
 * Claude Code's own cases with the real claude binary against @skillrig/mock-model (the cases every engine runs are
 * engine-kit's shared suite, in claude-engine.test.ts): its Write and StructuredOutput tools, a fenced answer without
 * --json-schema, allowed_tools, how it retries a 401, and bypassPermissions as root.
 */
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processesUsing } from "@skillrig/engine-kit";
import { engineRunner, greetingJob, runAgainstMock } from "@skillrig/engine-kit/testing";
import { runJob } from "@skillrig/skills";
import { scenario, turn } from "@skillrig/mock-model";
import ClaudeEnginePlugin from "@skillrig/engine-claude";
import { claude } from "./settings.js";

describe("claude engine against the mock model", () => {
  it("writes the artifact with Claude Code's Write tool and answers through StructuredOutput, validated twice", async () => {
    const { result, events, requests } = await runAgainstMock(
      claude,
      scenario(
        turn.writeFile("greeting.txt", "Hello, Ada!\n"),
        // Breaks the schema (minLength 1): Claude Code's own validation sends it back, as it would to a real model.
        turn.json({ greeting_file: "greeting.txt", message: "" }),
        turn.json({ greeting_file: "greeting.txt", message: "Hello, Ada!", word_count: 2 }),
      ),
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.engine_version).toBe(claude.version);
    expect(result.output).toEqual({ greeting_file: expect.stringMatching(/greeting\.txt$/), message: "Hello, Ada!", word_count: 2 });
    expect(result.warnings ?? []).not.toContainEqual(expect.stringMatching(/repaired/));
    expect(result.artifacts).toHaveLength(1);
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hello, Ada!\n");
    expect(events).toContainEqual({ type: "file_change", path: join(result.run_dir, "workspace", "greeting.txt"), kind: "add" });
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_result", tool: "StructuredOutput", status: "error" }));
    expect(result.usage).toMatchObject({ inputTokens: 300, outputTokens: 30, totalTokens: 330 });

    // Only the Messages API was called (no connectivity probe, no telemetry), with the key and the model asked for.
    expect(requests.map((r) => r.api)).toEqual(["anthropic", "anthropic", "anthropic"]);
    expect(requests.map((r) => r.turn)).toEqual([0, 1, 2]);
    expect(requests.every((r) => r.apiKey === "sk-ant-test-key" && r.model === "claude-sonnet-4-5")).toBe(true);
    // --json-schema went through without skillrig's x- keywords; the skill is where Claude Code finds skills.
    const tools = (requests[0]!.body as { tools: Array<{ name: string; input_schema: unknown }> }).tools;
    expect(tools.find((t) => t.name === "StructuredOutput")?.input_schema).toMatchObject({
      properties: { greeting_file: { type: "string" } },
      required: ["greeting_file", "message"],
    });
    expect(JSON.stringify(tools.find((t) => t.name === "StructuredOutput"))).not.toContain("x-type");
    const workspace = join(result.run_dir, "workspace");
    expect(readFileSync(join(workspace, "CLAUDE.md"), "utf8")).toContain(".agents/skills/write-greeting/SKILL.md");
    // A real copy (not a link), without the skill's evals/ (the fixture skill has one).
    expect(lstatSync(join(workspace, ".claude/skills/write-greeting")).isDirectory()).toBe(true);
    expect(existsSync(join(workspace, ".claude/skills/write-greeting/SKILL.md"))).toBe(true);
    expect(existsSync(join(workspace, ".claude/skills/write-greeting/evals"))).toBe(false);
    expect(readFileSync(join(result.run_dir, "logs/claude.stdout.log"), "utf8")).toContain('"skills":["write-greeting"');
  });

  it("without --json-schema takes the last message and repairs a fenced answer", async () => {
    const { result } = await runAgainstMock(
      claude,
      scenario(
        turn.writeFile("greeting.txt", "Hi Ada\n"),
        turn.text('Done.\n```json\n{"greeting_file": "greeting.txt", "message": "Hi Ada"}\n```'),
      ),
      { engine: { output_schema: false } },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({ message: "Hi Ada" });
    expect(result.warnings).toContain("engine output repaired: stripped a ```json code fence");
  });

  it("runs a shell command that allowed_tools permits, and reports what acceptEdits alone denies", async () => {
    const play = scenario(
      turn.shell("python3 -c 'print(6*7)' > answer.txt && echo wrote"),
      turn.json({ greeting_file: "answer.txt", message: "42" }),
    );
    const allowed = await runAgainstMock(claude, play, { engine: { allowed_tools: ["Bash"] } });
    expect(allowed.result.status, JSON.stringify(allowed.result.error)).toBe("succeeded");
    expect(readFileSync(allowed.result.artifacts[0]!.path, "utf8")).toBe("42\n");

    const denied = await runAgainstMock(claude, play);
    expect(denied.events).toContainEqual(
      expect.objectContaining({ type: "status", status: "warning", message: expect.stringContaining("permission denied for Bash") }),
    );
    expect(denied.result.status).toBe("failed");
    expect(denied.result.error?.code).toBe("artifact_missing");
  });

  it("ends a 401 as engine_auth_failed: at once when the CLI does not retry (mock_scenario sets retries 0)", async () => {
    const { runner } = engineRunner(claude, new ClaudeEnginePlugin({ mock_scenario: scenario(turn.error(401)) }));
    const result = await runJob(runner, greetingJob(claude));
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain(
      "Claude Code could not authenticate: Invalid API key · Fix external API key [exit code 1, HTTP 401]",
    );
  });

  it("ends a 401 as engine_auth_failed on the CLI's first retry instead of ten retries with backoff", async () => {
    const { result, requests } = await runAgainstMock(claude, scenario(turn.error(401, "invalid x-api-key")), { engine: { retries: 10 } });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("Claude Code was stopped: the model API rejected the key (HTTP 401 authentication_failed)");
    expect(requests.length).toBeLessThanOrEqual(3);
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("bypassPermissions: refused when Claude Code runs as root (unjailed) with a message that says what to do; jailed it never is root; with IS_SANDBOX=1 every tool runs", async () => {
    const play = scenario(turn.shell("printf 'Hi Ada' > greeting.txt"), turn.json({ greeting_file: "greeting.txt", message: "Hi Ada" }));
    // In the agent jail the CLI runs as a per-run uid (root runner) or the runner's own: never root.
    const jailed = await runAgainstMock(claude, play, { engine: { permission_mode: "bypassPermissions" } });
    expect(jailed.result.status, JSON.stringify(jailed.result.error)).toBe("succeeded");
    const plain = await runAgainstMock(claude, play, { engine: { permission_mode: "bypassPermissions", jail: "none" } });
    if (process.getuid?.() === 0) {
      expect(plain.result.error?.code).toBe("engine_failed");
      expect(plain.result.error?.message).toContain('Claude Code refuses permission_mode "bypassPermissions" when run as root');
    } else {
      expect(plain.result.status, JSON.stringify(plain.result.error)).toBe("succeeded");
    }
    const sandboxed = await runAgainstMock(claude, play, { engine: { permission_mode: "bypassPermissions", env: { IS_SANDBOX: "1" } } });
    expect(sandboxed.result.status, JSON.stringify(sandboxed.result.error)).toBe("succeeded");
    expect(readFileSync(sandboxed.result.artifacts[0]!.path, "utf8")).toBe("Hi Ada");
  });
});
