export { skillProtocolPlugin, SkillProtocolPlugin } from "./skill-protocol-plugin.js";
export { skillProtocolPlugin as default } from "./skill-protocol-plugin.js";
export {
  checkSkill,
  loadSkill,
  findSkills,
  resolveSkill,
  skillRoots,
  checkSkillRoots,
  isSafeSkillId,
  runnerJsonSchema,
  SKILL_ID_PATTERN,
} from "./load-skill.js";
export type { SkillCheck, FoundSkill } from "./load-skill.js";
export { checkSpecFrontMatter, SPEC_FIELDS, SPEC_LIMITS } from "./spec-conformance.js";
export type { ProblemSource, SkillProblem } from "./spec-conformance.js";
export { inputFields, parameterNames, artifactsOf, workspaceFileKeyProblem } from "./protocol.js";
export {
  ENGINE_WORKSPACE_FOLDERS,
  RESERVED_WORKSPACE_FOLDERS,
  SKILL_DISCOVERY_DIRS,
  SKILL_INSTALL_DIRS,
  SKILLRIG_WORKSPACE_FOLDER,
} from "./workspace-folders.js";
export type { InputField } from "./protocol.js";
export { runJob, REQUEST_ERROR_CODES } from "./run-job.js";
export { checkJobRequest, engineOptionViolations } from "./job-request.js";
export type { CheckJobRequestOptions, ClientRequestRules } from "./job-request.js";
/** @deprecated core's `runsFolderOf` is the one rule (it honours $SKILLRIG_RUNS_DIR); this name stays for existing callers. */
export { runsFolderOf as runsDirOf } from "@skillrig/core";
export type { RunJobOptions } from "./run-job.js";
export { runFolderLayout, installedSkillDir, installSkill, SKILL_EVALS_FOLDER } from "./run-folder.js";
export { DEFAULT_PROMPT, templateContext } from "./render-prompt.js";
export { renderTemplate, checkTemplate } from "./template.js";
export { outputInstructions } from "./skill-patch.js";
export { ensurePythonEnv } from "./python-env.js";
export type { PythonEnv, PythonEnvOptions } from "./python-env.js";
export { checkFileExtensions, TEXT_EXTENSIONS } from "./file-extensions.js";
export { skillsConfigSection, runConfigSection } from "./config-section.js";
export { costConfigSection, jobCostControls, type CostConfig } from "./cost-config-section.js";
export type { SkillsConfig, RunConfig } from "./config-section.js";
export { InvocationBudget, type InvocationLimits, type InvocationSpend } from "./invocation-budget.js";
