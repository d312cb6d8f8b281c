export {
  cleanRuns,
  folderSafeName,
  listRunRecords,
  newRunId,
  parseAge,
  readRunRecord,
  recordExistingFolder,
  writeRunRecord,
  type CleanOptions,
  type CleanResult,
  type NewRecord,
  type RunKind,
  type RunRecord,
} from "./runs-folder.js";
export { startViewServer, type RunningView, type ViewServerOptions } from "./view-server.js";
