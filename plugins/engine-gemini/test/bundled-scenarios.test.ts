/**
 * The mock scenarios skillrig ships for a first run (the demo's, examples/hello-skill, and the one `skillrig init`
 * scaffolds) through the real gemini binary: a first run must give clean JSON, so the user never meets an "engine
 * output repaired" warning before they have changed anything. A scenario whose answer needs a repair fails here.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import { runJob, skillProtocolPlugin } from "@skillrig/skills";
import { tempDir } from "@skillrig/engine-kit/testing";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import sandboxPlugin from "@skillrig/sandbox";

const REPO = resolve(import.meta.dirname, "../../..");

const BUNDLED = [
  {
    what: "the demo (examples/hello-skill)",
    skillRoot: join(REPO, "examples/hello-skill/skills"),
    scenario: join(REPO, "examples/hello-skill/mock-model.scenario.json"),
    job: { skill_id: "word-stats", file: join(REPO, "examples/hello-skill/notes.txt"), parameter: { top: 5 } },
    expected: { total_words: 31, unique_words: 17 },
  },
  {
    what: "init's example skill (line-count)",
    skillRoot: join(REPO, "packages/cli/templates/init/skills"),
    scenario: join(REPO, "packages/cli/templates/init/skills/line-count/mock-model.scenario.json"),
    job: { skill_id: "line-count", file: join(REPO, "packages/cli/templates/init/samples/notes.txt"), parameter: {} },
    expected: { lines: 3, words: 21 },
  },
];

describe("bundled mock scenarios give clean JSON on a first run", () => {
  for (const bundled of BUNDLED) {
    it(`${bundled.what}: succeeds with no repair of the engine's output`, async () => {
      const dir = tempDir("skillrig-bundled-");
      const runner = new Runner({ cwd: dir, configDir: dir, config: { skills: { roots: [bundled.skillRoot] } } });
      runner
        .use(skillProtocolPlugin())
        .use(new GeminiEnginePlugin({ approval_mode: "yolo", mock_scenario: bundled.scenario }))
        .use(sandboxPlugin());
      try {
        const result = await runJob(
          runner,
          { skill_id: bundled.job.skill_id, engine: "gemini", files: { text: bundled.job.file }, parameter: bundled.job.parameter },
          { runsDir: dir },
        );
        expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
        expect(result.output).toMatchObject(bundled.expected);
        expect(result.warnings ?? []).not.toContainEqual(expect.stringContaining("repaired"));
      } finally {
        await runner.close();
      }
    });
  }

  it("a scenario that answers with the CLI's framing around the JSON is repaired, which the checks above would catch", async () => {
    const dir = tempDir("skillrig-bundled-");
    const scenario = join(dir, "echo.scenario.json");
    // The old demo scenario: the script's JSON is echoed as the CLI framed the tool's output.
    writeFileSync(
      scenario,
      JSON.stringify({
        turns: [
          { shell: { command: "awk '/```bash/{f=1;next} /```/{if(f)exit} f' .agents/skills/word-stats/SKILL.md | sh" } },
          { echo_tool_output: true },
        ],
      }),
    );
    const runner = new Runner({ cwd: dir, configDir: dir, config: { skills: { roots: [BUNDLED[0]!.skillRoot] } } });
    runner
      .use(skillProtocolPlugin())
      .use(new GeminiEnginePlugin({ approval_mode: "yolo", mock_scenario: scenario }))
      .use(sandboxPlugin());
    try {
      const result = await runJob(
        runner,
        { skill_id: "word-stats", engine: "gemini", files: { text: BUNDLED[0]!.job.file } },
        { runsDir: dir },
      );
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      expect(result.warnings).toContainEqual(expect.stringContaining("engine output repaired"));
    } finally {
      await runner.close();
    }
  });
});
