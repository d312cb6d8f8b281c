/**
 * Distractors (`--distractors DIR`): trigger evals with the skill among neighbours, as it sits in real use. Every
 * skill folder of DIR (a folder with a SKILL.md; folders whose name starts with "." are passed over) is installed
 * beside the skill under test in every trigger run, where the engines discover skills: `.agents/skills/<id>/` (Gemini
 * CLI, Codex CLI, where runJob installs the skill under test) and `.claude/skills/<id>/` (Claude Code, which looks
 * only there). A neighbour's should_trigger queries (its own evals/triggers.json) run too: on those the skill under
 * test should stay quiet. Each run records which skill the agent activated first (`fired`); the confusion table
 * counts them (stats/confusion in run-triggers.ts).
 *
 * A neighbour is the user's own folder, yet what is copied into the agent's workspace is bounded to what a skill
 * is: folders and regular files, never a link (a link could show the agent a host file) and never the neighbour's
 * evals/ (its trigger labels).
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { SkillrigError, type SkillManifest } from "@skillrig/core";
import { loadSkill, SKILL_DISCOVERY_DIRS, SKILL_EVALS_FOLDER } from "@skillrig/skills";
import { loadTriggers } from "./load-evals.js";

export interface Distractor {
  skill: SkillManifest;
  /** Its should_trigger queries (from its evals/triggers.json; none without one). */
  queries: string[];
}

export interface LoadedDistractors {
  /** DIR, absolute. */
  dir: string;
  skills: Distractor[];
}

/**
 * Reads DIR's skill folders. Refused (usage, exit 2) before anything runs: DIR missing or not a folder, no skill in
 * it, a subfolder without SKILL.md, two skills (or a neighbour and the skill under test) with one id or one name.
 */
export function loadDistractors(
  dirArg: string,
  underTest: Pick<SkillManifest, "id" | "name" | "dir">,
  cwd = process.cwd(),
): LoadedDistractors {
  const dir = resolve(cwd, dirArg);
  const problem = (message: string, file = dir) =>
    new SkillrigError("usage", `--distractors ${dirArg}: ${message}`, { field: "--distractors", file });
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw problem(`${dir} is not a folder`);
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort();
  const skills: Distractor[] = [];
  const taken = new Map<string, string>([
    [underTest.id, "the skill under test"],
    [underTest.name, "the skill under test"],
  ]);
  for (const name of folders) {
    const folder = join(dir, name);
    if (resolve(folder) === resolve(underTest.dir))
      throw problem(`${name}/ is the skill under test itself; put only its neighbours in the folder`, folder);
    if (!existsSync(join(folder, "SKILL.md"))) throw problem(`${name}/ has no SKILL.md: every folder in it must be a skill`, folder);
    const skill = loadSkill(folder);
    for (const key of new Set([skill.id, skill.name])) {
      const other = taken.get(key);
      if (other) throw problem(`${name}/ is named "${key}", as ${other} is: each installed skill needs its own name`, folder);
      taken.set(key, `${name}/`);
    }
    const queries = (loadTriggers(skill)?.queries ?? []).filter((q) => q.should_trigger).map((q) => q.query);
    skills.push({ skill, queries });
  }
  if (skills.length === 0) throw problem("no skill folder in it (a folder with a SKILL.md)");
  return { dir, skills };
}

/** Copies folders and regular files only (no link, no special file), leaving out `skip`. */
function copySkillFiles(from: string, to: string, skip: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (source === skip) continue;
    const stat = lstatSync(source);
    if (stat.isDirectory()) copySkillFiles(source, join(to, entry.name), skip);
    else if (stat.isFile()) copyFileSync(source, join(to, entry.name));
  }
}

/** Installs every neighbour in a job's workspace, in each engine's skills folder (before the engine starts). */
export function installDistractors(workspace: string, distractors: LoadedDistractors): void {
  // Every folder an engine discovers skills in, so a neighbour is listed wherever the skill under test is.
  for (const { skill } of distractors.skills)
    for (const where of SKILL_DISCOVERY_DIRS)
      copySkillFiles(skill.dir, join(workspace, where, skill.id), join(skill.dir, SKILL_EVALS_FOLDER));
}

/** The installed skill an activation names (by id or SKILL.md name), as its name; the activation's own text when it names none. */
export function firedSkill(activated: string, installed: Array<Pick<SkillManifest, "id" | "name">>): string {
  return installed.find((s) => s.id === activated || s.name === activated)?.name ?? activated;
}
