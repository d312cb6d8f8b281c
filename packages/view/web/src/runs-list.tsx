/** The runs page (`#/`): every recorded run, filtered, searched, sorted and exported; tick two to compare them. */
import { useMemo, useState } from "preact/hooks";
import { evalPageOf, type RunRecord } from "./api.js";
import {
  type Column,
  duration,
  ErrorBox,
  ExportButtons,
  Loading,
  percent,
  SearchBox,
  ShortId,
  SortHeader,
  Status,
  useFetch,
  useHashParam,
  useTableView,
  viewRows,
  When,
} from "./kit/index.js";

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
  { key: "when", label: "when", value: (r) => r.started_at, render: (r) => <When iso={r.started_at} /> },
  { key: "status", label: "status", value: (r) => r.status, render: (r) => <Status status={r.status} /> },
  {
    key: "pass_rate",
    label: "pass rate",
    num: true,
    value: (r) => r.pass_rate,
    render: (r) => <RateCell r={r} />,
  },
  { key: "duration", label: "duration", num: true, value: (r) => r.duration_ms, render: (r) => duration(r.duration_ms) },
  { key: "id", label: "id", value: (r) => r.id, render: (r) => <ShortId id={r.id} /> },
];

/** What `passed/total` counts in a record of each kind (docs/view.md, record.json). */
const COUNTED: Record<RunRecord["kind"], string> = {
  test: "cases (one task) or samples (a suite)",
  solve: "attempts",
  run: "",
  eval: "",
};

/** A run's pass rate and what it counts; a single skill job has none (its status says how it ended). */
function RateCell({ r }: { r: RunRecord }) {
  if (r.kind === "run")
    return (
      <span class="muted" title="a single job: its status says how it ended">
        –
      </span>
    );
  return (
    <>
      {percent(r.pass_rate)}
      {r.total !== null ? (
        <span class="muted" title={`passed / total ${COUNTED[r.kind]}`}>
          {" "}
          ({r.passed}/{r.total}
          {r.kind === "solve" ? " attempts" : ""})
        </span>
      ) : null}
    </>
  );
}

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

/**
 * The runs list's picker: a checkbox per run that can be compared, and a "Compare" button once two are ticked
 * (the older one is "before"). Eval iterations are compared on their eval's page.
 */
export function useRunPicker(runs: RunRecord[]) {
  const [picked, setPicked] = useState<string[]>([]);
  const chosen = runs.filter((r) => picked.includes(r.id)).sort((x, y) => (x.started_at < y.started_at ? -1 : 1));
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));
  return {
    box: (r: RunRecord) =>
      r.kind === "eval" ? null : (
        <input
          type="checkbox"
          name="compare"
          value={r.id}
          aria-label={`compare ${r.kind} ${r.name} ${r.id}`}
          checked={picked.includes(r.id)}
          onChange={() => toggle(r.id)}
        />
      ),
    bar: (
      <p class="compare-bar">
        {chosen.length === 2 ? (
          <a class="chip" href={`#/compare/${encodeURIComponent(chosen[0]!.id)}/${encodeURIComponent(chosen[1]!.id)}`}>
            Compare
          </a>
        ) : (
          <span class="muted">tick two runs to compare them</span>
        )}
      </p>
    ),
  };
}
