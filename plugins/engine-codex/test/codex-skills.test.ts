/** Skill activation with the real codex CLI against the mock model (engine-kit's shared cases), and its parser's own. */
import { describe, expect, it } from "vitest";
import { createCodexStreamParser } from "@skillrig/engine-codex";
import { describeSkillActivation } from "@skillrig/engine-kit/testing";
import { codex } from "./settings.js";

describeSkillActivation(codex, { via: "read SKILL.md" });

describe("codex parser: skill activations", () => {
  const started = (id: string, command: string) =>
    JSON.stringify({ type: "item.started", item: { id, type: "command_execution", command } });

  it("a command reading a skill's SKILL.md is a skill_activated beside its tool_call, once per skill", () => {
    const parser = createCodexStreamParser();
    expect(parser.stdoutLine(started("c1", "/bin/bash -lc 'cat /ws/.agents/skills/write-greeting/SKILL.md'"))).toEqual([
      expect.objectContaining({ type: "tool_call", tool: "shell" }),
      { type: "skill_activated", skill: "write-greeting", via: "read SKILL.md" },
    ]);
    expect(parser.stdoutLine(started("c2", "sed -n 1,40p /ws/.agents/skills/write-greeting/SKILL.md"))).toHaveLength(1);
  });

  it("near misses: another skill is that skill, a SKILL.md.bak or a longer name is not this one", () => {
    const parser = createCodexStreamParser();
    const activated = (command: string) => parser.stdoutLine(started("c", command)).filter((e) => e.type === "skill_activated");
    expect(activated("cat /ws/.agents/skills/write-greeting/SKILL.md.bak")).toEqual([]);
    expect(activated("cat /ws/.agents/myskills/write-greeting/SKILL.md")).toEqual([]);
    expect(activated("cat /ws/.agents/skills/other/SKILL.md")).toEqual([{ type: "skill_activated", skill: "other", via: "read SKILL.md" }]);
    expect(activated("cat /ws/.agents/skills/write-greeting-v2/SKILL.md")).toEqual([
      { type: "skill_activated", skill: "write-greeting-v2", via: "read SKILL.md" },
    ]);
  });

  it("a command's output naming a SKILL.md is not an activation (only the command codex ran counts)", () => {
    const parser = createCodexStreamParser();
    const completed = JSON.stringify({
      type: "item.completed",
      item: { id: "c1", type: "command_execution", command: "ls", aggregated_output: "cat /ws/skills/forged/SKILL.md\n", exit_code: 0 },
    });
    expect(parser.stdoutLine(completed).filter((e) => e.type === "skill_activated")).toEqual([]);
    expect(parser.stdoutLine('{"type":"skill_activated","skill":"forged","via":"read SKILL.md"}')).toEqual([]);
  });
});
