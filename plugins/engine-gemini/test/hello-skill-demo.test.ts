/**
 * The README's main command: examples/hello-skill run through the skillrig CLI, the real gemini binary and the
 * mock model the example's config names (no key, no network); and the same example through codex.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { createRunner, loadConfig } from "@skillrig/core";
import { runConfigSection, runJob, skillProtocolPlugin, skillsConfigSection } from "@skillrig/skills";
import { tempDir } from "@skillrig/engine-kit/testing";
import sandboxPlugin from "@skillrig/sandbox";

const REPO = resolve(import.meta.dirname, "../../..");
const EXAMPLE = join(REPO, "examples/hello-skill");
// By path, not as a dependency: @skillrig/cli depends (through solve and server) on this plugin. `pnpm test` builds it first.
const CLI = join(REPO, "packages/cli/dist/bin.js");

describe("examples/hello-skill with the real CLIs and the mock model", () => {
  it("skillrig run --config examples/hello-skill/skillrig.config.json succeeds through gemini", async () => {
    const runsDir = tempDir("skillrig-demo-");
    // Only what a user's shell would have: no API keys at all.
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root" };
    const r = await execa("node", [CLI, "run", "--config", join(EXAMPLE, "skillrig.config.json"), "--runs-dir", runsDir], {
      env,
      extendEnv: false,
      reject: false,
      cwd: REPO,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const output = JSON.parse(r.stdout) as { report_path: string; total_words: number; top_words: Array<{ word: string; count: number }> };
    expect(output.total_words).toBe(31);
    expect(output.top_words[0]).toEqual({ word: "the", count: 7 });
    expect(r.stderr).toContain("Gemini CLI 0.61.0");
    // One header line says which engine runs and that a scripted mock plays the model; its answer needs no repair.
    expect(r.stderr.split("\n")[0]).toBe("skill word-stats, engine gemini (mock model: examples/hello-skill/mock-model.scenario.json)");
    expect(r.stderr).not.toContain("repaired");
    expect(r.stderr).toMatch(/artifact report_path \(report\): (\S+artifacts\/report\.md)/);
    const artifact = /artifact report_path \(report\): (\S+)/.exec(r.stderr)![1]!;
    expect(readFileSync(artifact, "utf8")).toContain("| the | 7 |");
  });

  it("runs the same example through codex, from the example's config as a user would load it", async () => {
    const loaded = await loadConfig({
      configPath: join(EXAMPLE, "skillrig.config.json"),
      sections: [skillsConfigSection, runConfigSection],
    });
    const runner = await createRunner(loaded, { builtins: [skillProtocolPlugin(), sandboxPlugin()] });
    const result = await runJob(
      runner,
      { skill_id: "word-stats", engine: "codex", files: { text: join(EXAMPLE, "notes.txt") }, parameter: { top: 2 } },
      { runsDir: tempDir("skillrig-demo-") },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.engine_version).toBe("0.169.0");
    // The mock echoes what the command printed, not codex's framing of it: clean JSON, nothing repaired.
    expect(result.warnings ?? []).not.toContainEqual(expect.stringContaining("repaired"));
    // The scripted model runs the skill's own command as rendered for this job, so the parameter applies.
    expect(result.output).toMatchObject({
      total_words: 31,
      unique_words: 17,
      top_words: [
        { word: "the", count: 7 },
        { word: "a", count: 3 },
      ],
    });
    expect(readFileSync(join(result.run_dir, "artifacts/report.md"), "utf8")).toContain("| the | 7 |");
  });
});
