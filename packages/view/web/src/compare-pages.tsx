/**
 * Two recorded runs side by side (`#/compare/<before>/<after>`): cases whose status changed first, pass rate and
 * pass@k deltas, time deltas, a "changed only" filter. The comparison is `compareRuns` of @skillrig/view/compare,
 * the same function `skillrig runs diff` prints, so the page and the CLI agree; this file only lays it out. Also the
 * runs list's picker: tick two runs, "Compare".
 */
import type { ComponentChildren, VNode } from "preact";
import { useState } from "preact/hooks";
import { CompareError, compareRuns, type CaseComparison, type Delta, type RunComparison } from "../../src/compare-runs.js";
import type { RunRecord } from "./api.js";
import { ErrorBox, Loading, Status } from "./components.js";
import { duration, percent, signed, when } from "./format.js";
import { useFetch } from "./runs-pages.js";

type RunData = { record: RunRecord; report: unknown };

const runUrl = (id: string) => `/api/runs/${encodeURIComponent(id)}`;
const pageOf = (id: string) => `#/run/${encodeURIComponent(id)}`;

/** A signed time difference in ms, shown in seconds or milliseconds. */
function timeDelta(ms: number | null): string {
  if (ms === null) return "–";
  const sign = ms > 0 ? "+" : ms < 0 ? "−" : "±";
  return `${sign}${duration(Math.abs(ms))}`;
}

const markOf = (c: { change: string }) => (c.change === "regression" ? "m-worse" : c.change === "fixed" ? "m-better" : "m-same");
const deltaMark = (d: number | null, higherIsBetter = true) =>
  d === null || d === 0 ? "m-same" : d > 0 === higherIsBetter ? "m-better" : "m-worse";

/** A before → after row of a rate: the raw numbers ride along in data attributes (tests read them). */
function RateCells({ d }: { d: Delta }) {
  return (
    <>
      <td class="num" data-value={String(d.before)}>
        {percent(d.before)}
      </td>
      <td class="num" data-value={String(d.after)}>
        {percent(d.after)}
      </td>
      <td class={`num ${deltaMark(d.delta)}`} data-delta={String(d.delta)}>
        {signed(d.delta, "rate")}
      </td>
    </>
  );
}

function TimeCells({ d }: { d: Delta }) {
  return (
    <>
      <td class="num">{duration(d.before)}</td>
      <td class="num">{duration(d.after)}</td>
      <td class={`num ${deltaMark(d.delta, false)}`} data-delta={String(d.delta)}>
        {timeDelta(d.delta)}
      </td>
    </>
  );
}

