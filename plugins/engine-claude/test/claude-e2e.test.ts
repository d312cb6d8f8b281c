/**
 * Tier 2: the real claude binary (@anthropic-ai/claude-code 2.1.330, a dev dependency) against @skillrig/mock-model
 * on loopback speaking Anthropic's Messages API, through the skills package's runJob, so the artifact is collected
 * by the real collectArtifacts and the output validated against the skill's schema.
 */
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "@skillrig/core";
import { runJob } from "@skillrig/skills";
import { type Scenario, scenario, startMockModel, turn } from "@skillrig/mock-model";
import ClaudeEnginePlugin from "@skillrig/engine-claude";
import { engineRunner, processesUsing } from "./support.js";

const KEY_ENV = "SKILLRIG_CLAUDE_TEST_KEY";
beforeAll(() => {
  process.env[KEY_ENV] = "sk-ant-test-key";
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

/** One job against a mock model the test starts itself (base_url), so the requests can be inspected. */
async function run(play: Scenario, options: { timeout_ms?: number; engine?: Record<string, unknown> } = {}) {
  const mock = await startMockModel({ scenario: play });
  try {
    const { runner } = engineRunner(
      new ClaudeEnginePlugin({ base_url: mock.url, api_key_env: KEY_ENV, model: "claude-sonnet-4-5", retries: 0, ...options.engine }),
    );
    const events: EngineEvent[] = [];
    const result = await runJob(
      runner,
      { skill_id: "write-greeting", engine: "claude", input: { name: "Ada" }, options: { timeout_ms: options.timeout_ms } },
      { onEvent: (e) => events.push(e) },
    );
    return { result, events, requests: [...mock.requests] };
  } finally {
    await mock.close();
  }
}

describe("claude engine: problems found before the CLI runs", () => {
  it("a missing API key fails at once as engine_auth_failed naming the variable", async () => {
    const { runner } = engineRunner(new ClaudeEnginePlugin({ api_key_env: "SKILLRIG_UNSET_KEY_FOR_TEST" }));
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "claude", input: { name: "Ada" } });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("Claude Code has no API key: the environment variable SKILLRIG_UNSET_KEY_FOR_TEST is not set");
  });

  it("a binary that does not exist is engine_not_found naming the path and the option", async () => {
    const { runner } = engineRunner(new ClaudeEnginePlugin({ binary: "/nonexistent/claude", mock_scenario: { turns: [{ text: "{}" }] } }));
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "claude", input: { name: "Ada" } });
    expect(result.error?.code).toBe("engine_not_found");
    expect(result.error?.message).toMatch(/cannot start Claude Code at \/nonexistent\/claude: .*ENOENT.*"binary" option/);
  });

  it("bad options are named: in the constructor and per job", async () => {
    expect(() => new ClaudeEnginePlugin({ permission_mode: "yolo" } as never)).toThrow(
      /@skillrig\/engine-claude options: permission_mode: must be one of "acceptEdits", "bypassPermissions", "dontAsk", "default"/,
    );
    expect(() => new ClaudeEnginePlugin({ allowed_tools: "Bash" } as never)).toThrow(/allowed_tools: must be array/);
    const { runner } = engineRunner(new ClaudeEnginePlugin({ mock_scenario: { turns: [{ text: "{}" }] } }));
    const result = await runJob(runner, {
      skill_id: "write-greeting",
      engine: "claude",
      input: { name: "Ada" },
      options: { engine: { retries: -1 } },
    });
    expect(result.error?.code).toBe("invalid_config");
    expect(result.error?.message).toMatch(/engine options of job .*: retries: must be >= 0/);
  });
});

