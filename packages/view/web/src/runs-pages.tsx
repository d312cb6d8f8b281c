/** Pages over the recorded runs: the list, and one run of each kind (test, suite, solve batch, skill job). */
import { useEffect, useMemo, useState } from "preact/hooks";
import { evalPageOf, getJson, getText, runFileUrl, type RunRecord } from "./api.js";
import {
  ArtifactPreview,
  CaseTable,
  Code,
  ErrorBox,
  Json,
  Loading,
  Section,
  Status,
  Timeline,
  type CaseLike,
  type TimelineEvent,
} from "./components.js";
import { useRunPicker } from "./compare-pages.js";
import { duration, isObject, percent, when } from "./format.js";
import { type Column, ExportButtons, SearchBox, SortHeader, useHashParam, useTableView, viewRows } from "./table-view.js";

export function useFetch<T>(url: string | undefined): { data?: T; error?: Error } {
  const [state, setState] = useState<{ data?: T; error?: Error }>({});
  useEffect(() => {
    if (!url) return;
    let live = true;
    setState({});
    getJson<T>(url).then(
      (data) => live && setState({ data }),
      (error: Error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [url]);
  return state;
}

const RUN_COLUMNS: Column<RunRecord>[] = [
  { key: "kind", label: "kind", value: (r) => r.kind },
  {
    key: "name",
    label: "task or skill",
    value: (r) => r.name,
    render: (r) => (
      <a href={(r.kind === "eval" && evalPageOf(r.id)) || `#/run/${encodeURIComponent(r.id)}`}>
        {r.name}
        {r.kind === "eval" ? <span class="muted"> {r.id.split("/").pop()}</span> : null}
      </a>
    ),
  },
  { key: "engine", label: "engine", value: (r) => r.engines.join(", "), render: (r) => r.engines.join(", ") || "–" },
  { key: "when", label: "when", value: (r) => r.started_at, render: (r) => when(r.started_at) },
  { key: "status", label: "status", value: (r) => r.status, render: (r) => <Status status={r.status} /> },
  {
    key: "pass_rate",
    label: "pass rate",
    num: true,
    value: (r) => r.pass_rate,
    render: (r) => (
      <>
        {percent(r.pass_rate)}
        {r.total !== null ? (
          <span class="muted">
            {" "}
            ({r.passed}/{r.total})
          </span>
        ) : null}
      </>
    ),
  },
  { key: "duration", label: "duration", num: true, value: (r) => r.duration_ms, render: (r) => duration(r.duration_ms) },
  { key: "id", label: "id", value: (r) => r.id, render: (r) => <span class="muted">{r.id}</span> },
];

export function RunsList({ server }: { server: string | null }) {
  const { data, error } = useFetch<{ runs: RunRecord[] }>("/api/runs");
  const [kind, setKind] = useHashParam("runs.kind", "all");
  const [status, setStatus] = useHashParam("runs.status", "all");
  const view = useTableView("runs");
  const runs = useMemo(
    () =>
      viewRows(
        (data?.runs ?? []).filter((r) => (kind === "all" || r.kind === kind) && (status === "all" || r.status === status)),
        RUN_COLUMNS,
        view,
      ),
    [data, kind, status, view],
  );
  const picker = useRunPicker(data?.runs ?? []);
  return (
    <main>
      <h1>Runs</h1>
      {server ? (
        <p>
          Jobs server {server}: <a href="#/server">its jobs and skills</a>
        </p>
      ) : null}
      <div class="filters">
        <label>
          kind{" "}
          <select value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)} name="kind">
            <option value="all">all</option>
            <option value="test">test</option>
            <option value="solve">solve</option>
            <option value="run">run</option>
            <option value="eval">eval</option>
          </select>
        </label>
        <label>
          status{" "}
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)} name="status">
            <option value="all">all</option>
            <option value="passed">passed</option>
            <option value="failed">failed</option>
            <option value="error">error</option>
            <option value="running">running</option>
          </select>
        </label>
        <SearchBox view={view} placeholder="task, skill, engine" name="search" />
        <ExportButtons name="runs" rows={runs} columns={RUN_COLUMNS} />
      </div>
      {error ? <ErrorBox error={error} /> : !data ? <Loading what="runs" /> : null}
      {data ? picker.bar : null}
      {data ? (
        <div class="scroll">
          <table class="table runs">
            <thead>
              <tr>
                <th>compare</th>
                {RUN_COLUMNS.map((c) => (
                  <SortHeader key={c.key} column={c} view={view} />
                ))}
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id} data-run={r.id} data-kind={r.kind}>
                  <td>{picker.box(r)}</td>
                  {RUN_COLUMNS.map((c) => (
                    <td key={c.key} class={c.num ? "num" : undefined}>
                      {c.render ? c.render(r) : c.value(r)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {runs.length === 0 ? (
            <p class="muted">
              {data.runs.length === 0 ? "no recorded runs yet: run skillrig test, solve, run or eval in this project" : "no run matches"}
            </p>
          ) : null}
        </div>
      ) : null}
    </main>
  );
}

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
        {when(record.started_at)} · {duration(record.duration_ms)}
        {record.engines.length > 0 ? ` · ${record.engines.join(", ")}` : ""} · pass rate {percent(record.pass_rate)} · {record.id}
      </p>
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
interface SuiteReport {
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

export interface PassAtKValue {
  k: number;
  value: number;
  /** Over how many tasks (a suite's mean), when the report says. */
  tasks?: number;
}

/**
 * pass@k as any report writes it, in order of k: keyed "pass@3" (the oracle's suites) or "3" (solve), valued by a
 * number (a task, an engine) or `{value, tasks}` (a suite's mean). Anything else is left out; the page's schema
 * problem names it.
 */
export function passAtKValues(values: unknown): PassAtKValue[] {
  if (!isObject(values)) return [];
  const out: PassAtKValue[] = [];
  for (const [key, raw] of Object.entries(values)) {
    const match = /^(?:pass@)?([1-9][0-9]*)$/.exec(key);
    if (!match) continue;
    const k = Number(match[1]);
    if (typeof raw === "number" && Number.isFinite(raw)) out.push({ k, value: raw });
    else if (isObject(raw) && typeof raw.value === "number" && Number.isFinite(raw.value))
      out.push({ k, value: raw.value, ...(typeof raw.tasks === "number" ? { tasks: raw.tasks } : {}) });
  }
  return out.sort((a, b) => a.k - b.k);
}

export function PassAtK({ values }: { values: unknown }) {
  const list = passAtKValues(values);
  if (list.length === 0) return null;
  return (
    <span class="passk">
      {list.map((v) => (
        <span key={v.k} class="chip static" data-k={v.k} data-value={v.value}>
          pass@{v.k} {percent(v.value)}
          {v.tasks !== undefined ? <span class="muted"> ({v.tasks} tasks)</span> : null}
        </span>
      ))}
    </span>
  );
}

/** A multi-task suite: its headline (samples, cases, pass@k), then tasks down and samples across; a cell opens that sample's cases. */
function SuiteView({ report }: { report: SuiteReport }) {
  const [selected, setSelected] = useState<{ task: string; sample: number } | undefined>();
  const [status, setStatus] = useHashParam("tasks.status", "all");
  const view = useTableView("tasks");
  const ks = useMemo(
    () => [...new Set(report.tasks.flatMap((t) => passAtKValues(t.pass_at_k).map((v) => v.k)))].sort((a, b) => a - b),
    [report],
  );
  const columns = useMemo((): Column<SuiteTask>[] => {
    const solved = (t: SuiteTask) =>
      t.samples_total > 0 && t.samples_passed === t.samples_total ? "passed" : t.problem ? "not graded" : "failed";
    return [
      { key: "task", label: "task", value: (t) => t.task_id },
      { key: "status", label: "status", value: solved, render: (t) => <Status status={solved(t).replace(" ", "_")} /> },
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
          value: (t) => passAtKValues(t.pass_at_k).find((v) => v.k === k)?.value,
          render: (t) => percent(passAtKValues(t.pass_at_k).find((v) => v.k === k)?.value),
        }),
      ),
    ];
  }, [ks]);
  const rows = useMemo(
    () =>
      viewRows(
        report.tasks.filter((t) => status === "all" || columns[1]!.value(t) === status),
        columns,
        view,
      ),
    [report, columns, status, view],
  );
  const width = Math.max(1, ...report.tasks.map((t) => t.samples.length));
  const chosenTask = selected ? report.tasks.find((t) => t.task_id === selected.task) : undefined;
  const chosen = selected ? chosenTask?.samples[selected.sample] : undefined;
  const s = report.summary;
  return (
    <>
      <p class="suite-headline">
        {report.tasks.length} task(s)
        {s && typeof s.samples === "number" && typeof s.cases === "number" ? (
          <>
            {" "}
            ·{" "}
            <span data-samples>
              {s.samples_passed}/{s.samples} samples passed
            </span>{" "}
            ·{" "}
            <span data-cases>
              {s.cases_passed}/{s.cases} cases passed
            </span>{" "}
            · {duration(s.duration_ms)}
          </>
        ) : null}{" "}
        <PassAtK values={report.pass_at_k} />
      </p>
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
                {Array.from({ length: width }, (_, si) => {
                  const sample = t.samples[si];
                  // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the cell's identity.
                  if (!sample) return <td key={si} />;
                  const passed = sample.cases.filter((c) => c.status === "passed").length;
                  return (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the cell's identity.
                    <td key={si}>
                      <button
                        type="button"
                        class={`cell s-${sample.status}`}
                        aria-pressed={selected?.task === t.task_id && selected.sample === si}
                        title={sample.error ? `${sample.error.code}: ${sample.error.message}` : sample.source}
                        onClick={() => setSelected({ task: t.task_id, sample: si })}
                      >
                        {sample.status} {passed}/{sample.cases.length}
                      </button>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chosen && chosenTask ? (
        <section aria-label="selected sample">
          <h2>
            {chosenTask.task_id}, sample {selected!.sample + 1}
          </h2>
          {chosen.source ? <p class="muted">from {chosen.source}</p> : null}
          {chosen.error ? (
            <p class="error">
              {chosen.error.code}: {chosen.error.message}
            </p>
          ) : null}
          <CaseTable cases={chosen.cases} exportName={`cases-${chosenTask.task_id}-sample-${selected!.sample + 1}`} />
        </section>
      ) : (
        <p class="muted">choose a cell to see that sample's cases</p>
      )}
    </>
  );
}

interface Attempt {
  task_id: string;
  engine: string;
  attempt: number;
  status: string;
  message?: string;
  score: { passed: number; total: number };
  prompt?: string;
  skill_md?: string;
  transcript: TimelineEvent[];
  deliverable?: { file: string; path: string; content: string; truncated?: boolean };
  cases: CaseLike[];
  usage: { inputTokens?: number; outputTokens?: number; engineMs?: number; durationMs: number };
  job?: { run_dir?: string; error?: { code: string; message: string } };
}
interface SolveReport {
  kind: "skillrig-solve-report";
  attempts_per_task: number;
  engines: Array<{
    engine: string;
    attempts: number;
    passed: number;
    pass_rate: number;
    pass_at_k: Record<string, number>;
    tasks_solved: number;
    usage: { inputTokens: number; outputTokens: number; engineMs: number; reported: boolean };
  }>;
  tasks: Array<{
    task_id: string;
    deliverable_type: string;
    scored_cases: number;
    total_cases: number;
    attempts: Attempt[];
    reference?: { flagged: Array<{ name: string }> };
  }>;
  summary: { tasks: number; attempts: number; passed: number; not_passed: number };
}

/** A solve batch: engines' totals and pass@k, tasks × engines, then one attempt in full. */
function SolveView({ report }: { report: SolveReport }) {
  const [selected, setSelected] = useState<Attempt | undefined>();
  return (
    <>
      <p>
        {report.summary.passed}/{report.summary.attempts} attempts passed over {report.summary.tasks} task(s), {report.attempts_per_task}{" "}
        attempt(s) per engine
      </p>
      <div class="scroll">
        <table class="table">
          <thead>
            <tr>
              <th>engine</th>
              <th class="num">passed</th>
              <th class="num">pass rate</th>
              <th>pass@k</th>
              <th class="num">tasks solved</th>
              <th class="num">tokens in / out</th>
              <th class="num">engine time</th>
            </tr>
          </thead>
          <tbody>
            {report.engines.map((e) => (
              <tr key={e.engine}>
                <td>{e.engine}</td>
                <td class="num">
                  {e.passed}/{e.attempts}
                </td>
                <td class="num">{percent(e.pass_rate)}</td>
                <td>
                  <PassAtK values={e.pass_at_k} />
                </td>
                <td class="num">{e.tasks_solved}</td>
                <td class="num">{e.usage.reported ? `${e.usage.inputTokens} / ${e.usage.outputTokens}` : "not reported"}</td>
                <td class="num">{duration(e.usage.engineMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Tasks × engines</h2>
      <div class="scroll">
        <table class="table matrix">
          <thead>
            <tr>
              <th>task</th>
              <th class="num">scored</th>
              {report.engines.map((e) => (
                <th key={e.engine}>{e.engine}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {report.tasks.map((t) => (
              <tr key={t.task_id}>
                <td>
                  {t.task_id}
                  {t.reference && t.reference.flagged.length > 0 ? (
                    <span class="warning"> (reference fails {t.reference.flagged.length})</span>
                  ) : null}
                </td>
                <td class="num">
                  {t.scored_cases}/{t.total_cases}
                </td>
                {report.engines.map((e) => (
                  <td key={e.engine}>
                    {t.attempts
                      .filter((a) => a.engine === e.engine)
                      .map((a) => (
                        <button
                          type="button"
                          key={a.attempt}
                          class={`cell s-${a.status}`}
                          aria-pressed={selected === a}
                          title={a.message ?? a.status}
                          onClick={() => setSelected(a)}
                        >
                          #{a.attempt} {a.status} {a.score.passed}/{a.score.total}
                        </button>
                      ))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {selected ? (
        <AttemptDetail attempt={selected} />
      ) : (
        <p class="muted">choose an attempt to see its deliverable, cases, transcript and prompt</p>
      )}
    </>
  );
}

function AttemptDetail({ attempt: a }: { attempt: Attempt }) {
  return (
    <section aria-label="selected attempt">
      <h2>
        {a.task_id} · {a.engine} · attempt {a.attempt} <Status status={a.status} />
      </h2>
      {a.message ? <p class="message">{a.message}</p> : null}
      <p class="muted">
        {duration(a.usage.durationMs)} in all, engine {duration(a.usage.engineMs)}
        {a.usage.inputTokens !== undefined ? `, ${a.usage.inputTokens} tokens in, ${a.usage.outputTokens ?? "?"} out` : ""}
      </p>
      <Section title={`deliverable ${a.deliverable ? a.deliverable.file : "(none collected)"}`}>
        {a.deliverable ? (
          <Code code={a.deliverable.content} language={/\.py$/.test(a.deliverable.file) ? "python" : undefined} />
        ) : (
          <p class="muted">the engine wrote no deliverable</p>
        )}
      </Section>
      <Section title={`cases ${a.score.passed}/${a.score.total}`}>
        <CaseTable cases={a.cases} />
      </Section>
      <Section title={`transcript (${a.transcript.length} events)`}>
        <Timeline events={a.transcript} />
      </Section>
      <Section title="prompt sent" open={false}>
        <Code code={a.prompt ?? "(not recorded)"} language="markdown" />
      </Section>
      {a.skill_md ? (
        <Section title="SKILL.md the agent read" open={false}>
          <Code code={a.skill_md} language="markdown" />
        </Section>
      ) : null}
    </section>
  );
}

interface JobResultLike {
  job_id?: string;
  skill_id?: string;
  engine?: string;
  status?: string;
  output?: unknown;
  prompt?: string;
  error?: { code: string; message: string };
  artifacts?: Array<{ field: string; filename: string; relativePath: string; role: string; bytes: number }>;
  warnings?: string[];
}

/** What a recorded job's run.json says went in: the request as sent and, once resolved, what the job really got. */
interface RunJson {
  request?: { input?: Record<string, unknown>; parameter?: Record<string, unknown>; files?: Record<string, string> };
  uploads?: Record<string, { original_name?: string }>;
  resolved?: {
    input: Record<string, unknown>;
    parameter: Record<string, unknown>;
    files: Array<{ field: string; name: string; bytes: number; path: string }>;
  };
}

/** A job's inputs as the page shows them: files by name and size, inline values, parameters with their defaults. */
export interface JobInputs {
  files: Array<{ field: string; name: string; bytes?: number; url?: string }>;
  values: Record<string, unknown>;
  parameter: Record<string, unknown>;
  /** True when the parameters are the resolved ones (defaults applied), not only the request's. */
  resolved: boolean;
}

function inputsOf(runId: string, meta: RunJson): JobInputs {
  if (meta.resolved) {
    const files = meta.resolved.files.map((f) => ({ ...f, url: runFileUrl(runId, f.path, true) }));
    const fileFields = new Set(files.map((f) => f.field));
    const values = Object.fromEntries(Object.entries(meta.resolved.input).filter(([k]) => !fileFields.has(k)));
    return { files, values, parameter: meta.resolved.parameter, resolved: true };
  }
  // A job recorded before run.json kept what was resolved (or one refused before that step): the request alone.
  const files = Object.keys(meta.request?.files ?? {}).map((field) => ({
    field,
    name: meta.uploads?.[field]?.original_name ?? field,
    url: runFileUrl(runId, `uploads/${field}`, true),
  }));
  return { files, values: meta.request?.input ?? {}, parameter: meta.request?.parameter ?? {}, resolved: false };
}

/** A recorded skill job: what went in (run.json), the prompt, the events, the output and the artifacts. */
function SkillRunView({ runId, result }: { runId: string; result: Record<string, unknown> }) {
  const r = result as JobResultLike;
  const meta = useFetch<RunJson>(runFileUrl(runId, "run.json"));
  const [events, setEvents] = useState<TimelineEvent[] | undefined>();
  useEffect(() => {
    getText(runFileUrl(runId, "logs/events.jsonl")).then(
      (text) =>
        setEvents(
          text
            .split("\n")
            .filter(Boolean)
            .flatMap((line) => {
              try {
                return [JSON.parse(line) as TimelineEvent];
              } catch {
                return [];
              }
            }),
        ),
      () => setEvents([]),
    );
  }, [runId]);
  return (
    <JobDetail
      result={r}
      inputs={meta.data ? inputsOf(runId, meta.data) : undefined}
      events={events}
      artifactUrl={(a, dl) => runFileUrl(runId, a.relativePath, dl)}
    />
  );
}

function InputsSection({ inputs }: { inputs: JobInputs | undefined }) {
  if (!inputs) return <p class="muted">not available</p>;
  const values = Object.entries(inputs.values);
  return (
    <>
      {inputs.files.length > 0 ? (
        <ul class="input-files">
          {inputs.files.map((f) => (
            <li key={f.field} data-field={f.field}>
              <code>{f.field}</code>: {f.url ? <a href={f.url}>{f.name}</a> : f.name}
              {f.bytes !== undefined ? <span class="muted"> ({bytesText(f.bytes)})</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {values.length > 0 ? <Json value={inputs.values} /> : inputs.files.length === 0 ? <p class="muted">no inputs</p> : null}
    </>
  );
}

function bytesText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function JobDetail({
  result: r,
  inputs,
  events,
  artifactUrl,
}: {
  result: JobResultLike;
  inputs?: JobInputs;
  events?: TimelineEvent[];
  artifactUrl: (a: NonNullable<JobResultLike["artifacts"]>[number], download: boolean) => string;
}) {
  return (
    <>
      <p>
        skill <strong>{r.skill_id}</strong> with engine {r.engine}: <Status status={r.status ?? "unknown"} />
      </p>
      {r.error ? (
        <p class="error">
          {r.error.code}: {r.error.message}
        </p>
      ) : null}
      {(r.warnings ?? []).map((w) => (
        <p class="warning" key={w}>
          warning: {w}
        </p>
      ))}
      <div class="grid2">
        <Section title="inputs">
          <InputsSection inputs={inputs} />
        </Section>
        <Section title={inputs?.resolved ? "parameters (defaults applied)" : "parameters"}>
          {!inputs ? <p class="muted">not available</p> : <Json value={inputs.parameter} />}
        </Section>
      </div>
      <Section title="rendered prompt" open={false}>
        <Code code={r.prompt ?? "(not recorded)"} language="markdown" />
      </Section>
      <Section title={`events${events ? ` (${events.length})` : ""}`}>
        {events ? <Timeline events={events} /> : <Loading what="events" />}
      </Section>
      <Section title="output">{r.output === undefined ? <p class="muted">no output</p> : <Json value={r.output} />}</Section>
      <Section title={`artifacts (${r.artifacts?.length ?? 0})`}>
        {(r.artifacts ?? []).length === 0 ? <p class="muted">no artifacts</p> : null}
        {(r.artifacts ?? []).map((a) => (
          <ArtifactPreview key={a.field} name={a.filename} url={artifactUrl(a, false)} downloadUrl={artifactUrl(a, true)} />
        ))}
      </Section>
    </>
  );
}