/** A table of before, after and delta rows (`compare-<name>`). */
function DeltaTable({ name, first, children }: { name: string; first: string; children: ComponentChildren }) {
  return (
    <div class="scroll">
      <table class={`table compare-${name}`}>
        <thead>
          <tr>
            <th>{first}</th>
            <th class="num">before</th>
            <th class="num">after</th>
            <th class="num">delta</th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

function RunHead({ label, data }: { label: string; data: RunData }) {
  const r = data.record;
  return (
    <div class="compare-run" data-side={label}>
      <strong>{label}</strong>{" "}
      <a href={pageOf(r.id)}>
        {r.kind} {r.name}
      </a>{" "}
      <Status status={r.status} />
      <div class="muted">
        {when(r.started_at)} · {duration(r.duration_ms)} · {r.id}
      </div>
    </div>
  );
}

function CaseRows({ cases }: { cases: CaseComparison[] }) {
  return (
    <tbody>
      {cases.map((c) => (
        <tr
          key={`${c.task_id}\u0000${c.sample ?? ""}\u0000${c.case}`}
          data-task={c.task_id}
          data-sample={c.sample ?? ""}
          data-case={c.case}
          data-change={c.change}
        >
          <td class={markOf(c)}>{c.change}</td>
          <td>{c.task_id}</td>
          <td>{c.sample ?? "–"}</td>
          <td>{c.case}</td>
          <td>{c.before ? <Status status={c.before.status} /> : "–"}</td>
          <td>{c.after ? <Status status={c.after.status} /> : "–"}</td>
          <td class="num">{duration(c.before?.duration_ms)}</td>
          <td class="num">{duration(c.after?.duration_ms)}</td>
          <td class="num" data-delta={String(c.duration_delta_ms)}>
            {timeDelta(c.duration_delta_ms)}
          </td>
          <td class="clip">{c.after?.message ?? c.before?.message ?? ""}</td>
        </tr>
      ))}
    </tbody>
  );
}

function ComparisonView({ c }: { c: RunComparison }) {
  const [changedOnly, setChangedOnly] = useState(false);
  const n = c.counts;
  const cases = changedOnly ? c.cases.filter((x) => x.changed) : c.cases;
  const outputs = changedOnly ? c.outputs.filter((o) => o.changed) : c.outputs;
  return (
    <>
      <p class="compare-verdict" data-regression={String(c.regression)}>
        {c.regression ? (
          <strong class="m-worse">{n.regressions} case(s) passed before and do not now</strong>
        ) : (
          <strong class="m-better">nothing that passed before fails now</strong>
        )}{" "}
        · {n.cases} case(s): {n.fixed} fixed, {n.changed - n.regressions - n.fixed - n.added - n.removed} other change(s), {n.added} added,{" "}
        {n.removed} removed, {n.same} unchanged
      </p>
      {c.tasks.added.length + c.tasks.removed.length > 0 ? (
        <p class="muted">
          {c.tasks.added.length > 0 ? `tasks only after: ${c.tasks.added.join(", ")}. ` : ""}
          {c.tasks.removed.length > 0 ? `tasks only before: ${c.tasks.removed.join(", ")}.` : ""}
        </p>
      ) : null}
      <h2>Pass rate and pass@k</h2>
      <DeltaTable name="rates" first="measure">
        <tr data-measure="pass_rate">
          <td>pass rate ({c.pass_rate.of})</td>
          <RateCells d={c.pass_rate} />
        </tr>
        {c.pass_at_k.map((p) => (
          <tr key={`${p.scope}\u0000${p.k}`} data-measure={`pass@${p.k}`} data-scope={p.scope}>
            <td>
              pass@{p.k} {p.scope === "all" ? "(all tasks)" : p.scope}
            </td>
            <RateCells d={p} />
          </tr>
        ))}
      </DeltaTable>
      <h2>Time</h2>
      <DeltaTable name="times" first="what">
        <tr data-time="run">
          <td>the run</td>
          <TimeCells d={c.duration_ms} />
        </tr>
        {c.kind === "task" || c.kind === "job"
          ? null
          : c.task_durations.map((t) => (
              <tr key={t.task_id} data-time="task" data-task={t.task_id}>
                <td>task {t.task_id}</td>
                <TimeCells d={t} />
              </tr>
            ))}
      </DeltaTable>
      <h2>Cases</h2>
      <div class="filters">
        <label>
          <input
            type="checkbox"
            name="changed-only"
            checked={changedOnly}
            onChange={(e) => setChangedOnly((e.target as HTMLInputElement).checked)}
          />{" "}
          changed only ({n.changed} of {n.cases})
        </label>
      </div>
      <div class="scroll">
        <table class="table compare-cases">
          <thead>
            <tr>
              <th>change</th>
              <th>task</th>
              <th>sample</th>
              <th>case</th>
              <th>before</th>
              <th>after</th>
              <th class="num">time before</th>
              <th class="num">time after</th>
              <th class="num">delta</th>
              <th>message</th>
            </tr>
          </thead>
          <CaseRows cases={cases} />
        </table>
      </div>
      {cases.length === 0 ? <p class="muted">{changedOnly ? "no case changed its status" : "no cases"}</p> : null}
      {outputs.length > 0 ? (
        <>
          <h2>Output</h2>
          <div class="scroll">
            <table class="table compare-outputs">
              <thead>
                <tr>
                  <th>field</th>
                  <th>before</th>
                  <th>after</th>
                </tr>
              </thead>
              <tbody>
                {outputs.map((o) => (
                  <tr key={o.field} data-field={o.field} data-changed={String(o.changed)}>
                    <td class={o.changed ? "m-worse" : "m-same"}>{o.field || "(output)"}</td>
                    <td>
                      <code>{JSON.stringify(o.before) ?? "–"}</code>
                    </td>
                    <td>
                      <code>{JSON.stringify(o.after) ?? "–"}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </>
  );
}

export function RunComparePage({ before, after }: { before: string; after: string }) {
  const a = useFetch<RunData>(runUrl(before));
  const b = useFetch<RunData>(runUrl(after));
  const error = a.error ?? b.error;
  let body: VNode;
  if (error) body = <ErrorBox error={error} />;
  else if (!a.data || !b.data) body = <Loading what="the two runs" />;
  else {
    let comparison: RunComparison | undefined;
    let problem: string | undefined;
    try {
      comparison = compareRuns(a.data.report, b.data.report);
    } catch (e) {
      if (!(e instanceof CompareError)) throw e;
      problem = e.message;
    }
    body = (
      <>
        <div class="grid2">
          <RunHead label="before" data={a.data} />
          <RunHead label="after" data={b.data} />
        </div>
        {comparison ? <ComparisonView c={comparison} /> : <p class="error compare-problem">these runs cannot be compared: {problem}</p>}
      </>
    );
  }
  return (
    <main>
      <p>
        <a href="#/">← runs</a>
      </p>
      <h1>Compare runs</h1>
      {body}
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
