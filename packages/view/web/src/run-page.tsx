/** One recorded run's page (`#/run/<id>`): its record, then the view of its kind (test, suite, solve batch, skill job). */
import type { RunRecord } from "./api.js";
import { SkillRunView } from "./job-views.js";
import { duration, ErrorBox, isObject, Json, Loading, percent, ShortId, Status, useFetch, When } from "./kit/index.js";
import { type SolveReport, SolveView } from "./solve-view.js";
import { type SuiteReport, SuiteView } from "./suite-view.js";
import { type TestReport, TestView } from "./task-views.js";
import { TrendSection } from "./trend-chart.js";

export function RunPage({ id }: { id: string }) {
  const { data, error } = useFetch<{ record: RunRecord; report: unknown; problem?: string | null }>(`/api/runs/${encodeURIComponent(id)}`);
  if (error) return <main>{<ErrorBox error={error} />}</main>;
  if (!data) return <Loading what="the run" />;
  const { record, report, problem } = data;
  return (
    <main>
      <p>
        <a href="#/">← runs</a>
      </p>
      <h1>
        {record.kind} {record.name} <Status status={record.status} />
      </h1>
      <p class="muted">
        <When iso={record.started_at} /> · {duration(record.duration_ms)}
        {record.engines.length > 0 ? ` · ${record.engines.join(", ")}` : ""}
        {/* A single job has no rate: its status says how it ended. */}
        {record.kind === "run" ? "" : ` · pass rate ${percent(record.pass_rate)}`} · <ShortId id={record.id} />
      </p>
      {record.kind === "test" || record.kind === "solve" ? <TrendSection of="runs" id={record.id} /> : null}
      {/* A report that breaks its schema is named with its pointers; what can be shown still is. */}
      {problem ? (
        <p class="error report-problem" role="alert">
          {problem}
        </p>
      ) : null}
      {!isObject(report) ? null : report.kind === "skillrig-solve-report" ? (
        <SolveView report={report as unknown as SolveReport} />
      ) : Array.isArray(report.tasks) ? (
        <SuiteView report={report as unknown as SuiteReport} />
      ) : Array.isArray(report.cases) ? (
        <TestView report={report as unknown as TestReport} />
      ) : record.kind === "run" ? (
        <SkillRunView runId={record.id} result={report} />
      ) : (
        <Json value={report} />
      )}
    </main>
  );
}
