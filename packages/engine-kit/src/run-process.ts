/**
 * The engine CLI's process runner is the process layer's (`@skillrig/process/run-process`): re-exported here, where
 * engine adapters and `runEngineJob` have always imported it from.
 */
export {
  describeProcessEnding,
  runProcess,
  type ProcessEnding,
  type ProcessIO,
  type ProcessRunOptions,
  type ProcessRunResult,
} from "@skillrig/process/run-process";
