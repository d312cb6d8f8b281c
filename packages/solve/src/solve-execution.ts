/**
 * Where a solve batch's work happens. `solve()` plans the batch, orders the attempts, counts pass@k and builds the
 * report; a SolveExecution does the three things that touch engines and hidden tests: checking an engine exists,
 * the reference check of a task, and one attempt. `localExecution` does them in this process; a jobs server's
 * client (`skillrig solve --server`) does them on the server's workers, so the report is built by the same code
 * either way and cannot differ in shape.
 */
import type { LoadedTask, Runner } from "@skillrig/core";
import type { AttemptResult, ReferenceCheck } from "./report.js";
import { checkReference } from "./reference-check.js";
import { runAttempt, type AttemptSpec } from "./run-attempt.js";

export interface SolveExecution {
  /** Throws `usage` (field --engine) when the engine cannot run where attempts run. */
  requireEngine(name: string): void | Promise<void>;
  /** The task's reference check (undefined without a reference solution); throws `invalid_task` for a broken task. */
  checkReference(loaded: LoadedTask, options: { jobs: number; signal?: AbortSignal }): Promise<ReferenceCheck | undefined>;
  /**
   * Whether solve() should render every (task, engine) job as a dry run before the batch. A server checks each
   * attempt when it is submitted instead, so its execution says false.
   */
  preflight: boolean;
  runAttempt(spec: AttemptSpec): Promise<AttemptResult>;
}

export function localExecution(runner: Runner): SolveExecution {
  return {
    requireEngine: (name) => void runner.requireClaim("engine", name, { field: "--engine" }),
    checkReference: (loaded, options) => checkReference(runner, loaded, options),
    preflight: true,
    runAttempt: (spec) => runAttempt(runner, spec),
  };
}
