/**
 * Two recorded runs side by side (`#/compare/<before>/<after>`): cases whose status changed first, pass rate and
 * pass@k deltas, time deltas, a "changed only" filter. The comparison is `compareRuns` of @skillrig/view/compare,
 * the same function `skillrig runs diff` prints, so the page and the CLI agree; this file only lays it out.
 */
import type { ComponentChildren, VNode } from "preact";
import { useState } from "preact/hooks";
import {
  CompareError,
  compareRuns,
  type CaseComparison,
  type Delta,
  type PairedDelta,
  type RunComparison,
  type SampleComparison,
} from "../../src/compare-runs.js";
import type { RunRecord } from "./api.js";
import { duration, ErrorBox, Loading, PairedCells, percent, ShortId, STATS_HEAD, signed, Status, useFetch, When } from "./kit/index.js";

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

/** A before → after row of a rate, and its statistics: the raw numbers ride along in data attributes (tests read them). */
function RateCells({ d }: { d: PairedDelta }) {
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
      <PairedCells d={d} />
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

const usd = (v: number | null) => (v === null ? "–" : `$${v.toFixed(6)}`);
const count = (v: number | null) => (v === null ? "–" : String(v));
const signedWith = (v: number | null, show: (n: number) => string) =>
  v === null ? "–" : `${v > 0 ? "+" : v < 0 ? "−" : "±"}${show(Math.abs(v))}`;

/** Cost or tokens before → after (less is better); the raw numbers in data attributes, `–` for a side with none. */
function SpendCells({ d, show }: { d: Delta; show: (v: number | null) => string }) {
  return (
    <>
      <td class="num" data-value={String(d.before)}>
        {show(d.before)}
      </td>
      <td class="num" data-value={String(d.after)}>
        {show(d.after)}
      </td>
      <td class={`num ${deltaMark(d.delta, false)}`} data-delta={String(d.delta)}>
        {signedWith(d.delta, (n) => show(n))}
      </td>
    </>
  );
}

/** What the runs' model calls cost, as `runs diff` computes it; only when a side has a figure (a test report has none). */
function CostTable({ c }: { c: RunComparison }) {
  const any = [c.cost_usd.before, c.cost_usd.after, c.tokens.before, c.tokens.after].some((v) => v !== null);
  if (!any) return null;
  return (
    <>
      <h2>Cost</h2>
      <DeltaTable name="cost" first="what">
        <tr data-spend="cost_usd">
          <td>cost (USD)</td>
          <SpendCells d={c.cost_usd} show={usd} />
        </tr>
        <tr data-spend="tokens">
          <td>tokens (input + output)</td>
          <SpendCells d={c.tokens} show={count} />
        </tr>
      </DeltaTable>
      {c.cost_usd.before === null || c.cost_usd.after === null ? (
        <p class="muted">a side without a cost had no metered model calls, or a model without a price (never counted as $0)</p>
      ) : null}
    </>
  );
}

/** A table of before, after and delta rows (`compare-<name>`), with the statistics' columns for rates. */
function DeltaTable({ name, first, stats, children }: { name: string; first: string; stats?: boolean; children: ComponentChildren }) {
  return (
    <div class="scroll">
      <table class={`table compare-${name}`}>
        <thead>
          <tr>
            <th>{first}</th>
            <th class="num">before</th>
            <th class="num">after</th>
            <th class="num">delta</th>
            {stats
              ? STATS_HEAD.map((h) => (
                  <th key={h} class="num">
                    {h}
                  </th>
                ))
              : null}
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
        <When iso={r.started_at} /> · {duration(r.duration_ms)} · <ShortId id={r.id} />
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
          <td>{c.sample === null ? "–" : c.sample_before ? `${c.sample} (was ${c.sample_before})` : c.sample}</td>
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

/** `sample 3 (new): failed`, `sample 2 (was 1): passed → failed`: the console's words. */
function sampleText(s: SampleComparison): string {
  const name = s.sample === null ? "the deliverable" : /^[0-9]+$/.test(s.sample) ? `sample ${s.sample}` : s.sample;
  const moved = s.sample_before !== null && s.sample_before !== s.sample && s.change !== "gone" ? ` (was ${s.sample_before})` : "";
  if (s.change === "new") return `${name} (new): ${s.after}`;
  if (s.change === "gone") return `${name} (gone): ${s.before}`;
  return `${name}${moved}: ${s.before} → ${s.after}`;
}

function Verdict({ c }: { c: RunComparison }) {
  const n = c.counts;
  if (c.same_run) return <strong class="m-same">comparing a run with itself: nothing can have changed</strong>;
  if (!c.regression) return <strong class="m-better">no regression: nothing that passed before fails now, and no task's rate fell</strong>;
  const parts = [
    n.task_regressions > 0 ? `${n.task_regressions} task(s) fell` : "",
    n.regressions > 0 ? `${n.regressions} case(s) of an unchanged deliverable broke` : "",
  ].filter(Boolean);
  return (
    <strong class="m-worse">
      regression: {parts.join(", ")}
      {c.significant_drop ? " (the pass rate's fall is significant)" : ""}
    </strong>
  );
}

function TasksThatFell({ c }: { c: RunComparison }) {
  const fell = c.task_changes.filter((t) => t.regression);
  if (fell.length === 0) return null;
  return (
    <>
      <h2>Tasks that fell</h2>
      <DeltaTable name="tasks" first="task" stats>
        {fell.map((t) => (
          <tr key={t.task_id} data-task={t.task_id}>
            <td>
              <strong>{t.task_id}</strong>
              <ul class="causes">
                {t.causes.map((s) => (
                  <li key={`${s.sample}/${s.sample_before}/${s.change}`} data-sample={s.sample ?? ""} data-change={s.change}>
                    {sampleText(s)}
                  </li>
                ))}
              </ul>
            </td>
            <RateCells d={t.pass_rate} />
          </tr>
        ))}
      </DeltaTable>
    </>
  );
}

function ComparisonView({ c }: { c: RunComparison }) {
  const [changedOnly, setChangedOnly] = useState(false);
  const n = c.counts;
  const cases = changedOnly ? c.cases.filter((x) => x.changed) : c.cases;
  const outputs = changedOnly ? c.outputs.filter((o) => o.changed) : c.outputs;
  return (
    <>
      <p class="compare-verdict" data-regression={String(c.regression)} data-significant={String(c.significant_drop)}>
        <Verdict c={c} /> · {n.cases} case(s): {n.regressions} regression(s), {n.fixed} fixed,{" "}
        {n.changed - n.regressions - n.fixed - n.added - n.removed} other change(s), {n.added} added, {n.removed} removed, {n.same}{" "}
        unchanged
      </p>
      {c.tasks.added.length + c.tasks.removed.length > 0 ? (
        <p class="muted">
          {c.tasks.added.length > 0 ? `tasks only after: ${c.tasks.added.join(", ")}. ` : ""}
          {c.tasks.removed.length > 0 ? `tasks only before: ${c.tasks.removed.join(", ")}.` : ""}
        </p>
      ) : null}
      {c.kind === "suite" || c.kind === "solve" ? (
        <p class="muted compare-samples">
          samples: {n.samples.matched} matched (by their deliverable's content, or by position in reports without it), {n.samples.new} new,{" "}
          {n.samples.gone} gone
        </p>
      ) : null}
      <TasksThatFell c={c} />
      <h2>Pass rate and pass@k</h2>
      <DeltaTable name="rates" first="measure" stats>
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
      <CostTable c={c} />
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
      {outputs.length > 0 ? <OutputChanges outputs={outputs} /> : null}
    </>
  );
}

/** A job's output fields, before and after (the changed ones marked). */
function OutputChanges({ outputs }: { outputs: RunComparison["outputs"] }) {
  return (
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
