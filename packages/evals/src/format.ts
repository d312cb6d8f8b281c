/**
 * The files of a skill's evals, as skillrig reads and writes them: the contract between `skillrig eval` (which
 * writes them), the viewer (which reads them) and a team's own scripts. Browser-safe: types and constants only.
 *
 * Read from the skill folder (the Agent Skills specification, docs/skill-creation/evaluating-skills.mdx and
 * optimizing-descriptions.mdx):
 *   evals/evals.json      EvalsFile      the cases, with or without assertions
 *   evals/triggers.json   TriggersFile   queries labelled should_trigger
 *
 * Written under the eval folder (`--out`, default `<runs_dir>/eval-<skill id>/`), one iteration per `skillrig eval`:
 *   iteration-<n>/
 *     iteration.json                      IterationRecord: what ran (skill, engines, configurations, runs, judge)
 *     eval-<id>/<configuration>/[<engine>/][run-<k>/]
 *       outputs/                          what the agent left in its workspace (skill copy excluded)
 *       answer.json                       RunAnswer: the agent's final answer, the job that ran, activation
 *       timing.json                       Timing (the specification's total_tokens and duration_ms)
 *       grading.json                      Grading (the specification's assertion results and summary)
 *     benchmark.json                      Benchmark (the specification's run_summary with delta, per engine too)
 *     triggers.json                       TriggerReport (when evals/triggers.json exists)
 *
 * The `<engine>/` level is there only when the iteration ran more than one engine, `run-<k>/` only with `--runs`
 * above 1, so a one-engine, one-run iteration is exactly the specification's layout. Every run's folder is also
 * listed in benchmark.json (`runs[].path`), so no reader has to guess the layout.
 */

export const EVAL_FORMAT_VERSION = 1;

/** The configurations an iteration can run: the specification's names. */
export type Configuration = "with_skill" | "without_skill" | "old_skill";

// ---------------------------------------------------------------------------------------------------------------
// Read from the skill

/** A deterministic assertion: what code can decide, graded by skillrig, never by a model. */
export type DeterministicAssertion =
  /** A file in outputs/ (or, without `path`, the final answer) contains `value`. */
  | { kind: "file_contains"; path?: string; value: string; text?: string }
  /** A file in outputs/ (or the final answer) matches `pattern` (a JavaScript regular expression; `flags` optional). */
  | { kind: "regex"; path?: string; pattern: string; flags?: string; text?: string }
  /** A file in outputs/ (or the final answer) is JSON valid against `schema` (inline JSON Schema). */
  | { kind: "json_schema"; path?: string; schema: Record<string, unknown>; text?: string }
  /** `command` run in the sandbox with a copy of outputs/ as its folder: exit 0 is passed. */
  | { kind: "script"; command: string; timeout_ms?: number; text?: string }
  /** The oracle grades the code at `deliverable` (a path in outputs/) on the task's hidden tests. */
  | { kind: "oracle"; task: string; deliverable: string; text?: string };

/** A plain string is graded by the judge (an engine); an object is one of skillrig's deterministic kinds. */
export type Assertion = string | DeterministicAssertion;

export interface EvalCase {
  /** The specification uses integers; strings are accepted too (the folder is `eval-<id>`). */
  id: number | string;
  prompt: string;
  expected_output?: string;
  /** Paths relative to the skill folder (e.g. `evals/files/sales.csv`); copied into the run's workspace. */
  files?: string[];
  assertions?: Assertion[];
  /** Anthropic's skill-creator spelling of `assertions`; read the same way (never both). */
  expectations?: Assertion[];
}

export interface EvalsFile {
  skill_name: string;
  evals: EvalCase[];
}

export interface TriggerQuery {
  query: string;
  should_trigger: boolean;
  /** A fixed split of one's own; without it skillrig assigns one (stable, stratified, ~60% train). */
  split?: "train" | "validation";
}

/** `evals/triggers.json`: the specification's eval_queries.json array, or `{ "queries": [...] }`. */
export type TriggersFile = TriggerQuery[] | { queries: TriggerQuery[] };

// ---------------------------------------------------------------------------------------------------------------
// Written per run

/** One assertion's result: the specification's shape, plus who graded it. */
export interface AssertionResult {
  text: string;
  passed: boolean;
  evidence: string;
  /** `judge` for a plain-string assertion, else the deterministic kind. */
  graded_by: "judge" | DeterministicAssertion["kind"];
}

