export { Runner } from "./runner.js";
export type { RunnerOptions, Claim } from "./runner.js";
export type { RunnerHooks, ClaimKind } from "./hooks.js";
export type {
  TaskRun,
  CaseWork,
  DeliverablePathRequest,
  DeliverableFileRequest,
  CaseInputResolution,
  CaseExecuteRequest,
  CaseComparison,
  CaseOutcome,
  CompareRequest,
  CompareResult,
  JobWork,
  JobCostControls,
  ModelPrice,
  JobInputResolution,
  JobRuntime,
  PromptRendering,
  JobExecuteRequest,
  ArtifactCollection,
  RunInfo,
  RunEndInfo,
  SuiteRunReport,
} from "./flow-types.js";
export { applyReporters, checkReporterNames } from "./reporters.js";
export type { ReporterRequest } from "./reporters.js";
export { definePlugin, isPlugin } from "./plugin.js";
export type { SkillrigPlugin, PluginFactory } from "./plugin.js";
export * from "./errors.js";
export * from "./json-pointer.js";
export { jsonSyntaxProblem, jsonSyntaxError, parseJsonText, readJsonFile } from "./json-text.js";
export type { JsonSyntaxProblem, JsonSource } from "./json-text.js";
export { closestName, didYouMean } from "./closest-name.js";
export { projectPackageManager, addDevDependencyCommand, runScriptCommand } from "./package-manager.js";
export type { PackageManager } from "./package-manager.js";
export { loopbackHosts, loopbackRequestRefusal } from "./loopback-request.js";
export type { LoopbackRefusal, LoopbackRequest } from "./loopback-request.js";
export { schemaDialect, compileSchema, toViolations, formatViolations } from "./schema-validation.js";
export type { JsonSchema, SchemaValidatorOptions, CompiledSchema } from "./schema-validation.js";
export { precompiledSchemaModule, fromPrecompiled, schemaKey } from "./precompiled-schema.js";
export type { PrecompiledSchema } from "./precompiled-schema.js";
export type * from "./oracle-types.js";
export type * from "./job-types.js";
export type * from "./assertion-types.js";
export type * from "./sandbox.js";
export { agentBounds, AGENT_BOUND_KEYS, DEFAULT_AGENT_BOUNDS } from "./agent-bounds.js";
export type { AgentBounds, AgentBoundsConfig } from "./agent-bounds.js";
export { unconfinedAgentCommand } from "./agent-jail.js";
export { defineConfig } from "./config/define-config.js";
export { runsFolderOf, RUNS_DIR_ENV, DEFAULT_RUNS_DIR } from "./runs-folder.js";
export type { RunsFolderOptions } from "./runs-folder.js";
export type { SkillrigConfig, PluginEntry, SandboxLimitsConfig } from "./config/define-config.js";
export { loadConfig, findConfigFile, validateConfig, CONFIG_FILE_NAMES } from "./config/load-config.js";
export type { LoadedConfig, LoadConfigOptions } from "./config/load-config.js";
export {
  defineConfigSection,
  composeConfigSchema,
  baseConfigSchema,
  checkConfigSections,
  CORE_CONFIG_KEYS,
} from "./config/config-section.js";
export type { ConfigSection, SectionSource } from "./config/config-section.js";
export { resolvePlugins } from "./config/resolve-plugins.js";
export type { PluginSource } from "./config/resolve-plugins.js";
export { createRunner } from "./config/create-runner.js";
export type { CreateRunnerOptions } from "./config/create-runner.js";
export { openProjectRunner, loadProjectConfig, loadBuiltinSections } from "./project-runner.js";
export type {
  OpenProjectRunnerOptions,
  ProjectBuiltins,
  BuiltinImporter,
  BuiltinPluginModule,
  BuiltinSectionModule,
} from "./project-runner.js";
export { resolveCaseLimits, DEFAULT_LIMITS, DISK_ENTRY_LIMIT, timeBackstopMs } from "./limits.js";
export { notPrivate } from "./private-state.js";
export {
  assertNoTaskFiles,
  copyDeliverable,
  MAX_DELIVERABLE_FILES,
  MAX_DELIVERABLE_BYTES,
  SKIPPED_DELIVERABLE_FOLDERS,
} from "./deliverable-snapshot.js";
