/**
 * Pages over `skillrig eval`'s folders: an eval (its iterations), one iteration (the delta, cases x configurations
 * x engines, a run's assertions and outputs, trigger rates) and two iterations compared.
 *
 * What an agent wrote (the final answer, outputs/ files, evidence quoting them) is only ever put into the page as
 * text: Preact escapes it, and outputs/ files come from the server as text/plain under a sandbox CSP.
 */
import type { Benchmark, ConfigurationSummary, CountOfN, Grading, RunDelta, TriggerReport } from "@skillrig/evals/format";
import type { EvalSummary, IterationDetail, RunAssertions, RunDetail } from "../../src/eval-api.js";
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { evalFileUrl, evalUrl, getText } from "./api.js";
import { compareIterations } from "@skillrig/evals/compare";
import { type Change, compareCases, compareDeltas, compareTriggers, flippedAssertions } from "./eval-compare.js";
import {
  asText,
  duration,
  ErrorBox,
  evalCaseName,
  Loading,
  PairedCells,
  percent,
  STATS_HEAD,
  Section,
  signed,
  Status,
  statusClass,
  TONES,
  toneOf,
  usd,
  useFetch,
  WilsonText,
  When,
} from "./kit/index.js";
import { TrendSection } from "./trend-chart.js";

const evalPage = (id: string, n?: number) => `#/eval/${encodeURIComponent(id)}${n === undefined ? "" : `/${n}`}`;
const comparePage = (id: string, before: number, after: number) => `#/eval/${encodeURIComponent(id)}/compare/${before}/${after}`;

function seconds(s: number | undefined): string {
  return s === undefined ? "–" : duration(s * 1000);
}

function Problems({ problems }: { problems: Array<string | null | undefined> }) {
  const shown = problems.filter((p): p is string => typeof p === "string" && p !== "");
  if (shown.length === 0) return null;
  return (
    <div class="error" role="alert">
      {shown.map((p) => (
        <p key={p} class="problem">
          {p}
        </p>
      ))}
    </div>
  );
}

const MARKS: Record<Change, string> = {
  better: "▲ better",
  worse: "▼ worse",
  same: "= same",
  new: "new",
  gone: "gone",
  not_run: "○ not run",
};

export function Mark({ change }: { change: Change }) {
  return (
    <span class={`mark m-${change}`} data-change={change}>
      {MARKS[change]}
    </span>
  );
}

function summaryOf(summary: RunDelta | ConfigurationSummary | undefined): ConfigurationSummary | undefined {
  return summary && "runs" in summary ? summary : undefined;
}

type Head = string | [string, "num"];

