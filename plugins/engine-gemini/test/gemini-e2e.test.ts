/**
 * Gemini's own cases with the real gemini binary against @skillrig/mock-model (the cases every engine runs are
 * engine-kit's shared suite, in gemini-engine.test.ts): its write_file tool and a fenced final answer, the output
 * file the prompt's contract names, and exit code 144 for an HTTP 400.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runJob } from "@skillrig/skills";
import { engineRunner, greetingJob, jobFailure, runAgainstMock, tempDir } from "@skillrig/engine-kit/testing";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { gemini } from "./settings.js";

describe("gemini engine against the mock model", () => {
  it("writes the artifact with gemini's write_file, repairs a fenced final answer and reports the repair", async () => {
    const { result, events, requests } = await runAgainstMock(gemini, {
      turns: [
        { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
        { text: 'Done. Here is the result:\n```json\n{"greeting_file": "greeting.txt", "message": "Hello, Ada!"}\n```' },
      ],
    });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.engine_version).toBe(gemini.version);
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
    const { runner } = engineRunner(gemini, new GeminiEnginePlugin({ mock_scenario: scenarioFile }));
    const result = await runJob(runner, greetingJob(gemini));
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({ message: "Hi Ada", word_count: 2 });
    expect(result.warnings ?? []).not.toContainEqual(expect.stringMatching(/repaired/));
    expect(readFileSync(result.artifacts[0]!.path, "utf8")).toBe("Hi Ada\n");
  });

  it("ends a 400 API_KEY_INVALID (exit code 144 = 400 & 255) as engine_auth_failed", async () => {
    const { result } = await runAgainstMock(gemini, { turns: [{ error: { status: 400 } }] });
    expect(jobFailure(result).code).toBe("engine_auth_failed");
    expect(jobFailure(result).message).toContain("API key not valid. Please pass a valid API key.");
    expect(jobFailure(result).message).toContain("exit code 144 (HTTP 400 truncated to 8 bits)");
  });
});
