/** A solve batch's view: engines' totals and pass@k, tasks × engines, then one attempt in full. */
import { useState } from "preact/hooks";
import {
  type CaseLike,
  CaseTable,
  Code,
  duration,
  PassAtK,
  percent,
  Section,
  Status,
  StatusCellLabel,
  statusClass,
  Timeline,
  type TimelineEvent,
  usd,
} from "./kit/index.js";

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
  usage: { inputTokens?: number; outputTokens?: number; engineMs?: number; durationMs: number; costUsd?: number | null };
  job?: { run_dir?: string; error?: { code: string; message: string } };
}
export interface SolveReport {
  kind: "skillrig-solve-report";
  attempts_per_task: number;
  engines: Array<{
    engine: string;
    attempts: number;
    passed: number;
    pass_rate: number;
    pass_at_k: Record<string, number>;
    tasks_solved: number;
    usage: { inputTokens: number; outputTokens: number; engineMs: number; reported: boolean; costUsd?: number; unpricedAttempts?: number };
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
export function SolveView({ report }: { report: SolveReport }) {
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
              <th class="num">cost</th>
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
                <td class="num" data-cost={e.engine}>
                  {e.usage.costUsd === undefined ? "–" : usd(e.usage.costUsd)}
                  {e.usage.unpricedAttempts ? ` + ${e.usage.unpricedAttempts} unpriced` : ""}
                </td>
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
                          class={`cell ${statusClass(a.status)}`}
                          aria-pressed={selected === a}
                          title={a.message ?? a.status}
                          onClick={() => setSelected(a)}
                        >
                          #{a.attempt}{" "}
                          <StatusCellLabel
                            status={a.status}
                            counts={a.score.total > 0 ? `${a.score.passed}/${a.score.total} scored cases passed` : "no case scored"}
                          />
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
        {a.usage.costUsd !== undefined ? `, ${usd(a.usage.costUsd)}` : ""}
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