describe("claude engine against the mock model", () => {
  it("writes the artifact with Claude Code's Write tool and answers through StructuredOutput, validated twice", async () => {
    const { result, events, requests } = await run(
      scenario(
        turn.writeFile("greeting.txt", "Hello, Ada!\n"),
        // Breaks the schema (minLength 1): Claude Code's own validation sends it back, as it would to a real model.
        turn.json({ greeting_file: "greeting.txt", message: "" }),
        turn.json({ greeting_file: "greeting.txt", message: "Hello, Ada!", word_count: 2 }),
      ),
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.engine_version).toBe("2.1.330");
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
    expect(lstatSync(join(workspace, ".claude/skills/write-greeting")).isSymbolicLink()).toBe(true);
    expect(existsSync(join(workspace, ".claude/skills/write-greeting/SKILL.md"))).toBe(true);
    expect(readFileSync(join(result.run_dir, "logs/claude.stdout.log"), "utf8")).toContain('"skills":["write-greeting"');
  });

  it("without --json-schema takes the last message and repairs a fenced answer", async () => {
    const { result } = await run(
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
    const allowed = await run(play, { engine: { allowed_tools: ["Bash"] } });
    expect(allowed.result.status, JSON.stringify(allowed.result.error)).toBe("succeeded");
    expect(readFileSync(allowed.result.artifacts[0]!.path, "utf8")).toBe("42\n");

    const denied = await run(play);
    expect(denied.events).toContainEqual(
      expect.objectContaining({ type: "status", status: "warning", message: expect.stringContaining("permission denied for Bash") }),
    );
    expect(denied.result.status).toBe("failed");
    expect(denied.result.error?.code).toBe("artifact_missing");
  });

  it("ends a 401 as engine_auth_failed: at once when the CLI does not retry (mock_scenario sets retries 0)", async () => {
    const { runner } = engineRunner(new ClaudeEnginePlugin({ mock_scenario: scenario(turn.error(401)) }));
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "claude", input: { name: "Ada" } });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain(
      "Claude Code could not authenticate: Invalid API key · Fix external API key [exit code 1, HTTP 401]",
    );
  });

  it("ends a 401 as engine_auth_failed on the CLI's first retry instead of ten retries with backoff", async () => {
    const { result, requests } = await run(scenario(turn.error(401, "invalid x-api-key")), { engine: { retries: 10 } });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("Claude Code was stopped: the model API rejected the key (HTTP 401 authentication_failed)");
    expect(requests.length).toBeLessThanOrEqual(3);
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("ends a hanging model as a timeout and leaves no process behind", async () => {
    const { result } = await run(scenario(turn.hang()), { timeout_ms: 8000 });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("timeout");
    expect(result.error?.message).toContain("Claude Code did not finish within the job's time limit (8000 ms)");
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("stops Claude Code when it cannot reach the model API instead of minutes of retries", async () => {
    const closed = await startMockModel({ scenario: scenario(turn.text("x")) });
    await closed.close();
    const { runner } = engineRunner(new ClaudeEnginePlugin({ base_url: closed.url, api_key_env: KEY_ENV }));
    const result = await runJob(runner, {
      skill_id: "write-greeting",
      engine: "claude",
      input: { name: "Ada" },
      options: { timeout_ms: 120_000 },
    });
    expect(result.error?.code).toBe("engine_failed");
    expect(result.error?.message).toMatch(/cannot reach the model API \(4 requests failed without a connection/);
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("bypassPermissions: refused when Claude Code runs as root (unjailed) with a message that says what to do; jailed it never is root; with IS_SANDBOX=1 every tool runs", async () => {
    const play = scenario(turn.shell("printf 'Hi Ada' > greeting.txt"), turn.json({ greeting_file: "greeting.txt", message: "Hi Ada" }));
    // In the agent jail the CLI runs as a per-run uid (root runner) or the runner's own: never root.
    const jailed = await run(play, { engine: { permission_mode: "bypassPermissions" } });
    expect(jailed.result.status, JSON.stringify(jailed.result.error)).toBe("succeeded");
    const plain = await run(play, { engine: { permission_mode: "bypassPermissions", jail: "none" } });
    if (process.getuid?.() === 0) {
      expect(plain.result.error?.code).toBe("engine_failed");
      expect(plain.result.error?.message).toContain('Claude Code refuses permission_mode "bypassPermissions" when run as root');
    } else {
      expect(plain.result.status, JSON.stringify(plain.result.error)).toBe("succeeded");
    }
    const sandboxed = await run(play, { engine: { permission_mode: "bypassPermissions", env: { IS_SANDBOX: "1" } } });
    expect(sandboxed.result.status, JSON.stringify(sandboxed.result.error)).toBe("succeeded");
    expect(readFileSync(sandboxed.result.artifacts[0]!.path, "utf8")).toBe("Hi Ada");
  });

  it("ends as malformed output when the final answer holds no JSON", async () => {
    const { result } = await run(scenario(turn.text("I would rather not.")), { engine: { output_schema: false } });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_failed");
    expect(result.error?.message).toMatch(/malformed_output.*no JSON object.*I would rather not/);
  });
});
