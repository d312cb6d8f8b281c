import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Runner, type SkillrigConfig } from "@skillrig/core";
import { skillProtocolPlugin } from "@skillrig/skills";
import { ScriptEngine } from "./script-engine.mjs";

/** Real skill packages from leike0813/Skill-Runner (MIT; fixtures/skill-runner/SOURCE), copied into the repository. */
export const FIXTURE_SKILLS = resolve(import.meta.dirname, "../fixtures/skill-runner/skills");

export function tempDir(prefix = "skillrig-skills-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A runner whose config lists `roots` (default: the fixture skills), with the protocol plugin and the script engine. */
export function testRunner(options: { roots?: string[]; config?: SkillrigConfig; dir?: string } = {}): { runner: Runner; dir: string } {
  const dir = options.dir ?? tempDir();
  const runner = new Runner({
    cwd: dir,
    configDir: dir,
    config: { skills: { roots: options.roots ?? [FIXTURE_SKILLS] }, ...options.config },
  });
  runner.use(skillProtocolPlugin()).use(new ScriptEngine());
  return { runner, dir };
}

/** Writes `files` (path -> content; objects become JSON) under `root`. */
export function writeTree(root: string, files: Record<string, string | object>): string {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

/** A copy of a fixture skill under a fresh root, to break on purpose. */
export function copyFixture(id: string, root = join(tempDir(), "skills")): string {
  const target = join(root, id);
  cpSync(join(FIXTURE_SKILLS, id), target, { recursive: true });
  return target;
}

/** A minimal valid skill package, with overrides. */
export function makeSkill(
  root: string,
  id: string,
  parts: { runner?: object; skillMd?: string; input?: object; parameter?: object; output?: object } = {},
): string {
  const dir = join(root, id);
  writeTree(dir, {
    "SKILL.md": parts.skillMd ?? `---\nname: ${id}\ndescription: A test skill.\n---\n\n# ${id}\n`,
    "assets/runner.json": parts.runner ?? {
      id,
      name: `Test ${id}`,
      schemas: { input: "assets/input.schema.json", parameter: "assets/parameter.schema.json", output: "assets/output.schema.json" },
    },
    "assets/input.schema.json": parts.input ?? { type: "object", properties: {} },
    "assets/parameter.schema.json": parts.parameter ?? { type: "object", properties: {} },
    "assets/output.schema.json": parts.output ?? { type: "object", properties: {} },
  });
  return dir;
}
