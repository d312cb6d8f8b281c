export {
  CLOCK_TICKS_PER_SECOND,
  environHas,
  listFds,
  listOwnFds,
  listPids,
  ownFdFlags,
  parseStat,
  readAllStats,
  readArgv,
  readCwd,
  readEnviron,
  readNamespace,
  readProportionalBytes,
  readRealUid,
  readResidentBytes,
  readStat,
  readUidMap,
  statFd,
  type IdMapRange,
  type ProcStat,
  type ProcTarget,
} from "./proc-fs.js";
export {
  childrenByParent,
  descendantsOf,
  isAlive,
  pidsWhere,
  processGroupMembers,
  processTree,
  processesOfUid,
  processesUsing,
  processesWithEnvironment,
  type LiveProcess,
} from "./process-tree.js";
export { signalGroupAndKnown, signalQuietly, stopThenKill, sweepTree, terminateTree, waitUntilGone } from "./stop.js";
export { folderUsage } from "./folder-usage.js";
export { cleanUpOnExit, pendingExitCleanups } from "./exit-handlers.js";
export {
  describeProcessEnding,
  endingOfExit,
  FILE_SIZE_EVIDENCE,
  MEMORY_EVIDENCE,
  type ProcessEnding,
} from "./process-end.js";
export { OutputBudget, readBoundedLines, type OutputBound, type OutputBounds, type OutputLimitHit } from "./bounded-lines.js";
