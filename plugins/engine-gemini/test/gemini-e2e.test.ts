/**
 * Tier 2: the real gemini binary (@google/gemini-cli 0.61.0, a dev dependency) against @skillrig/mock-model
 * on loopback, through the skills package's runJob, so the artifact is collected by the real collectArtifacts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "@skillrig/core";
import { runJob } from "@skillrig/skills";
import { startMockModel, type Scenario } from "@skillrig/mock-model";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { engineRunner, processesUsing, tempDir } from "./support.js";

const KEY_ENV = "SKILLRIG_GEMINI_TEST_KEY";
beforeAll(() => {
  process.env[KEY_ENV] = "gm-test-key";
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

async function run(scenario: Scenario, options: { timeout_ms?: number; engine?: Record<string, unknown> } = {}) {
  const mock = await startMockModel({ scenario });
  try {
    const { runner } = engineRunner(
      new GeminiEnginePlugin({ base_url: mock.url, api_key_env: KEY_ENV, model: "gemini-2.5-flash", ...options.engine }),
    );
    const events: EngineEvent[] = [];
    const result = await runJob(
      runner,
      { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" }, options: { timeout_ms: options.timeout_ms } },
      { onEvent: (e) => events.push(e) },
    );
    return { result, events, requests: [...mock.requests] };
  } finally {
    await mock.close();
  }
}

describe("gemini engine against the mock model", () => {
  it("writes the artifact with gemini's write_file, repairs a fenced final answer and reports the repair", async () => {
    const { result, events, requests } = await run({
      turns: [
        { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
        { text: 'Done. Here is the result:\n```json\n{"greeting_file": "greeting.txt", "message": "Hello, Ada!"}\n```' },
      ],
    });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.engine_version).toBe("0.61.0");
    expect(result.output).toEqual({ greeting_file: expect.stringMatching(/greeting\.txt$/), message: "Hello, Ada!" });
    expect(result.artifacts).toHaveLength(1);
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hello, Ada!\n");
    expect(result.warnings?.filter((w) => w.startsWith("engine output repaired"))).toEqual([
      "engine output repaired: stripped a ```json code fence",
    ]);
    expect(events).toContainEqual({ type: "file_change", path: join(result.run_dir, "workspace", "greeting.txt"), kind: "add" });
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_call", tool: "write_file" }));
    expect(events).toContainEqual(expect.objectContaining({ type: "tool_result", tool: "write_file", status: "success" }));
    expect(result.usage).toMatchObject({ inputTokens: 200, outputTokens: 20, totalTokens: 220 });

    const played = requests.filter((r) => r.api === "gemini");
    expect(played.map((r) => r.turn)).toEqual([0, 1]);
    expect(played.every((r) => r.apiKey === "gm-test-key" && r.model === "gemini-2.5-flash")).toBe(true);
    // The prompt carried the output-file contract; GEMINI.md points at the installed skill.
    const firstPrompt = JSON.stringify(played[0]!.body);
    expect(firstPrompt).toContain(".skillrig/result.json");
    expect(readFileSync(join(result.run_dir, "logs/gemini.prompt.md"), "utf8")).toContain("## Final answer (required)");
    const workspace = join(result.run_dir, "workspace");
    expect(readFileSync(join(workspace, "GEMINI.md"), "utf8")).toContain(".agents/skills/write-greeting/SKILL.md");
    expect(existsSync(join(result.run_dir, "engine/gemini/home/.gemini/settings.json"))).toBe(true);
  });

  it("takes the final answer from the output file the model wrote (the prompt's contract), from a scenario file", async () => {
    const dir = tempDir();
    const scenarioFile = join(dir, "scenario.json");
    writeFileSync(
      scenarioFile,
      JSON.stringify({
        turns: [
          { write_file: { path: "greeting.txt", content: "Hi Ada\n" } },
          {
            write_file: {
              path: ".skillrig/result.json",
              content: '{"greeting_file": "greeting.txt", "message": "Hi Ada", "word_count": 2}',
            },
          },
          { text: "All done." },
        ],
      }),
    );
    const { runner } = engineRunner(new GeminiEnginePlugin({ mock_scenario: scenarioFile }));
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "gemini", input: { name: "Ada" } });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({ message: "Hi Ada", word_count: 2 });
    expect(result.warnings ?? []).not.toContainEqual(expect.stringMatching(/repaired/));
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hi Ada\n");
  });

  it("ends a 401 as engine_auth_failed with the CLI's message", async () => {
    const { result } = await run({ turns: [{ error: { status: 401, message: "Request had invalid authentication credentials." } }] });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("Request had invalid authentication credentials.");
  });

  it("ends a 400 API_KEY_INVALID (exit code 144 = 400 & 255) as engine_auth_failed", async () => {
    const { result } = await run({ turns: [{ error: { status: 400 } }] });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("API key not valid. Please pass a valid API key.");
    expect(result.error?.message).toContain("exit code 144 (HTTP 400 truncated to 8 bits)");
  });

  it("ends a hanging model as a timeout and leaves no process behind", async () => {
    const { result } = await run({ turns: [{ hang: true }] }, { timeout_ms: 6000 });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("timeout");
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("stops gemini when it cannot reach the model API instead of minutes of backoff", async () => {
    const closed = await startMockModel({ scenario: { turns: [{ text: "x" }] } });
    await closed.close();
    const { runner } = engineRunner(new GeminiEnginePlugin({ base_url: closed.url, api_key_env: KEY_ENV, model: "gemini-2.5-flash" }));
    const result = await runJob(runner, {
      skill_id: "write-greeting",
      engine: "gemini",
      input: { name: "Ada" },
      options: { timeout_ms: 150_000 },
    });
    expect(result.error?.code).toBe("engine_failed");
    expect(result.error?.message).toMatch(/cannot reach the model API \(4 requests failed with "fetch failed"/);
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("ends as malformed output when the final answer holds no JSON", async () => {
    const { result } = await run({ turns: [{ text: "I would rather not." }] });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_failed");
    expect(result.error?.message).toMatch(/malformed_output.*no JSON object.*I would rather not/);
  });
});