/** A table that scrolls sideways on a narrow screen; `name` (data-table) is what tests and styles select it by. */
function DataTable({ name, head, children }: { name: string; head: Head[]; children: ComponentChildren }) {
  return (
    <div class="scroll">
      <table class="table" data-table={name}>
        <thead>
          <tr>
            {head.map((h) =>
              typeof h === "string" ? (
                <th key={h}>{h}</th>
              ) : (
                <th key={h[0]} class="num">
                  {h[0]}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

function IterationSelect({
  label,
  numbers,
  value,
  onPick,
}: { label: string; numbers: number[]; value: number | undefined; onPick: (n: number) => void }) {
  return (
    <label>
      {label}{" "}
      <select name={label.replace(/ /g, "-")} value={String(value)} onChange={(e) => onPick(Number((e.target as HTMLSelectElement).value))}>
        {numbers.map((n) => (
          <option key={n} value={String(n)}>
            iteration {n}
          </option>
        ))}
      </select>
    </label>
  );
}

/** An eval folder: its iterations, newest first, and two picked to compare. */
export function EvalPage({ id }: { id: string }) {
  const { data, error } = useFetch<EvalSummary>(evalUrl(id));
  const [before, setBefore] = useState<number | undefined>();
  const [after, setAfter] = useState<number | undefined>();
  if (error) return <main>{<ErrorBox error={error} />}</main>;
  if (!data) return <Loading what="the eval" />;
  const numbers = data.iterations.map((i) => i.n);
  const a = after ?? numbers[0];
  const b = before ?? numbers[1];
  return (
    <main>
      <p>
        <a href="#/">← runs</a>
      </p>
      <h1>eval {data.skill_name}</h1>
      <p class="muted">{data.id}</p>
      <TrendSection of="evals" id={data.id} />
      <DataTable name="iterations" head={["iteration", "status", "when", "engines", "pass rate per configuration", ["delta", "num"]]}>
        {data.iterations.map((i) => (
          <tr key={i.n} data-iteration={i.n}>
            <td>
              <a href={evalPage(data.id, i.n)}>iteration {i.n}</a>
            </td>
            <td>
              <Status status={i.status} />
            </td>
            <td>
              <When iso={i.started_at} />
            </td>
            <td>{i.engines.join(", ") || "–"}</td>
            <td>
              {Object.entries(i.pass_rates)
                .map(([c, r]) => `${c} ${percent(r)}`)
                .join(" · ") || "–"}
              {i.problems.map((p) => (
                <p key={p} class="error">
                  {p}
                </p>
              ))}
            </td>
            <td class="num">{i.delta ? signed(i.delta.pass_rate, "rate") : "–"}</td>
          </tr>
        ))}
      </DataTable>
      {numbers.length > 1 ? (
        <div class="filters">
          <IterationSelect label="before" numbers={numbers} value={b} onPick={setBefore} />
          <IterationSelect label="after" numbers={numbers} value={a} onPick={setAfter} />
          {a !== undefined && b !== undefined && a !== b ? <a href={comparePage(data.id, b, a)}>compare</a> : null}
        </div>
      ) : null}
    </main>
  );
}

/** One iteration of a skill's evals. */
export function IterationPage({ id, n }: { id: string; n: number }) {
  const { data, error } = useFetch<IterationDetail>(evalUrl(id, n));
  const others = useFetch<EvalSummary>(evalUrl(id));
  const [other, setOther] = useState<number | undefined>();
  if (error) return <main>{<ErrorBox error={error} />}</main>;
  if (!data) return <Loading what="the iteration" />;
  const it = data.iteration;
  const bench = data.benchmark;
  const choices = (others.data?.iterations ?? []).map((i) => i.n).filter((m) => m !== n);
  const picked = other ?? choices[0];
  return (
    <main>
      <p>
        <a href={evalPage(id)}>← eval {it?.skill_name ?? id}</a>
      </p>
      <h1>
        {it?.skill_name ?? id} · iteration {n} {it ? <Status status={it.status} /> : null}
      </h1>
      {it ? (
        <p class="muted">
          <When iso={it.started_at} />
          {it.finished_at ? ` · ${duration(Date.parse(it.finished_at) - Date.parse(it.started_at))}` : ""} · engines {it.engines.join(", ")}{" "}
          · {it.configurations.join(" vs ")} · {it.runs_per_configuration} run(s) per configuration
          {it.judge ? ` · judge ${it.judge}` : ""}
          {it.min_pass_rate !== undefined ? ` · min pass rate ${percent(it.min_pass_rate)}` : ""}
          {it.baseline_path ? ` · baseline ${it.baseline_path}` : ""}
          {it.distractors_path ? ` · distractors ${it.distractors_path}` : ""}
        </p>
      ) : null}
      {it?.inline_skill ? (
        <p class="muted" data-field="inline-skill">
          inline_skill prompt: {it.inline_skill.files.map((f) => `${f.path} (${f.bytes} B)`).join(", ")} · {it.inline_skill.bytes} of at
          most {it.inline_skill.max_bytes} bytes
          {it.inline_skill.left_out && it.inline_skill.left_out.length > 0
            ? ` · left out: ${it.inline_skill.left_out.map((l) => `${l.path} (${l.reason})`).join(", ")}`
            : ""}
        </p>
      ) : null}
      <Problems problems={[data.iteration_problem, data.benchmark_problem]} />
      {choices.length > 0 && picked !== undefined ? (
        <div class="filters">
          <IterationSelect label="compare with" numbers={choices} value={picked} onPick={setOther} />
          <a href={comparePage(id, Math.min(picked, n), Math.max(picked, n))} data-link="compare">
            compare
          </a>
        </div>
      ) : null}
      {bench ? (
        <>
          <DeltaTable benchmark={bench} />
          <PairDeltaTable benchmark={bench} />
          <CaseMatrix id={id} n={n} benchmark={bench} />
        </>
      ) : it?.status === "running" ? (
        <p class="muted">still running: benchmark.json is written when every run has finished</p>
      ) : null}
      <TriggerSection report={data.triggers} problem={data.triggers_problem} />
    </main>
  );
}

/** The delta, across engines and per engine: each configuration's pass rate, and the differences. */
function DeltaTable({ benchmark }: { benchmark: Benchmark }) {
  const of = benchmark.run_summary.delta?.of ?? benchmark.metadata.configurations.slice(0, 2);
  const rows: Array<[string, Benchmark["run_summary"]]> = [
    ["all engines", benchmark.run_summary],
    ...Object.entries(benchmark.by_engine).map(([e, s]): [string, Benchmark["run_summary"]] => [e, s]),
  ];
  return (
    <>
      <h2>Delta</h2>
      <DataTable
        name="delta"
        head={[
          "engine",
          ...of.map((c): Head => [c, "num"]),
          ["Δ pass rate", "num"],
          ...STATS_HEAD.map((h): Head => [h, "num"]),
          ["Δ time", "num"],
          ["Δ tokens", "num"],
          ["Δ cost / run", "num"],
        ]}
      >
        {rows.map(([scope, s]) => (
          <tr key={scope} data-scope={scope}>
            <td>{scope}</td>
            {of.map((c) => {
              const cs = summaryOf(s[c]);
              return (
                <td key={c} class="num" data-configuration={c}>
                  {cs ? (
                    <>
                      {percent(cs.pass_rate.mean)}
                      <span class="muted"> ± {percent(cs.pass_rate.stddev)}</span>
                      <div class="muted">
                        {seconds(cs.time_seconds.mean)} · {Math.round(cs.tokens.mean)} tokens · {cs.runs} run(s)
                      </div>
                      {cs.cost_usd ? (
                        <div class="muted" data-cost={c}>
                          {usd(cs.cost_usd.total)} ({usd(cs.cost_usd.mean)} / run)
                          {cs.cost_usd.unpriced_runs > 0 ? ` · ${cs.cost_usd.unpriced_runs} unpriced` : ""}
                        </div>
                      ) : null}
                    </>
                  ) : (
                    "–"
                  )}
                </td>
              );
            })}
            <td class="num" data-delta="pass_rate">
              {signed(s.delta?.pass_rate, "rate")}
            </td>
            <PairedCells d={s.delta?.paired?.pass_rate ?? { ci95: null, p_value: null, pairs: 0 }} />
            <td class="num" data-delta="time">
              {signed(s.delta?.time_seconds, "seconds")}
            </td>
            <td class="num" data-delta="tokens">
              {signed(s.delta?.tokens, "tokens")}
            </td>
            <td class="num" data-delta="cost">
              {signed(s.delta?.cost_usd?.delta, "usd")}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/** With three configurations or more: every pair's delta (first minus second), across engines and per engine. */
function PairDeltaTable({ benchmark }: { benchmark: Benchmark }) {
  const deltas = benchmark.deltas ?? [];
  if (benchmark.metadata.configurations.length < 3 || deltas.length === 0) return null;
  return (
    <>
      <h2>Each pair</h2>
      <DataTable
        name="pair-deltas"
        head={[
          "pair",
          "engine",
          ["Δ pass rate", "num"],
          ...STATS_HEAD.map((h): Head => [h, "num"]),
          ["Δ time", "num"],
          ["Δ tokens", "num"],
        ]}
      >
        {deltas.map((d) => (
          <tr key={`${d.of.join("-")} ${d.engine ?? ""}`} data-pair={d.of.join(" - ")} data-scope={d.engine ?? "all engines"}>
            <td>
              {d.of[0]} − {d.of[1]}
            </td>
            <td>{d.engine ?? "all engines"}</td>
            <td class="num" data-delta="pass_rate">
              {signed(d.pass_rate, "rate")}
            </td>
            <PairedCells d={d.paired?.pass_rate ?? { ci95: null, p_value: null, pairs: 0 }} />
            <td class="num" data-delta="time">
              {signed(d.time_seconds, "seconds")}
            </td>
            <td class="num" data-delta="tokens">
              {signed(d.tokens, "tokens")}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

type BenchRun = Benchmark["runs"][number];

/** Cases down, configurations x engines across; a cell opens its run (or picks one of its runs). */
function CaseMatrix({ id, n, benchmark }: { id: string; n: number; benchmark: Benchmark }) {
  const [selected, setSelected] = useState<string | undefined>();
  const configurations = benchmark.metadata.configurations;
  const engines = benchmark.metadata.engines;
  const cases = useMemo(() => {
    const seen = new Set<string>();
    const out: Array<number | string> = [];
    for (const e of [...benchmark.metadata.evals_run, ...benchmark.runs.map((r) => r.eval_id)]) {
      if (!seen.has(String(e))) out.push(e);
      seen.add(String(e));
    }
    return out;
  }, [benchmark]);
  const runsOf = (evalId: number | string, configuration: string, engine: string) =>
    benchmark.runs
      .filter((r) => String(r.eval_id) === String(evalId) && r.configuration === configuration && r.engine === engine)
      .sort((a, b) => a.run_number - b.run_number);
  const chosen = benchmark.runs.find((r) => r.path === selected);
  return (
    <>
      <h2>Cases × configurations × engines</h2>
      <div class="scroll">
        <table class="table matrix" data-table="cases">
          <thead>
            <tr>
              <th rowSpan={2}>case</th>
              {configurations.map((c) => (
                <th key={c} colSpan={engines.length + 1}>
                  {c}
                </th>
              ))}
            </tr>
            <tr>
              {configurations.flatMap((c) => [
                ...engines.map((e) => <th key={`${c}/${e}`}>{e}</th>),
                <th key={`${c}/all`}>all engines</th>,
              ])}
            </tr>
          </thead>
          <tbody>
            {cases.map((evalId) => (
              <tr key={String(evalId)} data-case={String(evalId)}>
                <td>{evalCaseName(evalId)}</td>
                {configurations.flatMap((c) => [
                  ...engines.map((e) => {
                    const runs = runsOf(evalId, c, e);
                    return (
                      <td key={`${c}/${e}`} data-cell={`${evalId}/${c}/${e}`}>
                        {runs.length === 0 ? (
                          <span class="muted">–</span>
                        ) : (
                          <CellButton runs={runs} selected={selected} onPick={setSelected} />
                        )}
                      </td>
                    );
                  }),
                  <td key={`${c}/all`} class="num" data-cell={`${evalId}/${c}/all`}>
                    {percent(benchmark.by_eval.find((b) => String(b.eval_id) === String(evalId) && b.configuration === c)?.pass_rate)}
                  </td>,
                ])}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chosen ? (
        <RunView id={id} n={n} run={chosen} key={chosen.path} />
      ) : (
        <p class="muted">choose a cell to see that run's assertions, answer and outputs</p>
      )}
    </>
  );
}

function CellButton({ runs, selected, onPick }: { runs: BenchRun[]; selected?: string; onPick: (path: string) => void }) {
  const mean = (f: (r: BenchRun) => number) => runs.reduce((s, r) => s + f(r), 0) / runs.length;
  const failed = runs.some((r) => r.result.status !== "succeeded");
  const rate = mean((r) => r.result.pass_rate);
  const status = failed ? "error" : rate === 1 ? "passed" : "failed";
  return (
    <div class="cell-runs">
      {runs.map((r) => (
        <button
          type="button"
          key={r.path}
          class={`cell ${statusClass(status)}`}
          data-symbol={TONES[toneOf(status)].symbol}
          aria-pressed={selected === r.path}
          data-run-path={r.path}
          onClick={() => onPick(r.path)}
          title={`${r.result.status}: the run's pass rate (assertions passed / assertions)`}
        >
          {runs.length > 1 ? `#${r.run_number} ` : ""}
          {percent(r.result.pass_rate)} ({r.result.passed}/{r.result.total}){r.result.status !== "succeeded" ? ` ${r.result.status}` : ""}
        </button>
      ))}
      <div class="muted cell-stats">
        {runs.length} run(s) · {seconds(mean((r) => r.result.time_seconds))} · {Math.round(mean((r) => r.result.tokens))} tokens
      </div>
    </div>
  );
}

/** One run: its assertions with evidence, the final answer, outputs/ (each file shown as text on demand), the job. */
function RunView({ id, n, run }: { id: string; n: number; run: BenchRun }) {
  const encoded = run.path.split("/").map(encodeURIComponent).join("/");
  const { data, error } = useFetch<RunDetail>(evalUrl(id, n, `/run/${encoded}`));
  return (
    <section aria-label="selected run" data-run={run.path}>
      <h2>
        {evalCaseName(run.eval_id)} · {run.configuration} · {run.engine} · run {run.run_number} <Status status={run.result.status} />
      </h2>
      {error ? <ErrorBox error={error} /> : !data ? <Loading what="the run" /> : null}
      {data ? (
        <>
          <p class="muted">
            {data.answer ? (
              <>
                job <code data-field="job-id">{data.answer.job_id}</code> · skills activated{" "}
                {data.answer.skills_activated.length > 0 ? data.answer.skills_activated.join(", ") : "none"}
              </>
            ) : null}
            {data.timing ? ` · ${duration(data.timing.duration_ms)} · ${data.timing.total_tokens} tokens` : ""}
            {data.timing?.cost_usd !== undefined ? ` · ${usd(data.timing.cost_usd)}` : ""} · {run.path}
          </p>
          <Problems problems={[data.answer_problem, data.grading_problem, data.timing_problem, data.outputs_problem]} />
          {data.answer?.error ? (
            <p class="error" data-field="run-error">
              {data.answer.error.code}: {data.answer.error.message}
            </p>
          ) : null}
          {data.grading ? <Assertions grading={data.grading} /> : null}
          <Section title="final answer">
            {data.answer && data.answer.answer !== undefined ? (
              <pre class="code" data-field="answer">
                {asText(data.answer.answer)}
              </pre>
            ) : (
              <p class="muted">no final answer</p>
            )}
          </Section>
          <Outputs id={id} n={n} run={data} />
        </>
      ) : null}
    </section>
  );
}

function Assertions({ grading }: { grading: Grading }) {
  const s = grading.summary;
  return (
    <>
      <h3>
        Assertions: {s.passed}/{s.total} passed ({percent(s.pass_rate)})
      </h3>
      <DataTable name="assertions" head={["assertion", "result", "graded by", "evidence"]}>
        {grading.assertion_results.map((a, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: assertions have no identity but their place.
          <tr key={i} data-passed={String(a.passed)}>
            <td class="wrap">{a.text}</td>
            <td>
              <Status status={a.passed ? "passed" : "failed"} />
            </td>
            <td>{a.graded_by}</td>
            <td class="evidence">{a.evidence}</td>
          </tr>
        ))}
      </DataTable>
      {(grading.errors ?? []).map((e) => (
        <p key={e} class="warning">
          grading: {e}
        </p>
      ))}
    </>
  );
}

function Outputs({ id, n, run }: { id: string; n: number; run: RunDetail }) {
  const [open, setOpen] = useState<string | undefined>();
  const skipped = run.answer?.outputs_skipped ?? [];
  return (
    <Section title={`outputs (${run.outputs.length + run.outputs_unlisted})`}>
      {run.outputs.length === 0 ? <p class="muted">no outputs</p> : null}
      <ul class="outputs">
        {run.outputs.map((o) => {
          const path = `${run.path}/outputs/${o.path}`;
          return (
            <li key={o.path} data-output={o.path}>
              <code>{o.path}</code>{" "}
              {o.type === "file" ? (
                <>
                  <span class="muted">{o.size} bytes</span>{" "}
                  {o.size <= run.max_shown_bytes ? (
                    <button
                      type="button"
                      class="chip"
                      aria-expanded={open === o.path}
                      onClick={() => setOpen(open === o.path ? undefined : o.path)}
                    >
                      {open === o.path ? "hide" : "show as text"}
                    </button>
                  ) : (
                    <span class="muted">too large to show here</span>
                  )}{" "}
                  <a class="chip" href={evalFileUrl(id, n, path, true)} download={o.path.split("/").pop()}>
                    download
                  </a>
                  {open === o.path ? <OutputText url={evalFileUrl(id, n, path)} /> : null}
                </>
              ) : (
                <span class="warning">{o.type === "link" ? "a link: not followed" : "not a regular file"}</span>
              )}
            </li>
          );
        })}
      </ul>
      {run.outputs_unlisted > 0 ? <p class="muted">and {run.outputs_unlisted} more not listed</p> : null}
      {skipped.length > 0 ? (
        <>
          <h4>left out of outputs/ when it was copied</h4>
          <ul>
            {skipped.map((s) => (
              <li key={s.path}>
                <code>{s.path}</code>: {s.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Section>
  );
}

/** An outputs/ file as text: never rendered, whatever its name says it is. */
function OutputText({ url }: { url: string }) {
  const [text, setText] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    getText(url).then(setText, (e: Error) => setError(e.message));
  }, [url]);
  if (error) return <p class="error">{error}</p>;
  if (text === undefined) return <Loading what="the file" />;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <pre class="code" tabIndex={0} data-field="output-text">
      {text}
    </pre>
  );
}

function TriggerSection({ report, problem }: { report: TriggerReport | null; problem: string | null }) {
  if (!report && !problem) return null;
  return (
    <>
      <h2>Triggers</h2>
      <Problems problems={[problem]} />
      {report ? <TriggerTables report={report} /> : null}
      {report?.distractors ? <ConfusionTables report={report} /> : null}
    </>
  );
}

function CountCell({ c, name }: { c: CountOfN; name: string }) {
  return (
    <td class="num" data-count={name} data-n={String(c.n)}>
      {c.count}/{c.n} <WilsonText ci={c.ci95} />
    </td>
  );
}

/** Among neighbours (--distractors): whose queries down, which skill fired first across, with n; and the two headline counts. */
function ConfusionTables({ report }: { report: TriggerReport }) {
  const d = report.distractors!;
  const skills = [report.skill_name, ...d.skills.map((s) => s.name)];
  return (
    <>
      <h3>Among neighbours</h3>
      <p class="muted">
        installed beside {report.skill_name}: {d.skills.map((s) => `${s.name} (${s.queries} queries of its own)`).join(", ")}; each run
        counts the skill the agent activated first
      </p>
      {d.confusion.map((t) => (
        <div key={t.engine ?? "all"} data-confusion={t.engine ?? "all engines"}>
          {d.confusion.length > 1 ? <h4>{t.engine ?? "all engines"}</h4> : null}
          <DataTable name="confusion" head={["queries of", ...skills.map((s): Head => [s, "num"]), ["none", "num"], ["n", "num"]]}>
            {t.rows.map((r) => (
              <tr key={r.owner} data-owner={r.owner}>
                <td>{r.owner}</td>
                {skills.map((s) => (
                  <td key={s} class="num" data-fired={s}>
                    {r.fired[s] ?? 0}
                  </td>
                ))}
                <td class="num" data-fired="none">
                  {r.none}
                </td>
                <td class="num" data-n={String(r.n)}>
                  {r.n}
                </td>
              </tr>
            ))}
          </DataTable>
          <DataTable
            name="confusion-summary"
            head={[
              ["picked on its own queries", "num"],
              ["fired on a neighbour's query", "num"],
            ]}
          >
            <tr>
              <CountCell c={t.picked} name="picked" />
              <CountCell c={t.fired_on_neighbours} name="fired_on_neighbours" />
            </tr>
          </DataTable>
        </div>
      ))}
    </>
  );
}

function TriggerTables({ report }: { report: TriggerReport }) {
  const engines = [...new Set(report.queries.map((q) => q.engine))];
  const queries = [...new Map(report.queries.map((q) => [q.query, q])).values()];
  return (
    <>
      <p class="muted">
        {report.runs_per_query} run(s) per query and engine; a query that should trigger passes above {percent(report.threshold)}, a near
        miss at or below it
      </p>
      <DataTable name="triggers" head={["query", "should trigger", "split", ...engines]}>
        {queries.map((q) => (
          <tr key={q.query} data-query={q.query}>
            <td class="wrap">{q.query}</td>
            <td>{q.should_trigger ? "yes" : "no"}</td>
            <td>{q.split}</td>
            {engines.map((e) => {
              const r = report.queries.find((x) => x.query === q.query && x.engine === e);
              return (
                <td key={e} data-engine={e}>
                  {r ? (
                    <>
                      {percent(r.trigger_rate)}{" "}
                      <span class="muted">
                        ({r.triggers}/{r.runs})
                      </span>
                      <WilsonText ci={r.trigger_rate_ci95} /> <Status status={r.passed ? "passed" : "failed"} />
                    </>
                  ) : (
                    "–"
                  )}
                </td>
              );
            })}
          </tr>
        ))}
      </DataTable>
      <DataTable name="trigger-splits" head={["engine", ["train passed", "num"], ["validation passed", "num"]]}>
        {Object.entries(report.summary).map(([engine, s]) => (
          <tr key={engine} data-engine={engine}>
            <td>{engine}</td>
            <td class="num" data-split="train">
              {s.train.passed}/{s.train.total}
            </td>
            <td class="num" data-split="validation">
              {s.validation.passed}/{s.validation.total}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/**
 * Each configuration's pass rate before → after, paired by eval case, with its interval and p-value: the numbers of
 * `skillrig eval`'s closing lines and comparison.json (both are compareIterations).
 */
function PassRateChange({ before, after }: { before: Benchmark; after: Benchmark }) {
  const c = compareIterations(before, after);
  return (
    <>
      <h2>Pass rate</h2>
      <p class="compare-verdict" data-regression={String(c.regression)} data-significant={String(c.significant_drop)}>
        {c.regression ? (
          <strong class="m-worse">a case's with_skill pass rate fell{c.significant_drop ? " (significant)" : " (could be noise)"}</strong>
        ) : (
          <strong class="m-better">no case's with_skill pass rate fell</strong>
        )}
      </p>
      <DataTable
        name="pass-rate-change"
        head={[
          "configuration",
          "engine",
          ["before", "num"],
          ["after", "num"],
          ["delta", "num"],
          ...STATS_HEAD.map((h): Head => [h, "num"]),
        ]}
      >
        {c.configurations.map((row) => (
          <tr key={`${row.configuration}/${row.engine ?? ""}`} data-configuration={row.configuration} data-engine={row.engine ?? "all"}>
            <td>{row.configuration}</td>
            <td>{row.engine ?? "all engines"}</td>
            <td class="num" data-value={String(row.pass_rate.before)}>
              {percent(row.pass_rate.before)}
            </td>
            <td class="num" data-value={String(row.pass_rate.after)}>
              {percent(row.pass_rate.after)}
            </td>
            <td class="num" data-delta={String(row.pass_rate.delta)}>
              {signed(row.pass_rate.delta, "rate")}
            </td>
            <PairedCells d={row.pass_rate} />
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/** Two iterations of one skill: what got better or worse from `before` to `after`. */
export function ComparePage({ id, before, after }: { id: string; before: number; after: number }) {
  const b = useFetch<IterationDetail>(evalUrl(id, before));
  const a = useFetch<IterationDetail>(evalUrl(id, after));
  const bAssertions = useFetch<{ runs: RunAssertions[] }>(evalUrl(id, before, "/assertions"));
  const aAssertions = useFetch<{ runs: RunAssertions[] }>(evalUrl(id, after, "/assertions"));
  const error = b.error ?? a.error;
  if (error) return <main>{<ErrorBox error={error} />}</main>;
  if (!b.data || !a.data) return <Loading what="the iterations" />;
  const name = a.data.iteration?.skill_name ?? id;
  const bb = b.data.benchmark;
  const ab = a.data.benchmark;
  const flips = bAssertions.data && aAssertions.data ? flippedAssertions(bAssertions.data.runs, aAssertions.data.runs) : undefined;
  const triggers = compareTriggers(b.data.triggers, a.data.triggers);
  return (
    <main>
      <p>
        <a href={evalPage(id)}>← eval {name}</a>
      </p>
      <h1>
        {name}: iteration {before} → iteration {after}
      </h1>
      <p>
        <a href={evalPage(id, before)}>iteration {before}</a> · <a href={evalPage(id, after)}>iteration {after}</a>
      </p>
      <Problems
        problems={[
          b.data.benchmark_problem && `iteration ${before}: ${b.data.benchmark_problem}`,
          a.data.benchmark_problem && `iteration ${after}: ${a.data.benchmark_problem}`,
          b.data.triggers_problem && `iteration ${before}: ${b.data.triggers_problem}`,
          a.data.triggers_problem && `iteration ${after}: ${a.data.triggers_problem}`,
        ]}
      />
      {bb && ab ? (
        <>
          <PassRateChange before={bb} after={ab} />
          <h2>Delta</h2>
          <DataTable name="delta-change" head={["engine", "Δ pass rate", "Δ time", "Δ tokens", "change"]}>
            {compareDeltas(bb, ab).map((d) => (
              <tr key={d.scope} data-scope={d.scope}>
                <td>{d.scope}</td>
                <td data-delta="pass_rate">
                  {signed(d.before?.pass_rate, "rate")} → {signed(d.after?.pass_rate, "rate")}
                </td>
                <td data-delta="time">
                  {signed(d.before?.time_seconds, "seconds")} → {signed(d.after?.time_seconds, "seconds")}
                </td>
                <td data-delta="tokens">
                  {signed(d.before?.tokens, "tokens")} → {signed(d.after?.tokens, "tokens")}
                </td>
                <td>
                  <Mark change={d.change} />
                </td>
              </tr>
            ))}
          </DataTable>
          <h2>Cases</h2>
          <DataTable name="case-change" head={["case", "configuration", "pass rate", "change"]}>
            {compareCases(bb, ab).map((c) => (
              <tr key={`${c.eval_id}/${c.configuration}`} data-case={`${c.eval_id}/${c.configuration}`}>
                <td>{evalCaseName(c.eval_id)}</td>
                <td>{c.configuration}</td>
                <td>
                  {percent(c.before)} → {percent(c.after)}
                </td>
                <td>
                  <Mark change={c.change} />
                </td>
              </tr>
            ))}
          </DataTable>
          <h2>Assertions that flipped</h2>
          {!flips ? (
            (bAssertions.error ?? aAssertions.error) ? (
              <ErrorBox error={(bAssertions.error ?? aAssertions.error)!} />
            ) : (
              <Loading what="the assertions" />
            )
          ) : flips.length === 0 ? (
            <p class="muted">no assertion changed its result</p>
          ) : (
            <DataTable name="flips" head={["case", "configuration", "engine", "run", "assertion", "result"]}>
              {flips.map((f) => (
                <tr
                  key={`${f.eval_id}/${f.configuration}/${f.engine}/${f.run_number}/${f.text}`}
                  data-flip={`${f.eval_id}/${f.configuration}/${f.engine}`}
                  data-change={f.change}
                >
                  <td>{evalCaseName(f.eval_id)}</td>
                  <td>{f.configuration}</td>
                  <td>{f.engine}</td>
                  <td>{f.run_number}</td>
                  <td class="wrap">{f.text}</td>
                  <td>
                    {f.change === "better" ? "failed → passed" : "passed → failed"} <Mark change={f.change} />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </>
      ) : null}
      {triggers.length > 0 ? <TriggerChanges triggers={triggers} /> : null}
    </main>
  );
}

/** Trigger rates per query and engine, before → after; a side that ran no triggers says "not run". */
function TriggerChanges({ triggers }: { triggers: ReturnType<typeof compareTriggers> }) {
  return (
    <>
      <h2>Trigger rates</h2>
      <DataTable name="trigger-change" head={["query", "engine", "should trigger", "split", "trigger rate", "change"]}>
        {triggers.map((t) => (
          <tr key={`${t.query}/${t.engine}`} data-trigger={`${t.query}/${t.engine}`}>
            <td class="wrap">{t.query}</td>
            <td>{t.engine}</td>
            <td>{t.should_trigger ? "yes" : "no"}</td>
            <td>{t.split}</td>
            <td>
              {/* An iteration that ran no triggers says so, rather than a dash that reads as "gone". */}
              {t.before === undefined && t.change === "not_run" ? "not run" : percent(t.before)} →{" "}
              {t.after === undefined && t.change === "not_run" ? "not run" : percent(t.after)}
            </td>
            <td>
              <Mark change={t.change} />
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
