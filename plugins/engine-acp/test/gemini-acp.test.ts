/**
 * Gemini CLI in ACP mode (`gemini --acp`, the pinned @google/gemini-cli 0.61.0) through engine-acp, offline: the
 * real binary in the agent jail against @skillrig/mock-model on loopback, running examples/hello-skill's word-stats
 * skill with the example's scripted model, as the native gemini plugin runs it.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createRunner, loadConfig, type EngineEvent } from "@skillrig/core";
import AcpEnginePlugin, { type AcpOptions } from "@skillrig/engine-acp";
import { resolvePackageBin } from "@skillrig/engine-kit";
import { jobConfinement, tempDir } from "@skillrig/engine-kit/testing";
import { runConfigSection, runJob, skillProtocolPlugin, skillsConfigSection } from "@skillrig/skills";

const REPO = resolve(import.meta.dirname, "../../..");
const EXAMPLE = join(REPO, "examples/hello-skill");
const GEMINI = resolvePackageBin("@google/gemini-cli", "gemini", import.meta.url)!;

/** Gemini CLI's ACP engine as a config names it: its settings (API-key auth, no telemetry) written into its HOME. */
export function geminiAcpOptions(name: string, over: Partial<AcpOptions> = {}): AcpOptions {
  return {
    name,
    command: [GEMINI, "--acp"],
    display_name: "Gemini CLI (ACP)",
    context_file: "GEMINI.md",
    permissions: "allow_all",
    env: { GEMINI_CLI_TRUST_WORKSPACE: "true" },
    home_files: {
      ".gemini/settings.json": {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      },
    },
    mock_scenario: join(EXAMPLE, "mock-model.scenario.json"),
    timeout_ms: 120_000,
    ...over,
  };
}

describe("Gemini CLI in ACP mode through engine-acp", () => {
  it("runs examples/hello-skill's word-stats job jailed against the mock model, with the native plugin's output", async () => {
    const loaded = await loadConfig({
      configPath: join(EXAMPLE, "skillrig.config.json"),
      sections: [skillsConfigSection, runConfigSection],
    });
    // The example's skills and files; the engine named "gemini" is the ACP instance here (the skill lists gemini).
    const runner = await createRunner(
      { ...loaded, plugins: [] },
      { builtins: [skillProtocolPlugin(), new AcpEnginePlugin(geminiAcpOptions("gemini"))] },
    );
    const events: EngineEvent[] = [];
    const result = await runJob(
      runner,
      { skill_id: "word-stats", engine: "gemini", files: { text: join(EXAMPLE, "notes.txt") }, parameter: { top: 5 } },
      { runsDir: tempDir("skillrig-acp-gemini-"), onEvent: (e) => events.push(e) },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({
      total_words: 31,
      top_words: [{ word: "the", count: 7 }, expect.anything(), expect.anything(), expect.anything(), expect.anything()],
    });
    expect(readFileSync(join(result.run_dir, "artifacts/report.md"), "utf8")).toContain("| the | 7 |");
    expect(result.engine_version).toBe("0.61.0");
    expect(jobConfinement(result)).toMatchObject({
      isolation: "namespaces",
      network: "model-endpoint-only",
      capabilities: "none",
      seccomp: true,
    });
    // Gemini sends the shell call first in its permission request (answered by the policy), then its result.
    const command = "awk '/```bash/{f=1;next} /```/{if(f)exit} f' .agents/skills/word-stats/SKILL.md | sh";
    const call = events.find((e) => e.type === "tool_call");
    expect(call).toMatchObject({ type: "tool_call", tool: "run_shell_command", args: { title: command }, status: "pending" });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool_result", id: (call as { id: string }).id, tool: "run_shell_command", status: "completed" }),
    );
    expect(events.indexOf(call!)).toBeLessThan(events.findIndex((e) => e.type === "tool_result"));
    expect(events).toContainEqual({ type: "skill_activated", skill: "word-stats", via: "read SKILL.md" });
    expect(result.skills_activated).toEqual(["word-stats"]);
    expect(events.some((e) => e.type === "message" && e.role === "assistant" && e.text.includes('"total_words": 31'))).toBe(true);
  });
});
