/** A suite report's view: the headline (samples, cases, pass@k), then tasks down and samples across. */
import { useMemo, useState } from "preact/hooks";
import {
  type CaseLike,
  CaseTable,
  type Column,
  countsText,
  duration,
  ExportButtons,
  PassAtK,
  passAtKValues,
  percent,
  SearchBox,
  SortHeader,
  Status,
  StatusCellLabel,
  statusClass,
  useHashParam,
  useTableView,
  viewRows,
} from "./kit/index.js";

interface SuiteSample {
  sample: number;
  source?: string;
  status: string;
  cases: CaseLike[];
  duration_ms?: number;
  error?: { code: string; message: string };
}
interface SuiteTask {
  task_id: string;
  file?: string;
  samples_total: number;
  samples_passed: number;
  pass_at_k: unknown;
  problem?: string;
  samples: SuiteSample[];
}
export interface SuiteReport {
  summary?: {
    tasks: number;
    samples: number;
    samples_passed: number;
    cases: number;
    cases_passed: number;
    duration_ms: number;
  };
  pass_at_k?: unknown;
  tasks: SuiteTask[];
}

/** A task's status in the table: every sample passed, some did not, or it could not be graded at all. */
function taskStatus(t: SuiteTask): "passed" | "failed" | "not graded" {
  return t.samples_total > 0 && t.samples_passed === t.samples_total ? "passed" : t.problem ? "not graded" : "failed";
}

/** The task table's columns: task, status, samples passed, then pass@k for every k a task has. */
function suiteColumns(ks: number[]): Column<SuiteTask>[] {
  const passAt = (t: SuiteTask, k: number) => passAtKValues(t.pass_at_k).find((v) => v.k === k)?.value;
  return [
    { key: "task", label: "task", value: (t) => t.task_id },
    { key: "status", label: "status", value: taskStatus, render: (t) => <Status status={taskStatus(t).replace(" ", "_")} /> },
    {
      key: "passed",
      label: "samples passed",
      num: true,
      value: (t) => t.samples_passed,
      render: (t) => `${t.samples_passed ?? "?"}/${t.samples_total ?? t.samples.length}`,
    },
    ...ks.map(
      (k): Column<SuiteTask> => ({
        key: `pass@${k}`,
        label: `pass@${k}`,
        num: true,
        value: (t) => passAt(t, k),
        render: (t) => percent(passAt(t, k)),
      }),
    ),
  ];
}

function SuiteHeadline({ report }: { report: SuiteReport }) {
  const s = report.summary;
  return (
    <p class="suite-headline">
      {report.tasks.length} task(s)
      {s && typeof s.samples === "number" && typeof s.cases === "number" ? (
        <>
          {" "}
          · <span data-samples>{`${s.samples_passed}/${s.samples} samples passed`}</span> ·{" "}
          <span data-cases>{`${s.cases_passed}/${s.cases} cases passed`}</span> · {duration(s.duration_ms)}
        </>
      ) : null}{" "}
      <PassAtK values={report.pass_at_k} />
    </p>
  );
}

/**
 * One sample's cell: its status (symbol and word, the palette's tone) and what its cases did, in words that say what
 * they count (`0/3 passed · 3 error`), never a bare `0/3`.
 */
function SampleCell({ sample, pressed, onClick }: { sample: SuiteSample; pressed: boolean; onClick: () => void }) {
  const cases = Array.isArray(sample.cases) ? sample.cases : [];
  const counts = cases.length > 0 ? countsText(cases.map((c) => c.status)) : sample.error ? "not graded" : "no cases";
  return (
    <button
      type="button"
      class={`cell ${statusClass(sample.status)}`}
      aria-pressed={pressed}
      title={sample.error ? `${sample.error.code}: ${sample.error.message}` : sample.source}
      onClick={onClick}
    >
      <StatusCellLabel status={sample.status} counts={counts} />
    </button>
  );
}

function SelectedSample({ task, at }: { task: SuiteTask; at: number }) {
  const chosen = task.samples[at];
  if (!chosen) return null;
  return (
    <section aria-label="selected sample">
      <h2>
        {task.task_id}, sample {at + 1}
      </h2>
      {chosen.source ? <p class="muted">from {chosen.source}</p> : null}
      {chosen.error ? (
        <p class="error">
          {chosen.error.code}: {chosen.error.message}
        </p>
      ) : null}
      <CaseTable cases={chosen.cases} exportName={`cases-${task.task_id}-sample-${at + 1}`} />
    </section>
  );
}

/** A multi-task suite: its headline (samples, cases, pass@k), then tasks down and samples across; a cell opens that sample's cases. */
export function SuiteView({ report }: { report: SuiteReport }) {
  const [selected, setSelected] = useState<{ task: string; sample: number } | undefined>();
  const [status, setStatus] = useHashParam("tasks.status", "all");
  const view = useTableView("tasks");
  const columns = useMemo(
    () => suiteColumns([...new Set(report.tasks.flatMap((t) => passAtKValues(t.pass_at_k).map((v) => v.k)))].sort((a, b) => a - b)),
    [report],
  );
  const rows = useMemo(
    () =>
      viewRows(
        report.tasks.filter((t) => status === "all" || taskStatus(t) === status),
        columns,
        view,
      ),
    [report, columns, status, view],
  );
  const width = Math.max(1, ...report.tasks.map((t) => t.samples.length));
  const chosenTask = selected ? report.tasks.find((t) => t.task_id === selected.task) : undefined;
  return (
    <>
      <SuiteHeadline report={report} />
      <div class="filters">
        <label>
          status{" "}
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)} name="task-status">
            <option value="all">all</option>
            <option value="passed">every sample passed</option>
            <option value="failed">some sample failed</option>
            <option value="not graded">not graded</option>
          </select>
        </label>
        <SearchBox view={view} placeholder="task" name="task-search" />
        <ExportButtons name="tasks" rows={rows} columns={columns} />
      </div>
      <div class="scroll">
        <table class="table matrix">
          <thead>
            <tr>
              {columns.map((c) => (
                <SortHeader key={c.key} column={c} view={view} />
              ))}
              {Array.from({ length: width }, (_, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the column's identity.
                <th key={i}>sample {i + 1}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.task_id} data-task={t.task_id}>
                {columns.map((c) => (
                  <td key={c.key} class={c.num ? "num" : undefined}>
                    {c.render ? c.render(t) : c.value(t)}
                  </td>
                ))}
                {Array.from({ length: width }, (_, si) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the cell's identity.
                  <td key={si}>
                    {t.samples[si] ? (
                      <SampleCell
                        sample={t.samples[si]}
                        pressed={selected?.task === t.task_id && selected.sample === si}
                        onClick={() => setSelected({ task: t.task_id, sample: si })}
                      />
                    ) : null}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chosenTask && selected ? (
        <SelectedSample task={chosenTask} at={selected.sample} />
      ) : (
        <p class="muted">choose a cell to see that sample's cases</p>
      )}
    </>
  );
}
