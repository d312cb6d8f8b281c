#!/usr/bin/env node
/**
 * One flooded skill job in a process of its own, so its peak RSS is the job's: `node flood-job.js <root> <mode>
 * <MiB>` runs a job whose engine prints that much (`lines` or `giant`), with the config's defaults, and prints one
 * JSON line: the job's status and error code, the process's peak RSS, the run folder's size.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Runner } from "@skillrig/core";
import sandboxPlugin from "@skillrig/sandbox";
import { runJob, skillProtocolPlugin } from "@skillrig/skills";
import { FLOOD_ENGINE, floodEnginePlugin } from "./flood-engine.js";

function folderBytes(folder: string): number {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

const [root, mode, mib, binary] = process.argv.slice(2) as [string, string, string, string];
const skills = join(root, "flood-skills");
mkdirSync(join(skills, "flood-note"), { recursive: true });
writeFileSync(join(skills, "flood-note", "SKILL.md"), "---\nname: flood-note\ndescription: Answers with a note.\n---\n\n# flood-note\n");
const runner = new Runner({ cwd: root, configDir: root, config: { skills: { roots: [skills] } } });
runner.use(skillProtocolPlugin());
runner.use(floodEnginePlugin(binary));
runner.use(sandboxPlugin());
const started = performance.now();
const result = await runJob(
  runner,
  { skill_id: "flood-note", engine: FLOOD_ENGINE, prompt: `${mode} ${mib}` },
  { runsDir: join(root, "flood-runs") },
);
process.stdout.write(
  `${JSON.stringify({
    status: result.status,
    code: result.error?.code ?? null,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    runFolderBytes: folderBytes(result.run_dir),
    wallMs: performance.now() - started,
  })}\n`,
);
