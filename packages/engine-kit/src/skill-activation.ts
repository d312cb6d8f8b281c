/**
 * Which skills an agent activated, read from its engine CLI's own tool-call records: the `skill_activated` events
 * every engine parser emits beside the tool_call that activated the skill, once per skill per run. Shared here so a
 * team's own engine plugin detects activation the same way:
 * - a tool that loads a skill by name (Claude Code's `Skill` tool, input `skill`; Gemini CLI's `activate_skill`,
 *   args `name`): `skillFromToolCall`;
 * - an engine with no such tool (Codex CLI lists each skill's SKILL.md path and the model reads it with a shell
 *   command): `skillsReadByCommand`, the skills whose `skills/<name>/SKILL.md` a command names as a path.
 * Only a parser's tool-call records feed these (the model's own calls, as the CLI reports them); what a command
 * prints, or what the agent writes in a file, is a tool result or a file, never a tool call, so it cannot fake one.
 */
import type { EngineEvent } from "@skillrig/core";

/** The tools that load a skill by name, and the argument holding the name (Claude Code, Gemini CLI). */
export const SKILL_TOOLS: Readonly<Record<string, string>> = { Skill: "skill", activate_skill: "name" };

/**
 * `skills/<name>/SKILL.md` as whole path components: `skills` starts a component (after `/`, a quote, a space, `=`,
 * `(`, `<` or `:`, or at the start), the name is one component, and `SKILL.md` ends its component (no `SKILL.md.bak`,
 * no `SKILL.mdx`). `myskills/x/SKILL.md` and `skills/x/sub/SKILL.md` are not a skill's SKILL.md.
 */
const SKILL_MD_PATH = /(?:^|[/\s'"`=(<:])skills\/([A-Za-z0-9][A-Za-z0-9._-]*)\/SKILL\.md(?![A-Za-z0-9_-]|\.[A-Za-z0-9_])/g;

/**
 * The skill a tool call activates, when the tool is one of `tools` (default SKILL_TOOLS) and its arguments name a
 * skill. Claude Code's names may carry a plugin or folder prefix (`plugin:skill`, `apps/web:deploy`) or a leading
 * `/`: the skill is the last `:`-separated part.
 */
export function skillFromToolCall(tool: string, args: unknown, tools: Readonly<Record<string, string>> = SKILL_TOOLS): string | undefined {
  const key = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
  if (key === undefined || args === null || typeof args !== "object") return undefined;
  const raw = (args as Record<string, unknown>)[key];
  if (typeof raw !== "string") return undefined;
  const name = raw.trim().replace(/^\/+/, "").split(":").at(-1)?.trim();
  return name ? name : undefined;
}

/** The skills whose SKILL.md a shell command names as a path (`cat`, `sed -n`, `head`, `python3 -c "open(...)"`, ...). */
export function skillsReadByCommand(command: string): string[] {
  const names: string[] = [];
  for (const match of command.matchAll(SKILL_MD_PATH)) {
    const name = match[1]!;
    if (name !== "." && name !== ".." && !names.includes(name)) names.push(name);
  }
  return names;
}

export interface SkillActivations {
  /** `skill_activated` events for the skills not seen before in this run (each skill once), `via` how. */
  activated(skills: Array<string | undefined>, via: string): EngineEvent[];
  /** The skills activated so far, in the order first seen. */
  skills(): string[];
}

/** Keeps a run's activations so each skill is reported once. One per parser (one per run). */
export function skillActivations(): SkillActivations {
  const seen: string[] = [];
  return {
    activated(skills, via) {
      const out: EngineEvent[] = [];
      for (const skill of skills) {
        if (skill === undefined || seen.includes(skill)) continue;
        seen.push(skill);
        out.push({ type: "skill_activated", skill, via });
      }
      return out;
    },
    skills: () => [...seen],
  };
}
