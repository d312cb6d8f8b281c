/**
 * Tier 2: the real codex binary (@openai/codex 0.169.0, a dev dependency) against @skillrig/mock-model on
 * loopback, through the skills package's runJob, so the artifact is collected by the real collectArtifacts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "@skillrig/core";
import { runJob } from "@skillrig/skills";
import { startMockModel, type Scenario } from "@skillrig/mock-model";
import CodexEnginePlugin from "@skillrig/engine-codex";
import { engineRunner, processesUsing } from "./support.js";

const KEY_ENV = "SKILLRIG_CODEX_TEST_KEY";
beforeAll(() => {
  process.env[KEY_ENV] = "sk-test-codex";
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

async function run(scenario: Scenario, options: { timeout_ms?: number; engine?: Record<string, unknown> } = {}) {
  const mock = await startMockModel({ scenario });
  try {
    const { runner } = engineRunner(
      new CodexEnginePlugin({ base_url: `${mock.url}/v1`, api_key_env: KEY_ENV, retries: 0, ...options.engine }),
    );
    const events: EngineEvent[] = [];
    const result = await runJob(
      runner,
      { skill_id: "write-greeting", engine: "codex", input: { name: "Ada" }, options: { timeout_ms: options.timeout_ms } },
      { onEvent: (e) => events.push(e) },
    );
    return { result, events, requests: [...mock.requests] };
  } finally {
    await mock.close();
  }
}

describe("codex engine: problems found before the CLI runs", () => {
  it("a missing API key fails at once as engine_auth_failed naming the variable (codex would retry forever)", async () => {
    const { runner } = engineRunner(new CodexEnginePlugin({ api_key_env: "SKILLRIG_UNSET_KEY_FOR_TEST" }));
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "codex", input: { name: "Ada" } });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("the environment variable SKILLRIG_UNSET_KEY_FOR_TEST is not set");
  });

  it("a missing key with a base_url set (a proxy) is engine_auth_failed too, the same code gemini gets", async () => {
    const { runner } = engineRunner(
      new CodexEnginePlugin({ base_url: "http://127.0.0.1:9/v1", api_key_env: "SKILLRIG_UNSET_KEY_FOR_TEST" }),
    );
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "codex", input: { name: "Ada" } });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("SKILLRIG_UNSET_KEY_FOR_TEST is not set");
  });

  it("a binary that does not exist is engine_not_found naming the path and the option", async () => {
    const { runner } = engineRunner(new CodexEnginePlugin({ binary: "/nonexistent/codex", mock_scenario: { turns: [{ text: "{}" }] } }));
    const result = await runJob(runner, { skill_id: "write-greeting", engine: "codex", input: { name: "Ada" } });
    expect(result.error?.code).toBe("engine_not_found");
    expect(result.error?.message).toMatch(/cannot start Codex CLI at \/nonexistent\/codex: .*ENOENT.*"binary" option/);
  });

  it("bad options: in the constructor (config load) and per job (request engine options), each named", async () => {
    expect(() => new CodexEnginePlugin({ sandbox: "full-auto" } as never)).toThrow(
      /@skillrig\/engine-codex options: sandbox: must be one of "read-only", "workspace-write", "danger-full-access"/,
    );
    const { runner } = engineRunner(new CodexEnginePlugin({ mock_scenario: { turns: [{ text: "{}" }] } }));
    const result = await runJob(runner, {
      skill_id: "write-greeting",
      engine: "codex",
      input: { name: "Ada" },
      options: { engine: { timeout_ms: "soon" } },
    });
    expect(result.error?.code).toBe("invalid_config");
    expect(result.error?.message).toMatch(/engine options of job .*: timeout_ms: must be integer/);
  });
});

describe("codex engine against the mock model", () => {
  it("writes the artifact with codex's own apply_patch, returns output that validates, and records the version", async () => {
    const { result, events, requests } = await run({
      turns: [
        { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
        // Strict structured output makes optional fields nullable; the adapter drops the null again.
        { json: { greeting_file: "greeting.txt", message: "Hello, Ada!", word_count: null } },
      ],
    });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.engine_version).toBe("0.169.0");
    expect(result.output).toEqual({ greeting_file: expect.stringMatching(/greeting\.txt$/), message: "Hello, Ada!" });
    expect(result.artifacts).toHaveLength(1);
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hello, Ada!\n");
    expect(result.warnings?.join("\n")).toMatch(/dropped nulls .*\/word_count/);
    expect(events).toContainEqual({ type: "file_change", path: join(result.run_dir, "workspace", "greeting.txt"), kind: "add" });
    expect(events.some((e) => e.type === "message" && e.role === "assistant" && e.text.includes("Hello, Ada!"))).toBe(true);
    expect(result.usage?.inputTokens).toBe(200);

    // What codex sent: our key, and the skill's output schema in strict form.
    expect(requests.map((r) => r.apiKey)).toEqual(["sk-test-codex", "sk-test-codex"]);
    const format = (requests[0]!.body as { text?: { format?: { strict?: boolean; schema?: Record<string, unknown> } } }).text?.format;
    expect(format?.strict).toBe(true);
    expect(format?.schema).toMatchObject({
      additionalProperties: false,
      required: ["greeting_file", "message", "word_count"],
      properties: { word_count: { type: ["integer", "null"] } },
    });
    expect(JSON.stringify(format?.schema)).not.toMatch(/x-type|minLength/);
    // The skill was installed where codex looks for skills, and AGENTS.md points at it.
    const workspace = join(result.run_dir, "workspace");
    expect(existsSync(join(workspace, ".agents/skills/write-greeting/SKILL.md"))).toBe(true);
    expect(readFileSync(join(workspace, "AGENTS.md"), "utf8")).toContain(".agents/skills/write-greeting/SKILL.md");
    // The user's ~/.codex never took part: codex ran with its own home inside the run folder.
    expect(existsSync(join(result.run_dir, "engine/codex/home/.codex"))).toBe(true);
  });

  it("ends a 401 as engine_auth_failed with the CLI's message", async () => {
    const { result } = await run({ turns: [{ error: { status: 401, message: "Incorrect API key provided: sk-test-codex." } }] });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("Incorrect API key provided: sk-test-codex.");
    expect(result.error?.message).toContain("401");
  });

  it("ends a hanging model as a timeout and leaves no process behind", async () => {
    const { result } = await run({ turns: [{ hang: true }] }, { timeout_ms: 4000 });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("timeout");
    expect(result.error?.message).toMatch(/did not finish within the job's time limit \(4000 ms\)/);
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("ends as malformed output when the final answer is not JSON", async () => {
    const { result } = await run({ turns: [{ text: "Sorry, I could not write the greeting." }] }, { engine: { output_schema: false } });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_failed");
    expect(result.error?.message).toMatch(/malformed_output.*not JSON.*Sorry, I could not/);
  });

  it("stops codex when it cannot reach the model API instead of letting it retry forever", async () => {
    // A port that was just free: connection refused on loopback, as codex sees it without network.
    const closed = await startMockModel({ scenario: { turns: [{ text: "x" }] } });
    await closed.close();
    const { runner } = engineRunner(new CodexEnginePlugin({ base_url: `${closed.url}/v1`, api_key_env: KEY_ENV }));
    const result = await runJob(runner, {
      skill_id: "write-greeting",
      engine: "codex",
      input: { name: "Ada" },
      options: { timeout_ms: 110_000 },
    });
    expect(result.error?.code).toBe("engine_failed");
    // Unjailed codex retries ("waiting for network") until we stop it; jailed, the egress relay drops the
    // connection it cannot forward and codex ends at once.
    expect(result.error?.message).toMatch(
      /cannot reach the model API .*waiting for network.* 3 times|stream disconnected before completion: error sending request/,
    );
    expect(processesUsing(result.run_dir)).toEqual([]);
  });

  it("ends a 500 from the model as a crash with codex's own message, not as an auth failure", async () => {
    const { result, requests } = await run({ turns: [{ error: { status: 500, message: "the model fell over" } }] });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_failed");
    // codex words a 5xx in its own terms ("We're currently experiencing high demand ...").
    expect(result.error?.message).toMatch(/\(crash\): Codex CLI failed with exit code 1: \S/);
    expect(requests.filter((r) => r.api === "responses")).toHaveLength(1);
  });

  it("repair_turns: 1 sends the output schema's violations back, and the agent's corrected answer succeeds", async () => {
    const { result, requests } = await run(
      {
        turns: [
          { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
          // Breaks the schema: message must be a non-empty string.
          { json: { greeting_file: "greeting.txt", message: "", word_count: null } },
        ],
        branches: [
          {
            prompt_contains: "skillrig: repair your previous answer",
            turns: [{ json: { greeting_file: "greeting.txt", message: "Hello, Ada!", word_count: 2 } }],
          },
        ],
      },
      { engine: { repair_turns: 1, output_schema: false } },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({ message: "Hello, Ada!", word_count: 2 });
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hello, Ada!\n");
    expect(result.warnings?.join("\n")).toMatch(/repair turn 1: the answer broke the output schema \(.*\/message/);
    // The repair run's prompt named the violation.
    const repair = requests.filter((r) => JSON.stringify(r.body).includes("skillrig: repair your previous answer"));
    expect(repair.length).toBeGreaterThan(0);
    expect(JSON.stringify(repair[0]!.body)).toContain("/message");
  });

  it("without repair_turns (the default) the same broken answer fails as schema_violation after one run", async () => {
    const { result, requests } = await run(
      {
        turns: [
          { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
          { json: { greeting_file: "greeting.txt", message: "", word_count: null } },
        ],
      },
      { engine: { output_schema: false } },
    );
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("schema_violation");
    expect(requests.some((r) => JSON.stringify(r.body).includes("skillrig: repair"))).toBe(false);
  });
});
