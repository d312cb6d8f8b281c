/**
 * The checks a job request passes before anything is written: it names an engine, the skill exists and supports
 * it, the skill can run unattended and a plugin runs the engine. Each failure is a SkillrigError thrown to the
 * caller (no run folder exists yet). Returns the skill: the one given (loaded once by the caller), else the
 * request's `skill_id` resolved.
 */
import { SkillrigError, type JobRequest, type Runner, type SkillManifest } from "@skillrig/core";
import { requestError } from "./job-errors.js";
import { resolveSkill } from "./load-skill.js";
import { displayPath } from "./paths.js";
import { promptAndInstallViolations, unsupportedEngineMessage } from "./protocol.js";

export function checkJobRequest(runner: Runner, request: JobRequest, loaded?: SkillManifest): SkillManifest {
  if (typeof request.engine !== "string" || request.engine === "") {
    throw new SkillrigError("usage", "the job names no engine", { field: "engine", hint: "skillrig run <skill> --engine <name>" });
  }
  const skill = loaded ?? resolveSkill(runner, request.skill_id);
  checkPromptAndInstall(skill, request);
  const unsupported = unsupportedEngineMessage(skill, request.engine);
  if (unsupported) {
    throw new SkillrigError("engine_not_found", unsupported, { file: displayPath(skill.runnerFile), pointer: "/engines", field: "engine" });
  }
  // A dry run only renders the prompt: it shows an interactive skill's prompt too, with any engine named.
  if (request.options?.dry_run === true) return skill;
  refuseInteractiveOnly(skill);
  runner.requireClaim("engine", request.engine, { field: "engine" });
  return skill;
}

/**
 * A job runs unattended: nobody answers an agent's questions. A skill that only runs interactively would ask, wait
 * and end as malformed_output minutes later; it is refused before anything runs.
 */
function refuseInteractiveOnly(skill: SkillManifest): void {
  const modes = skill.runner.execution_modes;
  if (!Array.isArray(modes) || modes.length === 0 || modes.includes("auto")) return;
  throw new SkillrigError(
    "invalid_skill",
    `skill "${skill.id}" needs interactive answers (execution_modes: ${JSON.stringify(modes)}), and skillrig runs jobs unattended: nobody would answer the agent's questions`,
    {
      file: displayPath(skill.runnerFile),
      pointer: "/execution_modes",
      field: "execution_modes",
      hint: 'add "auto" to execution_modes if the skill can work without asking (its SKILL.md then tells the agent not to ask)',
    },
  );
}

/**
 * What only the skill's kind decides (`promptAndInstallViolations` in protocol.ts, which the jobs server asks too):
 * a plain Agent Skill needs `prompt`, a runner.json skill refuses it; `options.skill_install` is one of the modes.
 */
export function checkPromptAndInstall(skill: SkillManifest, request: JobRequest): void {
  const violations = promptAndInstallViolations(skill, request);
  if (violations.length > 0) throw requestError(violations);
}
