/**
 * One folder per job, the same layout every time, so a run can be inspected afterwards:
 *
 *   <runs_dir>/<job_id>/
 *     run.json        the request, skill, engine and where each upload came from
 *     uploads/        one file per file input, named exactly as the field
 *     skill/          snapshot of the skill package as it was when the job ran (its evals/ included; the
 *                     agent jail does not show the run folder, only the workspace)
 *     workspace/      the engine's working folder (`run_dir` in templates); the skill is installed
 *                     as workspace/.agents/skills/<id>/ with the patched SKILL.md, without its evals/
 *                     (not at all with skill_install "none")
 *     prompt.md       the rendered prompt
 *     SKILL.patched.md the SKILL.md the agent sees (rendered, with the output contract appended)
 *     logs/           events.jsonl (every engine event) and the engine plugin's own logs
 *     output.json     the final output (after artifact paths were settled)
 *     artifacts/      the collected artifact files, by x-filename
 *     result.json     the JobResult
 */
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RunFolder, SkillInstall, SkillManifest } from "@skillrig/core";

export function newJobId(skillId: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${skillId}-${randomBytes(3).toString("hex")}`;
}

export function runFolderLayout(root: string): RunFolder {
  const abs = resolve(root);
  return {
    root: abs,
    uploads: join(abs, "uploads"),
    workspace: join(abs, "workspace"),
    skillSnapshot: join(abs, "skill"),
    promptFile: join(abs, "prompt.md"),
    logs: join(abs, "logs"),
    outputFile: join(abs, "output.json"),
    artifacts: join(abs, "artifacts"),
  };
}

/**
 * Creates the run folder with the skill's snapshot. Fails if it exists (a job id is used once), unless all it holds
 * is `uploads/`: a jobs server unzips a job's upload straight into its run folder before the job runs.
 */
export function createRunFolder(runsDir: string, jobId: string, skill: SkillManifest): RunFolder {
  const run = runFolderLayout(join(runsDir, jobId));
  mkdirSync(runsDir, { recursive: true });
  const staged = hasOnlyUploads(run.root);
  if (!staged) mkdirSync(run.root);
  for (const dir of staged ? [run.workspace, run.logs, run.artifacts] : [run.uploads, run.workspace, run.logs, run.artifacts])
    mkdirSync(dir);
  copyTree(skill.dir, run.skillSnapshot);
  return run;
}

/**
 * Whether `root` is a run folder a jobs server made for an upload: a folder holding only `uploads/` (and the
 * staging folder of an extraction a crash broke off, which the server's zip extraction names `.uploads-staging-*`).
 */
function hasOnlyUploads(root: string): boolean {
  try {
    const entries = readdirSync(root, { withFileTypes: true }).filter((e) => !e.name.startsWith(".uploads-staging-"));
    return entries.length === 1 && entries[0]!.name === "uploads" && entries[0]!.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Copies a skill folder as `cpSync(from, to, { recursive: true, verbatimSymlinks: true })` would, without its
 * per-entry checks (cpSync lstat's every ancestor of every entry it copies): twice per job, this was most of a
 * jobs server's per-job CPU. `to` must not exist; `filter` leaves entries out.
 */
function copyTree(from: string, to: string, filter?: (source: string) => boolean): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (filter && !filter(source)) continue;
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target, filter);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isFile()) copyFileSync(source, target);
  }
}

/** The skill folder as the agent sees it inside the workspace. */
export function installedSkillDir(run: RunFolder, skillId: string): string {
  return join(run.workspace, ".agents", "skills", skillId);
}

/**
 * Copies the snapshot into the workspace at .agents/skills/<id>/ and writes the patched SKILL.md there; with
 * `skill_install: "none"` nothing is installed (undefined). Whatever the mode, the skill's top-level `evals/` folder
 * (expected outputs, assertions, trigger labels) is left out: the agent never sees how it is graded. Whether the
 * engine's context file names the skill (`referenced`) or not (`discoverable`) is the engine's workspace step.
 */
export function installSkill(run: RunFolder, skillId: string, skillMd: string, mode: SkillInstall = "referenced"): string | undefined {
  if (mode === "none") return undefined;
  const target = installedSkillDir(run, skillId);
  // SKILL.md is left out of the copy and written afresh: overwriting the just-copied file truncates it, which on
  // ext4 (auto_da_alloc) forces its blocks to disk first, a wait of milliseconds per job under load.
  const original = join(run.skillSnapshot, "SKILL.md");
  const evals = join(run.skillSnapshot, SKILL_EVALS_FOLDER);
  copyTree(run.skillSnapshot, target, (source) => source !== original && source !== evals);
  writeFileSync(join(target, "SKILL.md"), skillMd);
  return target;
}

/** The skill's folder of evals (the Agent Skills specification's `evals/`), never installed for the agent. */
export const SKILL_EVALS_FOLDER = "evals";
