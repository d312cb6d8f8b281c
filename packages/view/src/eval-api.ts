/**
 * What the view server's eval routes answer (view-server.ts, eval-folder.ts), typed once for the server and the web
 * app. Types only, browser-safe: the web app imports it too.
 */
import type {
  AssertionResult,
  Benchmark,
  Grading,
  IterationRecord,
  RunAnswer,
  RunDelta,
  Timing,
  TriggerReport,
} from "@skillrig/evals/format";

export interface IterationSummary {
  n: number;
  status: IterationRecord["status"] | "unknown";
  started_at: string | null;
  finished_at: string | null;
  engines: string[];
  configurations: string[];
  /** Each configuration's mean pass rate across engines (benchmark.json's run_summary). */
  pass_rates: Record<string, number>;
  delta: RunDelta | null;
  /** What could not be read: iteration.json or benchmark.json missing or not valid. */
  problems: string[];
}

export interface EvalSummary {
  /** The eval folder's name inside the runs folder. */
  id: string;
  skill_name: string;
  /** Newest first. */
  iterations: IterationSummary[];
}

export interface IterationDetail {
  id: string;
  n: number;
  iteration: IterationRecord | null;
  iteration_problem: string | null;
  benchmark: Benchmark | null;
  benchmark_problem: string | null;
  /** null without a problem: the iteration ran no trigger evals. */
  triggers: TriggerReport | null;
  triggers_problem: string | null;
}

export interface OutputEntry {
  /** Relative to outputs/, with `/`. */
  path: string;
  type: "file" | "link" | "other";
  size: number;
}

export interface RunDetail {
  /** The run's folder, relative to the iteration folder. */
  path: string;
  answer: RunAnswer | null;
  answer_problem: string | null;
  grading: Grading | null;
  grading_problem: string | null;
  timing: Timing | null;
  timing_problem: string | null;
  outputs: OutputEntry[];
  /** Entries past MAX_OUTPUT_ENTRIES, not listed. */
  outputs_unlisted: number;
  outputs_problem: string | null;
  /** Files above this many bytes are not shown inline. */
  max_shown_bytes: number;
}

/** One run's assertions, for comparing two iterations. */
export interface RunAssertions {
  eval_id: number | string;
  configuration: string;
  engine: string;
  run_number: number;
  path: string;
  assertions: Array<Pick<AssertionResult, "text" | "passed">> | null;
  problem: string | null;
}
