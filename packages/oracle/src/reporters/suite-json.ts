/**
 * The suite's JSON document (`skillrig test <many> --json`):
 *   {kind, version, summary, pass_at_k, tasks: [{task_id, ..., pass_at_k, samples: [{sample, source, status,
 *    summary, cases: [{name, status, duration_ms, expected, actual, message, ...}]}]}]}
 * Each case has the same shape as in the one-task report (json-report.ts). Fields may be added, never removed.
 */
import type { NotRunCase, ReportIncomplete } from "@skillrig/core";
import type { SuiteReport } from "../run-suite.js";
import { toJsonReport, type JsonCase } from "./json-report.js";

export interface SuiteJsonSample {
  sample: number;
  source: string;
  /** `sha256:<hex>` of the deliverable's content: comparisons match samples by it (docs/view.md). */
  deliverable_sha256?: string;
  status: string;
  summary: { total: number; passed: number; failed: number; errored: number; invalid: number } | null;
  cases: JsonCase[];
  duration_ms: number;
  isolation?: string;
  warnings?: string[];
  error?: { code: string; message: string } & Record<string, unknown>;
  /** Cases of this sample that `--bail` stopped before they started. */
  not_run?: NotRunCase[];
  /** The sample's report ended early (see the task report's `incomplete`). */
  incomplete?: ReportIncomplete;
}

export function toSuiteJson(report: SuiteReport): unknown {
  return {
    ...report,
    tasks: report.tasks.map((task) => ({
      ...task,
      samples: task.samples.map((s): SuiteJsonSample => {
        const json = s.report ? toJsonReport(s.report) : undefined;
        return {
          sample: s.sample,
          source: s.source,
          ...(s.deliverable_sha256 ? { deliverable_sha256: s.deliverable_sha256 } : {}),
          status: s.status,
          summary: json?.summary ?? null,
          cases: json?.cases ?? [],
          duration_ms: s.duration_ms,
          ...(json?.isolation ? { isolation: json.isolation } : {}),
          ...(json?.warnings ? { warnings: json.warnings } : {}),
          ...(s.error ? { error: s.error } : {}),
          ...(json?.not_run ? { not_run: json.not_run } : {}),
          ...(json?.incomplete ? { incomplete: json.incomplete } : {}),
        };
      }),
    })),
  };
}
