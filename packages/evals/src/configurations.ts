/**
 * Which configurations an iteration runs (`--configs`), and how each gets the skill:
 *
 *   with_skill     installed where the engine discovers it, named nowhere (`skill_install: discoverable`)
 *   without_skill  no skill at all (`skill_install: none`)
 *   old_skill      the baseline folder's skill, installed as with_skill is (`--baseline`)
 *   inline_skill   nothing installed (`skill_install: none`); SKILL.md and the files it references in the prompt
 */
import { SkillrigError, type SkillInstall } from "@skillrig/core";
import { CONFIGURATIONS, type Configuration } from "./format.js";

/** Today's default: with and without the skill, or with it and its old snapshot when there is a baseline. */
export function defaultConfigurations(hasBaseline: boolean): Configuration[] {
  return hasBaseline ? ["with_skill", "old_skill"] : ["with_skill", "without_skill"];
}

/** How a configuration's jobs install the skill. */
export function skillInstallOf(configuration: Configuration): SkillInstall {
  return configuration === "without_skill" || configuration === "inline_skill" ? "none" : "discoverable";
}

/**
 * `--configs with_skill,without_skill,inline_skill`: a comma-separated list of configuration names, each once,
 * with_skill among them (the skill under test: the gates and the specification's delta are its), old_skill only
 * with `--baseline`. A usage error names the flag and what was wrong.
 */
export function parseConfigurations(text: string, hasBaseline: boolean): Configuration[] {
  const names = text.split(",").map((n) => n.trim());
  const problem = (message: string) => new SkillrigError("usage", `--configs ${text}: ${message}`, { field: "--configs" });
  const out: Configuration[] = [];
  for (const name of names) {
    if (name === "") throw problem("an empty name (configurations are separated by single commas)");
    if (!(CONFIGURATIONS as readonly string[]).includes(name))
      throw problem(`"${name}" is not a configuration (configurations: ${CONFIGURATIONS.join(", ")})`);
    if (out.includes(name as Configuration)) throw problem(`"${name}" is named twice`);
    out.push(name as Configuration);
  }
  if (!out.includes("with_skill"))
    throw problem("with_skill must be one of them: it is the skill under test, the one the gates and the delta are about");
  if (out.includes("old_skill") && !hasBaseline) throw problem("old_skill needs --baseline <dir>, the old snapshot it runs");
  if (hasBaseline && !out.includes("old_skill")) throw problem("--baseline is given but old_skill is not among the configurations");
  return out;
}
