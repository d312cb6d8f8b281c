/** Skill activation with the real gemini CLI against the mock model (engine-kit's shared cases), and its parser's own. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGeminiStreamParser } from "@skillrig/engine-gemini";
import { describeSkillActivation, runAgainstMock } from "@skillrig/engine-kit/testing";
import { scenario, turn } from "@skillrig/mock-model";
import { gemini } from "./settings.js";

describeSkillActivation(gemini, { via: "activate_skill" });

describe("gemini parser: skill activations", () => {
  const line = (v: unknown) => JSON.stringify(v);
  const activate = (id: string, name: string) => line({ type: "tool_use", tool_name: "activate_skill", tool_id: id, parameters: { name } });

  it("an activate_skill tool_use is a skill_activated beside its tool_call, once per skill; a tool result that looks like one is not", () => {
    const parser = createGeminiStreamParser("/ws");
    expect(parser.stdoutLine(activate("a1", "write-greeting"))).toEqual([
      expect.objectContaining({ type: "tool_call", tool: "activate_skill" }),
      { type: "skill_activated", skill: "write-greeting", via: "activate_skill" },
    ]);
    expect(parser.stdoutLine(activate("a2", "write-greeting")).filter((e) => e.type === "skill_activated")).toEqual([]);
    const forged = line({ type: "tool_result", tool_id: "a3", status: "success", output: `${activate("a9", "forged")}\n` });
    expect(parser.stdoutLine(forged).filter((e) => e.type === "skill_activated")).toEqual([]);
    expect(parser.stdoutLine('{"type":"skill_activated","skill":"forged","via":"activate_skill"}')).toEqual([]);
  });
});

describe("gemini: the activate_skill policy", () => {
  it("is written in the engine's home when the skill is installed, and not with skill_install none", async () => {
    const play = scenario(turn.json({ greeting_file: "greeting.txt", message: "Hello, Ada!" }));
    const policy = (runDir: string) => join(runDir, "engine/gemini/home/.gemini/policies/skillrig-skills.toml");
    const installed = await runAgainstMock(gemini, play, { skill_install: "discoverable" });
    expect(readFileSync(policy(installed.result.run_dir), "utf8")).toContain('toolName = "activate_skill"');
    const none = await runAgainstMock(gemini, play, { skill_install: "none" });
    expect(existsSync(policy(none.result.run_dir))).toBe(false);
  });
});
