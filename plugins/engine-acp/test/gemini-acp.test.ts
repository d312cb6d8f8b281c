/**
 * Gemini CLI in ACP mode (`gemini --acp`, the pinned @google/gemini-cli 0.61.0) through engine-acp, offline: the
 * real binary in the agent jail against @skillrig/mock-model on loopback, running examples/hello-skill's word-stats
 * skill with the example's scripted model, as the native gemini plugin runs it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRunner, loadConfig, type EngineEvent } from "@skillrig/core";
import AcpEnginePlugin from "@skillrig/engine-acp";
import {
  ALL_JAIL_ESCAPES_BLOCKED,
  type JailEscapeSetup,
  jailEscapeCommand,
  jailEscapeVerdicts,
  processesUsing,
  setUpJailEscapeTargets,
} from "@skillrig/engine-kit";
import { jailedConfinement, jobConfinement, tempDir } from "@skillrig/engine-kit/testing";
import { runConfigSection, runJob, skillProtocolPlugin, skillsConfigSection } from "@skillrig/skills";
import { EXAMPLE, FIXTURES, fixtureRunner, geminiAcpOptions, runNote } from "./helpers.js";
import sandboxPlugin from "@skillrig/sandbox";

describe("Gemini CLI in ACP mode through engine-acp", () => {
  it("runs examples/hello-skill's word-stats job jailed against the mock model, with the native plugin's output", async () => {
    const loaded = await loadConfig({
      configPath: join(EXAMPLE, "skillrig.config.json"),
      sections: [skillsConfigSection, runConfigSection],
    });
    // The example's skills and files; the engine named "gemini" is the ACP instance here (the skill lists gemini).
    const runner = await createRunner(
      { ...loaded, plugins: [] },
      {
        builtins: [
          skillProtocolPlugin(),
          new AcpEnginePlugin(geminiAcpOptions("gemini", { mock_scenario: join(EXAMPLE, "mock-model.scenario.json") })),
          sandboxPlugin(),
        ],
      },
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
    // The command the scenario has the model send (read from it, so the test follows the example's scenario).
    const scenario = JSON.parse(readFileSync(join(EXAMPLE, "mock-model.scenario.json"), "utf8"));
    const command: string = scenario.turns[0].shell.command;
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

describe("a config with two ACP engines", () => {
  it("loads both from skillrig.config and runs a job through each", async () => {
    const loaded = await loadConfig({ configPath: join(FIXTURES, "two-acp-engines.config.json"), sections: [skillsConfigSection] });
    const runner = await createRunner(loaded, { builtins: [skillProtocolPlugin(), sandboxPlugin()] });
    expect(runner.claims("engine").map((c) => c.name)).toEqual(["gemini-acp", "gemini-acp-yolo"]);
    const first = await runNote(runner, "gemini-acp", "Say who you are.");
    const second = await runNote(runner, "gemini-acp-yolo", "Say who you are.");
    expect(first.result.status, JSON.stringify(first.result.error)).toBe("succeeded");
    expect(second.result.status, JSON.stringify(second.result.error)).toBe("succeeded");
    expect(first.result.output).toBe("first engine");
    expect(second.result.output).toBe("second engine");
    expect(first.result.engine).toBe("gemini-acp");
    expect(second.result.engine).toBe("gemini-acp-yolo");
  });
});

describe("Gemini CLI over ACP in the agent jail", () => {
  let setup: JailEscapeSetup;
  beforeAll(async () => {
    setup = await setUpJailEscapeTargets(tempDir("skillrig-acp-jail-targets-"));
  });
  afterAll(async () => {
    await setup?.close();
  });

  it("every escape the probes try from gemini's own shell tool fails (verdict: all BLOCKED, no TCP connection)", async () => {
    const before = setup.connections();
    const scenario = { turns: [{ shell: { command: jailEscapeCommand(setup.targets) } }, { text: "probes ran" }] };
    const runner = fixtureRunner(new AcpEnginePlugin(geminiAcpOptions("gemini-acp", { mock_scenario: scenario })));
    const { result } = await runNote(runner, "gemini-acp", "Run the probes.");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    const probes = readFileSync(join(result.run_dir, "workspace/probes.txt"), "utf8");
    expect(probes).toContain("probes-done");
    expect(jailEscapeVerdicts(probes)).toEqual(ALL_JAIL_ESCAPES_BLOCKED);
    expect(setup.connections() - before).toBe(0);
    expect(jobConfinement(result)).toEqual(jailedConfinement(false));
    expect(processesUsing(result.run_dir)).toEqual([]);
  });
});

describe("Gemini CLI over ACP: permissions and cancel", () => {
  const shellTurns = { turns: [{ shell: { command: "echo ran > ran.txt" } }, { text: "done" }] };

  it("refuses gemini's shell call under deny_all and says so (verdict: the command never ran)", async () => {
    const runner = fixtureRunner(
      new AcpEnginePlugin(geminiAcpOptions("gemini-acp", { permissions: "deny_all", mock_scenario: shellTurns })),
    );
    const { result, events } = await runNote(runner, "gemini-acp", "Run it.");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(existsSync(join(result.run_dir, "workspace/ran.txt"))).toBe(false);
    expect(events).toContainEqual({
      type: "status",
      status: "warning",
      message: `refused the agent's permission request for "echo ran > ran.txt" (tool kind execute): the "permissions" option does not allow it`,
    });
  });

  it('runs the same call unasked in gemini\'s "yolo" session mode (the mode option)', async () => {
    const runner = fixtureRunner(
      new AcpEnginePlugin(geminiAcpOptions("gemini-acp", { permissions: "deny_all", mode: "yolo", mock_scenario: shellTurns })),
    );
    const { result, events } = await runNote(runner, "gemini-acp", "Run it.");
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(readFileSync(join(result.run_dir, "workspace/ran.txt"), "utf8")).toBe("ran\n");
    expect(events.filter((e) => e.type === "status" && e.status === "warning")).toEqual([]);
  });

  it("cancels gemini while its model hangs: the job ends canceled and nothing of it is left running", async () => {
    const runner = fixtureRunner(new AcpEnginePlugin(geminiAcpOptions("gemini-acp", { mock_scenario: { turns: [{ hang: true }] } })));
    const controller = new AbortController();
    const { result } = await runNote(runner, "gemini-acp", "Wait.", {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "status" && e.status === "running") setTimeout(() => controller.abort(), 2000);
      },
    });
    expect(result.status).toBe("canceled");
    expect(processesUsing(result.run_dir)).toEqual([]);
  });
});