/** grading.json */
export interface Grading {
  assertion_results: AssertionResult[];
  summary: { passed: number; failed: number; total: number; pass_rate: number };
  /** Why grading could not finish for some assertion (the judge failed, ...): those count as failed. */
  errors?: string[];
}

/** timing.json (the specification's two fields, and skillrig's split of them). */
export interface Timing {
  total_tokens: number;
  duration_ms: number;
  input_tokens?: number;
  output_tokens?: number;
  /** The job's engine time (the rest of duration_ms is skillrig's set-up and collection). */
  engine_ms?: number;
}

/** answer.json: what the run answered and how it ran; the job's own folder keeps the whole record. */
export interface RunAnswer {
  eval_id: number | string;
  configuration: Configuration;
  engine: string;
  run_number: number;
  job_id: string;
  /** The job folder (prompt, events, logs), absolute. */
  job_dir: string;
  status: "succeeded" | "failed" | "canceled";
  /** The final answer: text for a plain skill, the output JSON for a skill with an output schema. */
  answer?: unknown;
  error?: { code: string; message: string };
  /** Skills the agent activated (the normalised `skill_activated` event). */
  skills_activated: string[];
  /** Entries of the workspace not copied to outputs/ (links, special files, over the size cap), with why. */
  outputs_skipped?: Array<{ path: string; reason: string }>;
}

// ---------------------------------------------------------------------------------------------------------------
// Written per iteration

export interface Stat {
  mean: number;
  stddev: number;
  min?: number;
  max?: number;
}

export interface ConfigurationSummary {
  pass_rate: Stat;
  time_seconds: Stat;
  tokens: Stat;
  runs: number;
}

/** The specification's run_summary: one entry per configuration, and `delta` (first configuration minus second). */
export interface RunSummary {
  [configuration: string]: ConfigurationSummary | RunDelta | undefined;
  delta?: RunDelta;
}

export interface RunDelta {
  /** Which configurations: `with_skill` minus `without_skill` (or `old_skill`). */
  of: [string, string];
  pass_rate: number;
  time_seconds: number;
  tokens: number;
}

export interface BenchmarkRun {
  eval_id: number | string;
  configuration: Configuration;
  engine: string;
  run_number: number;
  /** The run's folder, relative to the iteration folder. */
  path: string;
  result: {
    status: "succeeded" | "failed" | "canceled";
    pass_rate: number;
    passed: number;
    failed: number;
    total: number;
    time_seconds: number;
    tokens: number;
  };
}

/** benchmark.json */
export interface Benchmark {
  format: "skillrig-eval-benchmark";
  version: typeof EVAL_FORMAT_VERSION;
  metadata: {
    skill_name: string;
    skill_path: string;
    iteration: number;
    timestamp: string;
    engines: string[];
    configurations: Configuration[];
    evals_run: Array<number | string>;
    runs_per_configuration: number;
    judge?: string;
  };
  /** Across every engine (the specification's shape). */
  run_summary: RunSummary;
  /** The same summary per engine. */
  by_engine: Record<string, RunSummary>;
  runs: BenchmarkRun[];
  /** Per case and configuration: the mean pass rate over engines and runs (what --min-pass-rate checks). */
  by_eval: Array<{ eval_id: number | string; configuration: Configuration; pass_rate: number }>;
}

/** triggers.json (in the iteration folder) */
export interface TriggerReport {
  format: "skillrig-trigger-report";
  version: typeof EVAL_FORMAT_VERSION;
  skill_name: string;
  runs_per_query: number;
  /** A query passes when its trigger rate is above this (should_trigger) or not above it (should not). */
  threshold: number;
  queries: Array<{
    query: string;
    should_trigger: boolean;
    split: "train" | "validation";
    engine: string;
    triggers: number;
    runs: number;
    trigger_rate: number;
    passed: boolean;
    /** The job ids of the runs, for their event logs. */
    jobs: string[];
  }>;
  /** Per engine and split: how many queries passed. */
  summary: Record<string, { train: { passed: number; total: number }; validation: { passed: number; total: number } }>;
}

/** iteration.json: written first, so an iteration that broke off still says what it was running. */
export interface IterationRecord {
  format: "skillrig-eval-iteration";
  version: typeof EVAL_FORMAT_VERSION;
  skill_name: string;
  skill_path: string;
  iteration: number;
  started_at: string;
  finished_at?: string;
  engines: string[];
  configurations: Configuration[];
  runs_per_configuration: number;
  judge?: string;
  baseline_path?: string;
  status: "running" | "passed" | "failed" | "error";
  min_pass_rate?: number;
}
