import { describe, expect, it } from "vitest";
import { skillActivations, skillFromToolCall, skillsReadByCommand } from "@skillrig/engine-kit";

describe("skillsReadByCommand: the skills whose SKILL.md a command names as a path", () => {
  it("finds the skill in the ways a model reads a file", () => {
    const path = "/run/ws/.agents/skills/write-greeting/SKILL.md";
    for (const command of [
      `cat ${path}`,
      `/bin/bash -lc 'sed -n 1,200p ${path}'`,
      `head -50 "${path}"`,
      `nl -ba ${path} | less`,
      `python3 -c "print(open('${path}').read())"`,
      "cat .agents/skills/write-greeting/SKILL.md",
      "cat skills/write-greeting/SKILL.md",
      `FILE=${path} cat "$FILE"`,
      `cat ${path}; echo done`,
    ]) {
      expect(skillsReadByCommand(command), command).toEqual(["write-greeting"]);
    }
  });

  it("near misses are not a skill's SKILL.md", () => {
    for (const command of [
      "cat /ws/.agents/skills/write-greeting/SKILL.md.bak",
      "cat /ws/.agents/skills/write-greeting/SKILL.mdx",
      "cat /ws/.agents/skills/write-greeting/SKILL.md_old",
      "cat /ws/.agents/myskills/write-greeting/SKILL.md",
      "cat /ws/.agents/skills/write-greeting/sub/SKILL.md",
      "cat /ws/.agents/skills/write-greeting/README.md",
      "cat /ws/.agents/skills/write-greeting/NOTSKILL.md",
      "cat /ws/.agents/skills/SKILL.md",
      "echo write-greeting SKILL.md",
    ]) {
      expect(skillsReadByCommand(command), command).toEqual([]);
    }
  });

  it("names each skill exactly: another skill, and a name that is a prefix of another", () => {
    expect(skillsReadByCommand("cat /ws/.agents/skills/other/SKILL.md")).toEqual(["other"]);
    expect(skillsReadByCommand("cat /ws/.agents/skills/write-greeting-v2/SKILL.md")).toEqual(["write-greeting-v2"]);
    expect(skillsReadByCommand("cat /ws/skills/write/SKILL.md /ws/skills/write-greeting/SKILL.md /ws/skills/write/SKILL.md")).toEqual([
      "write",
      "write-greeting",
    ]);
  });
});

describe("skillFromToolCall", () => {
  it("reads Claude Code's Skill input and Gemini CLI's activate_skill args", () => {
    expect(skillFromToolCall("Skill", { skill: "write-greeting" })).toBe("write-greeting");
    expect(skillFromToolCall("Skill", { skill: "/write-greeting", args: "x" })).toBe("write-greeting");
    expect(skillFromToolCall("Skill", { skill: "my-plugin:write-greeting" })).toBe("write-greeting");
    expect(skillFromToolCall("activate_skill", { name: "write-greeting" })).toBe("write-greeting");
  });

  it("is nothing for other tools, the wrong argument, or a name that is not a string", () => {
    expect(skillFromToolCall("Read", { skill: "write-greeting" })).toBeUndefined();
    expect(skillFromToolCall("Skill", { name: "write-greeting" })).toBeUndefined();
    expect(skillFromToolCall("activate_skill", { name: 3 })).toBeUndefined();
    expect(skillFromToolCall("Skill", { skill: "  " })).toBeUndefined();
    expect(skillFromToolCall("Skill", null)).toBeUndefined();
    expect(skillFromToolCall("toString", { toString: "x" })).toBeUndefined();
    expect(skillFromToolCall("run_tool", { id: "a" }, { run_tool: "id" })).toBe("a");
  });
});

describe("skillActivations", () => {
  it("reports each skill once, in the order first seen", () => {
    const a = skillActivations();
    expect(a.activated(["x"], "Skill")).toEqual([{ type: "skill_activated", skill: "x", via: "Skill" }]);
    expect(a.activated(["x", undefined, "y"], "Skill")).toEqual([{ type: "skill_activated", skill: "y", via: "Skill" }]);
    expect(a.skills()).toEqual(["x", "y"]);
  });
});
