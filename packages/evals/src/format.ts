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

import type { InfrastructureFailure, InfrastructureFailureType } from "@skillrig/core";
import type { PairedDelta } from "@skillrig/stats";
import type { RunAttempt } from "./infrastructure-retries.js";

export type { PairedDelta };

export const EVAL_FORMAT_VERSION = 1;

/**
 * The configurations an iteration can run: the specification's names, and skillrig's `inline_skill` (the skill's
 * SKILL.md and the files it references pasted into the prompt, nothing installed: content without discovery).
 */
export type Configuration = "with_skill" | "without_skill" | "old_skill" | "inline_skill";

/** Every configuration, in the order a pair's delta is taken: an earlier one minus a later one. */
export const CONFIGURATIONS: readonly Configuration[] = ["with_skill", "old_skill", "inline_skill", "without_skill"];

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
  | { kind: "oracle"; task: string; deliverable: string; text?: string }
  | TrajectoryAssertion;

/**
 * The normalised kind of a tool call, the same on every engine (docs/evals.md, "Trajectory assertions"): `shell`
 * (Bash, run_shell_command, codex's shell), `read`, `edit` (writes, edits, patches), `search` (grep, glob, list),
 * `fetch` (web fetch and search), `skill` (Skill, activate_skill), `other`.
 */
export type ToolKind = "shell" | "read" | "edit" | "search" | "fetch" | "skill" | "other";

/**
 * Which tool calls a trajectory assertion means: by normalised kind, by the engine's own tool name, or both, and
 * optionally `args`, an RE2 pattern searched in the call's argument text (a shell call's command, else its JSON).
 */
export interface ToolCallMatcher {
  tool_kind?: ToolKind;
  tool?: string;
  args?: string;
}

/** A file change as trajectory assertions name it (the job's `file_change` event: add, update, delete). */
export type FileChangeKind = "added" | "updated" | "deleted";

/** How the agent got there: assertions over the job's normalised event log (logs/events.jsonl). */
export type TrajectoryAssertion =
  /** At least one tool call matches. */
  | ({ kind: "tool_used"; text?: string } & ToolCallMatcher)
  /** No tool call matches. */
  | ({ kind: "tool_not_used"; text?: string } & ToolCallMatcher)
  /** Tool calls match `steps` in this order (other calls between them allowed). */
  | { kind: "tool_sequence"; steps: ToolCallMatcher[]; text?: string }
  /** The run's steps (tool calls) are at most `max` and at least `min`. */
  | { kind: "step_count"; max?: number; min?: number; text?: string }
  /** A file whose workspace-relative path fully matches the RE2 pattern `path` was changed (`change`: how). */
  | { kind: "file_changed"; path: string; change?: FileChangeKind; text?: string }
  /** The agent activated the skill named `skill` (the normalised `skill_activated` event). */
  | { kind: "skill_activated"; skill: string; text?: string };

/**
 * An assertion of a kind a plugin declares (core's `assertion` hook): its `kind`, an optional `text`, and the
 * fields the kind's schema allows.
 */
export type PluginAssertion = { kind: string; text?: string } & Record<string, unknown>;

/**
 * A plain string is graded by the judge (an engine; shorthand for `{ "kind": "judge", "text": ... }`); an object is
 * one of skillrig's deterministic kinds or a plugin's kind.
 */
export type Assertion = string | DeterministicAssertion | PluginAssertion;

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
  /** The kind that graded it: `judge` for a plain-string assertion, else the assertion's `kind` (a plugin's too). */
  graded_by: string;
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
  /** What the run's model calls cost (USD, from the price table); null when its model is unpriced. Beside the specification's fields. */
  cost_usd?: number | null;
  cached_input_tokens?: number;
  reasoning_tokens?: number;
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
  /** Jobs the run took: 1, or more when it was lost to its infrastructure and retried (`--retries`). */
  attempts?: number;
  /** Each attempt's job and, for a lost one, its infrastructure failure (only when there was more than one). */
  attempt_history?: RunAttempt[];
  /** The run's last attempt was lost to its infrastructure too: not a result of the skill, left out of the pass rate. */
  infrastructure_failure?: InfrastructureFailure;
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
  /** The runs these figures are over (runs lost to their infrastructure are not among them). */
  runs: number;
  /** What the configuration's runs cost (beside the specification's fields). */
  cost_usd?: CostSummary;
  /** Runs left out of the figures: every attempt was lost to its infrastructure (`--retries`), so they say nothing of the skill. */
  infrastructure_failures?: number;
}

/** USD of a set of runs: the sum and the mean per run of the priced ones; runs whose model has no price are counted apart. */
export interface CostSummary {
  total: number;
  mean: number;
  unpriced_runs: number;
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
  /**
   * skillrig's addition beside the specification's bare numbers: the pass-rate delta paired by eval case (each
   * case's mean pass rate in the second configuration, then the first), with its 95% interval and p-value. Inside
   * `delta`, not beside it in run_summary, because the specification's readers take every other key of run_summary
   * for a configuration.
   */
  paired?: { pass_rate: PairedDelta };
  /** Mean USD per run: `before` the compared configuration's, `after` with_skill's. */
  cost_usd?: { before: number; after: number; delta: number };
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
    /** USD; null when the run's model has no price. */
    cost_usd?: number | null;
    /** Jobs the run took (`--retries` re-runs one lost to its infrastructure). */
    attempts?: number;
    /** Set when every attempt was lost to its infrastructure: the run is left out of run_summary, by_engine and by_eval. */
    infrastructure_failure?: InfrastructureFailureType;
  };
}

