/**
 * Codex's own cases with the real codex binary against @skillrig/mock-model (the cases every engine runs are
 * engine-kit's shared suite, in codex-engine.test.ts): a missing key behind a proxy, apply_patch and the strict
 * output schema, a 500, and repair turns.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgainstMock, runGreeting } from "@skillrig/engine-kit/testing";
import { codex } from "./settings.js";

describe("codex engine: problems found before the CLI runs", () => {
  it("a missing key with a base_url set (a proxy) is engine_auth_failed too, the same code gemini gets", async () => {
    const { result } = await runGreeting(codex, { base_url: "http://127.0.0.1:9/v1", api_key_env: "SKILLRIG_UNSET_KEY_FOR_TEST" });
    expect(result.error?.code).toBe("engine_auth_failed");
    expect(result.error?.message).toContain("SKILLRIG_UNSET_KEY_FOR_TEST is not set");
  });
});

describe("codex engine against the mock model", () => {
  it("writes the artifact with codex's own apply_patch, returns output that validates, and records the version", async () => {
    const { result, events, requests } = await runAgainstMock(codex, {
      turns: [
        { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
        // Strict structured output makes optional fields nullable; the adapter drops the null again.
        { json: { greeting_file: "greeting.txt", message: "Hello, Ada!", word_count: null } },
      ],
    });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.engine_version).toBe(codex.version);
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

  it("ends a 500 from the model as a crash with codex's own message, not as an auth failure", async () => {
    const { result, requests } = await runAgainstMock(codex, { turns: [{ error: { status: 500, message: "the model fell over" } }] });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("engine_failed");
    // codex words a 5xx in its own terms ("We're currently experiencing high demand ...").
    expect(result.error?.message).toMatch(/\(crash\): Codex CLI failed with exit code 1: \S/);
    expect(requests.filter((r) => r.api === "responses")).toHaveLength(1);
  });

  it("repair_turns: 1 sends the output schema's violations back, and the agent's corrected answer succeeds", async () => {
    const { result, requests } = await runAgainstMock(
      codex,
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
    const { result, requests } = await runAgainstMock(
      codex,
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
