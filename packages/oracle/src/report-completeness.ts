/**
 * Fail closed on a report that ended early (issue 38): a report holding fewer verdicts than cases were selected (a
 * sample host that died mid-run, a truncated results stream from a server) is marked `incomplete`, its summary's
 * total is at least the cases that were asked for, so it can never count as a pass, and every reader (the exit code,
 * `skillrig runs show`, the viewer's record) sees it.
 */
import type { TaskReport } from "@skillrig/core";

/**
 * `report` checked against the `expected` number of selected cases: each must have exactly one verdict or one
 * `not_run` entry. A report that falls short (or repeats a case) comes back with `incomplete` set, saying `source`.
 */
export function withCompleteness(report: TaskReport, expected: number, source: string): TaskReport {
  const seen = new Set<number>();
  let repeated = 0;
  for (const entry of [...report.cases, ...(report.not_run ?? [])]) {
    if (seen.has(entry.index)) repeated++;
    seen.add(entry.index);
  }
  const missing = Math.max(0, expected - seen.size);
  if (missing === 0 && repeated === 0 && report.summary.total >= expected) return report;
  const reasons = [
    ...(missing > 0 ? [`${missing} of the ${expected} selected case(s) got no verdict`] : []),
    ...(repeated > 0 ? [`${repeated} case(s) have more than one verdict`] : []),
  ];
  const reason = `${source} ended early: ${reasons.join("; ") || `its summary counts ${report.summary.total} case(s), ${expected} were selected`}`;
  return {
    ...report,
    summary: { ...report.summary, total: Math.max(report.summary.total, expected) },
    incomplete: { reason, missing },
  };
}

/** The one line a reader shows for an incomplete report. */
export function incompleteLine(report: { incomplete?: { reason: string } }): string | undefined {
  return report.incomplete ? `incomplete report: ${report.incomplete.reason}; this is not a pass` : undefined;
}
