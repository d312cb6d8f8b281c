/**
 * The JSON report: `{kind, version, task_id, summary, cases: [{name, status, duration_ms, input, expected, actual,
 * message}]}`, documented by `@skillrig/oracle/task-report.schema.json`. Scripts depend on this shape (it is what
 * `skillrig test --json` prints); fields may be added, never removed.
 */
import type { CaseVerdict, NotRunCase, ReportIncomplete, TaskReport, TaskSummary } from "@skillrig/core";

export interface JsonCase {
  name: string;
  status: CaseVerdict["status"];
  duration_ms: number;
  /** The case's input as the task file gives it; null when the case has none. */
  input: unknown;
  expected: unknown;
  actual: unknown;
  /** null for passed cases. */
  message: string | null;
  index: number;
  diff?: string;
  details?: Record<string, unknown>;
}

export interface JsonReport {
  kind: "skillrig-task-report";
  version: 1;
  task_id: string;
  deliverable_type: string;
  summary: TaskSummary;
  cases: JsonCase[];
  isolation?: string;
  /** The cases ran at a level the user named that let the code reach the hidden tests (see docs/sandbox.md). */
  hidden_tests_reachable?: true;
  warnings?: string[];
  duration_ms?: number;
  /** Cases `--bail` stopped before they started; `summary.not_run` counts them. */
  not_run?: NotRunCase[];
  /** The report ended early (fewer verdicts than selected cases): never a pass, never complete. */
  incomplete?: ReportIncomplete;
}

export function toJsonReport(report: TaskReport): JsonReport {
  return {
    kind: "skillrig-task-report",
    version: 1,
    task_id: report.task_id,
    deliverable_type: report.deliverable_type,
    summary: report.summary,
    cases: report.cases.map((v) => ({
      name: v.name,
      status: v.status,
      duration_ms: v.duration_ms,
      input: v.input ?? null,
      expected: v.expected ?? null,
      actual: v.actual ?? null,
      message: v.message ?? null,
      index: v.index,
      ...(v.diff ? { diff: v.diff } : {}),
      ...(v.details ? { details: v.details } : {}),
    })),
    ...(report.isolation ? { isolation: report.isolation } : {}),
    ...(report.hidden_tests_reachable ? { hidden_tests_reachable: true as const } : {}),
    ...(report.warnings ? { warnings: report.warnings } : {}),
    ...(report.duration_ms !== undefined ? { duration_ms: report.duration_ms } : {}),
    ...(report.not_run ? { not_run: report.not_run } : {}),
    ...(report.incomplete ? { incomplete: report.incomplete } : {}),
  };
}
