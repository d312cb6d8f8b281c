/**
 * Sets up what an engine CLI sees: the run workspace with the skill under `.agents/skills/<id>/` (the
 * snapshot the skills package made, with the patched SKILL.md, without its evals/; no skill with
 * `skill_install: "none"`), the context file the CLI reads on start
 * (GEMINI.md, AGENTS.md), and a home and TMPDIR of its own so a user's ~/.gemini or ~/.codex (keys,
 * settings, memories, MCP servers) never leak into a job.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import type { JobExecuteRequest, JobWork, SkillInstall } from "@skillrig/core";

export interface EngineDirs {
  /** The CLI's working directory (`work.run.workspace`). */
  workspace: string;
  /** The skill copy the CLI discovers: `<workspace>/.agents/skills/<id>`. */
  skillDir: string;
  /** Per-engine scratch outside the workspace: `<run root>/engine/<engine>`. */
  engineDir: string;
  /** HOME for the CLI (`<engineDir>/home`). */
  home: string;
  /** TMPDIR for the CLI (`<engineDir>/tmp`); never a parent of `home` (codex refuses helper binaries under TMPDIR). */
  tmpdir: string;
  /** Folder for engine logs. */
  logsDir: string;
}

/** `work.run.logs` is a folder; a path with a file extension is taken as a file inside the folder to use. */
export function logsDirOf(logs: string): string {
  return extname(basename(logs)) !== "" ? dirname(logs) : logs;
}

export function engineDirs(request: JobExecuteRequest): EngineDirs {
  const { work } = request;
  const engineDir = join(work.run.root, "engine", work.engine);
  return {
    workspace: work.run.workspace,
    skillDir: join(work.run.workspace, ".agents", "skills", work.skill.id),
    engineDir,
    home: join(engineDir, "home"),
    tmpdir: join(engineDir, "tmp"),
    logsDir: logsDirOf(work.run.logs),
  };
}

/**
 * The context file text: the run's rules, and (`skill_install: "referenced"`, the default) where the skill is.
 * With "discoverable" or "none" it says nothing about any skill (no name, no path): whether the agent uses a
 * skill the engine discovered is the agent's own choice, which is what a trigger eval measures.
 */
/** What the context file says depends on: the job's id, its skill, and how the skill was installed. */
export interface ContextFileFacts {
  work: Pick<JobWork, "jobId" | "skill"> & { skillInstall?: SkillInstall };
}

export function contextFileText(request: ContextFileFacts, skillDir: string): string {
  const { skill, jobId } = request.work;
  const rules =
    "Follow the task you are given. Write every file you produce inside this workspace. Work without asking questions: nobody will answer.";
  if (skillInstallOf(request) !== "referenced") {
    // No job id either: a caller's job id may name the skill.
    return ["# skillrig run", "", "This folder is the workspace of one skillrig run.", rules, ""].join("\n");
  }
  return [
    `# skillrig job ${jobId}`,
    "",
    `This folder is the workspace of one run of the skill "${skill.name}" (${skill.id}).`,
    `The skill's instructions are in ${join(skillDir, "SKILL.md")}; its scripts and assets are beside it.`,
    rules,
    "",
  ].join("\n");
}

/** The job's skill install mode (`JobWork.skillInstall`; a JobWork built by hand without one is "referenced"). */
export function skillInstallOf(request: { work: { skillInstall?: SkillInstall } }): SkillInstall {
  return request.work.skillInstall ?? "referenced";
}

/**
 * Creates the folders, copies the skill (unless `skill_install` is "none"; never its top-level `evals/`) and
 * writes the context file. A context file already in the workspace (the skill's own) is kept and the run's
 * section is appended to it.
 */
export function prepareWorkspace(request: JobExecuteRequest, dirs: EngineDirs, contextFileName: string): void {
  for (const dir of [dirs.workspace, dirs.home, dirs.tmpdir, dirs.logsDir]) mkdirSync(dir, { recursive: true });
  const { work, prompt } = request;
  if (skillInstallOf(request) !== "none") {
    // runJob installs the skill already; copy only when it did not (a JobWork built by hand).
    if (existsSync(join(dirs.skillDir, "SKILL.md"))) {
      // installed
    } else if (existsSync(work.run.skillSnapshot)) {
      const evals = join(work.run.skillSnapshot, "evals");
      cpSync(work.run.skillSnapshot, dirs.skillDir, { recursive: true, filter: (source) => source !== evals });
    } else {
      mkdirSync(dirs.skillDir, { recursive: true });
    }
    if (prompt.skillMd !== undefined) writeFileSync(join(dirs.skillDir, "SKILL.md"), prompt.skillMd);
  }
  const contextFile = join(dirs.workspace, contextFileName);
  const section = contextFileText(request, dirs.skillDir);
  const existing = existsSync(contextFile) ? readFileSync(contextFile, "utf8") : "";
  writeFileSync(contextFile, existing === "" ? section : `${existing.trimEnd()}\n\n${section}`);
}
