export { startServer } from "./start-server.js";
export type { StartServerOptions, RunningServer } from "./start-server.js";
export { resolveServerSettings, isLoopbackHost, SERVER_DEFAULTS } from "./server-config.js";
export type { ServerSettings, ServerOverrides } from "./server-config.js";
export { createJobExecution } from "./job-execution.js";
export type { JobExecution, SkillListing, RunSkillJobOptions, RunOracleOptions } from "./job-execution.js";
export { runOracleRemotely } from "./client.js";
export type { RemoteOracleRunOptions } from "./client.js";
export type { ServerRole, QueueSettings } from "./server-config.js";
