export type { EngineAdapter, EngineDriveIO, EngineRunContext, EngineInvocation, StreamParser, EngineFailure } from "./adapter.js";
export { createEnginePlugin } from "./engine-plugin.js";
export type { EnginePluginClass } from "./engine-plugin.js";
export {
  runEngineJob,
  repairPrompt,
  defaultFinalAnswer,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  MOCK_API_KEY,
} from "./run-engine-job.js";
export { runProcess } from "./run-process.js";
export { describeProcessEnding, type ProcessEnding, type ProcessIO, type ProcessRunOptions, type ProcessRunResult } from "./run-process.js";
// The tree look-ups moved to @skillrig/process with the runner; re-exported, as they were engine-kit's API.
export { processTree, processGroupMembers, processesUsing, type LiveProcess } from "@skillrig/process";
export { parseJsonOutput, outermostJsonSpan } from "./json-output.js";
export { fileChangeTracker, type FileChangeTracker } from "./file-changes.js";
export { SKILL_TOOLS, skillActivations, skillFromToolCall, skillsReadByCommand, type SkillActivations } from "./skill-activation.js";
export type { JsonOutputResult } from "./json-output.js";
export { engineOptionsSchema, createOptionsValidator, BASE_OPTION_PROPERTIES } from "./options.js";
export type { BaseEngineOptions } from "./options.js";
export { engineDirs, prepareWorkspace, contextFileText, logsDirOf, skillInstallOf, type ContextFileFacts } from "./workspace.js";
export type { EngineDirs } from "./workspace.js";
export { engineEnv } from "./env.js";
export type { EngineEnvInput } from "./env.js";
export { detectVersion, versionFromPackage } from "./version.js";
export { resolvePackageBin } from "./package-bin.js";
export { AGENT_FILE_MAX_BYTES, makeRunnerFolder, openForAgent, readAgentFile, removeAgentFile, writeRunnerFile } from "./agent-files.js";
export { replayCapture, type RecordedRun } from "./replay-capture.js";
export { confineEngine, writeLoginProfile, type AgentSandboxSource, type EngineJailInput } from "./engine-jail.js";
export {
  ALL_JAIL_ESCAPES_BLOCKED,
  ALL_PRIVILEGES_ESCAPED,
  jailEscapeCommand,
  jailEscapeVerdicts,
  jailProbeErrors,
  PRIVILEGE_PROBES,
  privilegeVerdicts,
  unconfinedConfinement,
  PROBE_NAMES,
  setUpJailEscapeTargets,
  type JailEscapeSetup,
  type JailEscapeTargets,
} from "./jail-escape-probes.js";
export { engineUsage, usageCounts, addUsageCounts, type ReportedUsage } from "./usage-record.js";
export { shippedPriceTable, priceTable, priceOf, costOf, priceModels, roundUsd, type PriceTable, type PricedModels } from "./pricing.js";
export {
  startMeteringProxy,
  DEFAULT_METER_BOUNDS,
  UNNAMED_MODEL,
  type MeteringProxy,
  type MeteringProxyOptions,
  type MeteredTotals,
  type ModelCallEnd,
} from "./metering-proxy.js";
export { readUsage, type UsageReading } from "./usage-readers.js";
export { eventShape, eventShapeDiff, type EventShape } from "./event-shape.js";
export { classifyInfrastructure, type RunFacts } from "./infrastructure-failure.js";
