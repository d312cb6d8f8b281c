import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Runner, type SkillrigPlugin } from "@skillrig/core";
import { skillProtocolPlugin } from "@skillrig/skills";

export { processesUsing } from "@skillrig/engine-kit";

export const FIXTURE_SKILLS = resolve(import.meta.dirname, "fixtures/skills");

export function tempDir(prefix = "skillrig-engine-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A runner with the skills protocol plugin and `engine`, its config listing the fixture skills. */
export function engineRunner(engine: SkillrigPlugin): { runner: Runner; dir: string } {
  const dir = tempDir();
  const runner = new Runner({ cwd: dir, configDir: dir, config: { skills: { roots: [FIXTURE_SKILLS] } } });
  runner.use(skillProtocolPlugin()).use(engine);
  return { runner, dir };
}