/** One pair's delta: `of[0]` minus `of[1]`, across engines (`engine` null) or on one engine. */
export interface PairDelta extends RunDelta {
  engine: string | null;
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
  /**
   * Every pair of the iteration's configurations (the earlier in CONFIGURATIONS minus the later: with_skill -
   * inline_skill, with_skill - without_skill, inline_skill - without_skill), across engines then per engine, each
   * with its paired pass-rate delta. run_summary.delta keeps the specification's one pair.
   */
  deltas?: PairDelta[];
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
    /** The Wilson 95% interval of the trigger rate (`triggers` of `runs`). */
    trigger_rate_ci95?: [number, number] | null;
    passed: boolean;
    /** The job ids of the runs, for their event logs. */
    jobs: string[];
    /** Per run (as `jobs`): the skill the agent activated first (its SKILL.md name), null when none. */
    fired?: Array<string | null>;
  }>;
  /** Per engine and split: how many queries passed. */
  summary: Record<string, { train: { passed: number; total: number }; validation: { passed: number; total: number } }>;
  /** With `--distractors`: the neighbours installed beside the skill, their queries' runs, and the confusion table. */
  distractors?: DistractorReport;
}

/** A count out of n, its rate and Wilson 95% interval (null with n 0). */
export interface CountOfN {
  count: number;
  n: number;
  rate: number | null;
  ci95: [number, number] | null;
}

/**
 * Trigger evals among neighbours (`--distractors DIR`): every skill folder of DIR installed beside the skill under
 * test in every trigger run, and the neighbours' own should_trigger queries (their evals/triggers.json) run too.
 */
export interface DistractorReport {
  /** The neighbours: name, folder, and how many of their queries ran (their should_trigger ones). */
  skills: Array<{ name: string; path: string; queries: number }>;
  /** The neighbours' queries, one entry per query and engine; `owner` is the neighbour whose query it is. */
  queries: Array<{ query: string; owner: string; engine: string; runs: number; jobs: string[]; fired: Array<string | null> }>;
  /**
   * Per engine, then across engines (`engine` null). Rows: whose queries (`owner`: the skill under test's
   * should_trigger queries, then each neighbour's); `fired`: in how many of those runs each skill was activated
   * first (`none`: no skill), of `n` runs.
   */
  confusion: Array<{
    engine: string | null;
    rows: Array<{ owner: string; fired: Record<string, number>; none: number; n: number }>;
    /** The skill under test activated first on its own should_trigger queries. */
    picked: CountOfN;
    /** The skill under test activated first on a neighbour's query (it stole the query). */
    fired_on_neighbours: CountOfN;
  }>;
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
  /**
   * `finished`: it ran with no gate (no --min-pass-rate, no --fail-on), so it neither passed nor failed; `passed` /
   * `failed`: its gate's verdict; `error`: it broke off.
   */
  status: "running" | "finished" | "passed" | "failed" | "error";
  min_pass_rate?: number;
  /** The gate on the comparison with an earlier iteration (`--fail-on`), when one was asked for. */
  fail_on?: "regression" | "significant" | "never";
  /** The iteration it was compared with (the one before, or `--against N`); comparison.json holds the numbers. */
  compared_with?: number;
  /** With the inline_skill configuration: what its prompt carried (the files, their bytes, what was left out and why). */
  inline_skill?: InlineSkillRecord;
  /** With `--distractors`: the folder of neighbour skills installed beside the skill in the trigger runs. */
  distractors_path?: string;
  /** Why it broke off early, when the invocation's budget did (`--max-cost-usd`, `--max-tokens`): status `error`. */
  stopped?: { code: "cost_limit"; message: string };
}

/** What an inline_skill prompt carried: SKILL.md and the files it references, their bytes, the bound. */
export interface InlineSkillRecord {
  files: Array<{ path: string; bytes: number }>;
  bytes: number;
  max_bytes: number;
  /** Paths SKILL.md names that were not given, with why (a link out of the skill, a folder, evals/, not text). */
  left_out?: Array<{ path: string; reason: string }>;
}

/** comparison.json (in the iteration folder): this iteration against an earlier one of the same skill. */
export interface IterationComparison {
  format: "skillrig-eval-comparison";
  version: typeof EVAL_FORMAT_VERSION;
  before: number;
  after: number;
  /** Per configuration, across engines and per engine: the mean pass rate paired by eval case. */
  configurations: Array<{ configuration: string; engine: string | null; pass_rate: PairedDelta }>;
  /** Per case and configuration (across engines): the mean pass rate before and after. */
  cases: Array<{ eval_id: number | string; configuration: string; before: number | null; after: number | null; fell: boolean }>;
  /** A case's with_skill pass rate fell. */
  regression: boolean;
  /** with_skill's pass rate fell and the fall is not noise (interval below 0, p < 0.05). */
  significant_drop: boolean;
}

// The JSON Schemas of the files above, for readers that check what they read (the viewer).
export { ANSWER_SCHEMA, BENCHMARK_SCHEMA, GRADING_SCHEMA, ITERATION_SCHEMA, TIMING_SCHEMA, TRIGGERS_SCHEMA } from "./format-schemas.js";
