/** A one-task report's verdict and case table: a recorded test run's page and a jobs server's oracle run show the same. */
import { type CaseLike, CaseTable, Status } from "./kit/index.js";

export interface TestReport {
  task_id: string;
  deliverable_type?: string;
  isolation?: string;
  summary: { total: number; passed: number; failed: number; errored: number; invalid: number };
  cases: CaseLike[];
  warnings?: string[];
}

/** "3/6 passed, 2 failed, 1 errored, 0 invalid": a task's verdict, the same words wherever it was graded. */
export function TaskVerdict({ summary: s }: { summary: TestReport["summary"] }) {
  return (
    <span class="verdict" data-passed={s.passed} data-total={s.total}>
      <Status status={s.passed === s.total && s.total > 0 ? "passed" : "failed"} /> {s.passed}/{s.total} passed, {s.failed} failed,{" "}
      {s.errored} errored, {s.invalid} invalid
    </span>
  );
}

export function TestView({ report }: { report: TestReport }) {
  return (
    <>
      <p>
        task <strong>{report.task_id}</strong>
        {report.deliverable_type ? ` (${report.deliverable_type})` : ""}: {report.summary ? <TaskVerdict summary={report.summary} /> : null}
        {report.isolation ? ` · isolation ${report.isolation}` : ""}
      </p>
      {(report.warnings ?? []).map((w) => (
        <p class="warning" key={w}>
          warning: {w}
        </p>
      ))}
      <CaseTable cases={report.cases} exportName={`cases-${report.task_id}`} />
    </>
  );
}
