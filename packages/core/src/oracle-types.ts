/**
 * The Task Oracle's data: a task file with test cases, a deliverable, and one verdict per case.
 * Field names follow the Task Oracle's own JSON (`deliverable_type`, `public_examples_preview`, ...).
 */

/** Built-in deliverable types; plugins may add others. */
export type DeliverableType = "function" | "script" | "cli" | (string & {});

/** How `expected` and `actual` are compared: a mode name, or a mode with its options. */
export type CompareSpec = string | ({ mode: string } & Record<string, unknown>);

export interface TaskLimits {
  /** Per-case wall-clock timeout in milliseconds (default 10 000). */
  timeout_ms?: number;
  /** CPU time per case in milliseconds. */
  cpu_ms?: number;
  /** Address-space limit per case in bytes. */
  memory_bytes?: number;
  /** Cap on stdout and stderr bytes each. */
  output_bytes?: number;
  /** Cap on the size of any file the case writes. */
  file_bytes?: number;
  /** Cap on processes the case may run at once. */
  processes?: number;
}

export interface TestCase {
  name: string;
  input: unknown;
  expected: unknown;
  compare?: CompareSpec;
  timeout_ms?: number;
}

export interface Task {
  contract_version: "1.0";
  task_id: string;
  deliverable_type: DeliverableType;
  /** Function name (function) or file name (script, cli). */
  entrypoint: string;
  description?: string;
  public_examples_preview?: TestCase[];
  tests: TestCase[];
  compare?: CompareSpec;
  limits?: TaskLimits;
  /** Path (relative to the task file) of a reference solution, used to validate the task itself. */
  reference_solution?: string;
}

/** A task as loaded from disk: where it came from, for error messages and relative paths. */
export interface LoadedTask {
  task: Task;
  /** Absolute path of the task file, or undefined when it came from memory (HTTP). */
  file?: string;
  /** How the file was named by the user (for messages). */
  displayPath: string;
  /**
   * Each test's `input` and `expected` as JSON text with every number exactly as the file wrote it (`3.0` stays a
   * float, integers past 2^53 keep their digits), by index of `task.tests`; set when the task was read from text.
   * Deliverable plugins hand these to code that reads JSON exactly (Python's json), and to the exact compare.
   */
  caseJson?: ReadonlyArray<{ input: string; expected: string }>;
}

/** The code under test: a file or folder on disk. */
export interface Deliverable {
  /** Absolute path of the folder that holds the deliverable. */
  dir: string;
  /** Absolute path of the entry file (`solution.py` for function, the entrypoint file otherwise). */
  entryFile: string;
  /** Given as a file: the snapshot holds that file alone, not the folder around it (deliverable-snapshot.ts). */
  entryOnly?: boolean;
}

export type CaseStatus = "passed" | "failed" | "error" | "timeout" | "memory_limit" | "output_limit" | "invalid_test_format";

export interface CaseVerdict {
  name: string;
  /** Position of the case in the task's `tests`. */
  index: number;
  status: CaseStatus;
  duration_ms: number;
  /** The case's input as the task file gives it (file references not yet resolved), so a report can show it. */
  input?: unknown;
  expected: unknown;
  /** What the deliverable produced, in the same shape as `expected` where possible. */
  actual: unknown;
  /** One line a person reads first: why it is not `passed`. */
  message?: string;
  /** A compact unified diff of expected against actual, for `failed`. */
  diff?: string;
  /** Extra facts: exception type and traceback, captured prints, stderr, exit code, isolation level ... */
  details?: Record<string, unknown>;
}

export interface TaskSummary {
  total: number;
  passed: number;
  failed: number;
  errored: number;
  invalid: number;
  /** Cases that were selected but never started (`--bail` stopped the run); absent when every selected case ran. */
  not_run?: number;
}

/** A case a run selected but did not start, and why (`skillrig test --bail`). */
export interface NotRunCase {
  name: string;
  index: number;
  reason: string;
}

export interface TaskReport {
  task_id: string;
  deliverable_type: DeliverableType;
  summary: TaskSummary;
  cases: CaseVerdict[];
  /** Isolation level each case ran with (see the sandbox docs). */
  isolation?: string;
  /**
   * Set when the cases ran at a level that cannot keep the task file and the runner's arguments away from the code
   * ("rlimits", "none"), which the user opted into by naming it: the code could have read the hidden tests.
   */
  hidden_tests_reachable?: true;
  warnings?: string[];
  duration_ms?: number;
  /** Selected cases that never started (`--bail`), in task order; absent when every selected case ran. */
  not_run?: NotRunCase[];
  /**
   * Set when the report ended early: fewer verdicts came back than cases were selected (a sample host that died
   * mid-run, a truncated results stream). Such a report is never a pass and never read as complete.
   */
  incomplete?: ReportIncomplete;
}

/** Why a report is incomplete, and how many selected cases have neither a verdict nor a `not_run` entry. */
export interface ReportIncomplete {
  reason: string;
  missing: number;
}
