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

export function RunsList({ server }: { server: string | null }) {
  const { data, error } = useFetch<{ runs: RunRecord[] }>("/api/runs");
  const [kind, setKind] = useState("all");
  const [status, setStatus] = useState("all");
  const [search, setSearch] = useState("");
  const runs = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (data?.runs ?? []).filter(
      (r) =>
        (kind === "all" || r.kind === kind) &&
        (status === "all" || r.status === status) &&
        (q === "" || `${r.name} ${r.engines.join(" ")} ${r.id}`.toLowerCase().includes(q)),
    );
  }, [data, kind, status, search]);
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
        <label>
          search{" "}
          <input
            type="search"
            value={search}
            placeholder="task, skill, engine"
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
            name="search"
          />
        </label>
      </div>
      {error ? <ErrorBox error={error} /> : !data ? <Loading what="runs" /> : null}
      {data ? picker.bar : null}
      {data ? (
        <div class="scroll">
          <table class="table runs">
            <thead>
              <tr>
                <th>compare</th>
                <th>kind</th>
                <th>task or skill</th>
                <th>engine</th>
                <th>when</th>
                <th>status</th>
                <th class="num">pass rate</th>
                <th class="num">duration</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id} data-run={r.id} data-kind={r.kind}>
                  <td>{picker.box(r)}</td>
                  <td>{r.kind}</td>
                  <td>
                    <a href={(r.kind === "eval" && evalPageOf(r.id)) || `#/run/${encodeURIComponent(r.id)}`}>
                      {r.name}
                      {r.kind === "eval" ? <span class="muted"> {r.id.split("/").pop()}</span> : null}
                    </a>
                  </td>
                  <td>{r.engines.join(", ") || "–"}</td>
                  <td>{when(r.started_at)}</td>
                  <td>
                    <Status status={r.status} />
                  </td>
                  <td class="num">
                    {percent(r.pass_rate)}
                    {r.total !== null ? (
                      <span class="muted">
                        {" "}
                        ({r.passed}/{r.total})
                      </span>
                    ) : null}
                  </td>
                  <td class="num">{duration(r.duration_ms)}</td>
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
  const { data, error } = useFetch<{ record: RunRecord; report: unknown }>(`/api/runs/${encodeURIComponent(id)}`);
  if (error) return <main>{<ErrorBox error={error} />}</main>;
  if (!data) return <Loading what="the run" />;
  const { record, report } = data;
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
      {!isObject(report) ? (
        <p class="error">this run's {record.report} is missing or not JSON</p>
      ) : report.kind === "skillrig-solve-report" ? (
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

interface TestReport {
  task_id: string;
  deliverable_type?: string;
  isolation?: string;
  summary: { total: number; passed: number; failed: number; errored: number; invalid: number };
  cases: CaseLike[];
  warnings?: string[];
}

function TestView({ report }: { report: TestReport }) {
  const s = report.summary;
  return (
    <>
      <p>
        task <strong>{report.task_id}</strong>
        {report.deliverable_type ? ` (${report.deliverable_type})` : ""}: {s.passed}/{s.total} passed, {s.failed} failed, {s.errored}{" "}
        errored, {s.invalid} invalid{report.isolation ? ` · isolation ${report.isolation}` : ""}
      </p>
      {(report.warnings ?? []).map((w) => (
        <p class="warning" key={w}>
          warning: {w}
        </p>
      ))}
      <CaseTable cases={report.cases} />
    </>
  );
}

interface SuiteSample {
  sample?: number | string;
  index?: number;
  status?: string;
  cases: CaseLike[];
  deliverable?: string | { path?: string; content?: string };
  [key: string]: unknown;
}
interface SuiteReport {
  summary?: Record<string, unknown>;
  pass_at_k?: Record<string, number>;
  tasks: Array<{ task_id: string; samples?: SuiteSample[]; cases?: CaseLike[]; pass_at_k?: Record<string, number> }>;
}

function sampleStatus(s: SuiteSample): string {
  if (typeof s.status === "string") return s.status;
  return s.cases.length > 0 && s.cases.every((c) => c.status === "passed") ? "passed" : "failed";
}

function PassAtK({ values }: { values?: Record<string, number> }) {
  if (!values || Object.keys(values).length === 0) return null;
  return (
    <span class="passk">
      {Object.entries(values).map(([k, v]) => (
        <span key={k} class="chip static">
          pass@{k} {percent(v)}
        </span>
      ))}
    </span>
  );
}

/** A multi-task suite: tasks down, samples across; a cell opens that sample's cases. */
function SuiteView({ report }: { report: SuiteReport }) {
  const [selected, setSelected] = useState<{ task: number; sample: number } | undefined>();
  const width = Math.max(1, ...report.tasks.map((t) => (t.samples ?? []).length));
  const chosenTask = selected ? report.tasks[selected.task] : undefined;
  const chosen = selected ? chosenTask?.samples?.[selected.sample] : undefined;
  return (
    <>
      <p>
        {report.tasks.length} task(s) <PassAtK values={report.pass_at_k} />
      </p>
      {report.summary ? <Json value={report.summary} /> : null}
      <div class="scroll">
        <table class="table matrix">
          <thead>
            <tr>
              <th>task</th>
              {Array.from({ length: width }, (_, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the column's identity.
                <th key={i}>sample {i + 1}</th>
              ))}
              <th>pass@k</th>
            </tr>
          </thead>
          <tbody>
            {report.tasks.map((t, ti) => (
              <tr key={t.task_id}>
                <td>{t.task_id}</td>
                {Array.from({ length: width }, (_, si) => {
                  const s = t.samples?.[si];
                  // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the cell's identity.
                  if (!s) return <td key={si} />;
                  const st = sampleStatus(s);
                  const passed = s.cases.filter((c) => c.status === "passed").length;
                  return (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the cell's identity.
                    <td key={si}>
                      <button
                        type="button"
                        class={`cell s-${st}`}
                        aria-pressed={selected?.task === ti && selected.sample === si}
                        onClick={() => setSelected({ task: ti, sample: si })}
                      >
                        {st} {passed}/{s.cases.length}
                      </button>
                    </td>
                  );
                })}
                <td>
                  <PassAtK values={t.pass_at_k} />
                </td>
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
          {isObject(chosen.deliverable) && typeof chosen.deliverable.content === "string" ? (
            <Section title={`deliverable ${chosen.deliverable.path ?? ""}`}>
              <Code code={chosen.deliverable.content} language="python" />
            </Section>
          ) : null}
          <CaseTable cases={chosen.cases} />
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

/** A recorded skill job: what went in (run.json), the prompt, the events, the output and the artifacts. */
function SkillRunView({ runId, result }: { runId: string; result: Record<string, unknown> }) {
  const r = result as JobResultLike;
  const meta = useFetch<{ request?: { input?: unknown; parameter?: unknown } }>(runFileUrl(runId, "run.json"));
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
      input={meta.data?.request?.input}
      parameter={meta.data?.request?.parameter}
      events={events}
      artifactUrl={(a, dl) => runFileUrl(runId, a.relativePath, dl)}
    />
  );
}

export function JobDetail({
  result: r,
  input,
  parameter,
  events,
  artifactUrl,
}: {
  result: JobResultLike;
  input?: unknown;
  parameter?: unknown;
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
        <Section title="inputs">{input === undefined ? <p class="muted">not available</p> : <Json value={input} />}</Section>
        <Section title="parameters">{parameter === undefined ? <p class="muted">not available</p> : <Json value={parameter} />}</Section>
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
