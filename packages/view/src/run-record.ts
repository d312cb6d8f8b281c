/**
 * A recorded run's record (`record.json`, docs/view.md): its own module, so the runs folder and the eval folder
 * (which lists each iteration as a record) both read it without importing each other.
 */

/** The kinds of run that write a record.json. */
export type RunKind = "test" | "solve" | "run";

/** Every kind of record listed, in the order `runs list --kind` names them; eval iterations are read from their iteration.json. */
export const RUN_KINDS: readonly RunRecord["kind"][] = ["test", "solve", "run", "eval"];

export interface RunRecord {
  format: "skillrig-run-record";
  version: 1;
  /** The folder's name inside the runs folder. */
  id: string;
  kind: RunKind | "eval";
  /** The task id (test), the task ids (solve, comma-joined), the skill id (run) or the skill's name (eval). */
  name: string;
  engines: string[];
  started_at: string;
  duration_ms: number | null;
  /**
   * passed: everything passed or the job succeeded; failed: something did not pass; error: the run broke off;
   * running: an eval iteration still running (or one that was killed before it could say how it ended);
   * finished: an eval iteration that ran with no gate, so it neither passed nor failed (its numbers are the result).
   */
  status: "passed" | "failed" | "error" | "running" | "finished";
  passed: number | null;
  total: number | null;
  /** passed / total, null when nothing was counted; eval: the with_skill mean pass rate (passed and total are null). */
  pass_rate: number | null;
  /** The report's file name inside the folder. */
  report: string;
}
