import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Runner, type SkillrigPlugin } from "@skillrig/core";
import { skillProtocolPlugin } from "@skillrig/skills";

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

/** Live processes whose working directory or command line mentions `path`. */
export function processesUsing(path: string): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ");
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {
        // not ours to read
      }
      if (cmd.includes(path) || cwd.startsWith(path)) out.push({ pid: Number(name), cmd: cmd.slice(0, 200) });
    } catch {
      // gone
    }
  }
  return out;
}
