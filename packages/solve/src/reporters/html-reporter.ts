/**
 * One self-contained HTML file for a solve batch: a summary of engines (pass rate, pass@k, usage), a matrix of
 * tasks against engines, and per task: the reference check, and per attempt the prompt, the agent's transcript,
 * the deliverable and every case with its diff. No external resources: the CSS and the few lines of script are
 * inline, so the file can be mailed or attached to a CI run. Everything from tasks and agents is escaped.
 */
import type { CaseVerdict, EngineEvent } from "@skillrig/core";
import type { AttemptResult, EngineSummary, SolveReport, TaskResult } from "../report.js";
import { anchorId, escapeHtml as e, htmlPage } from "@skillrig/oracle/html-report";

// The shared report stylesheet (@skillrig/oracle's REPORT_CSS) comes first; these are solve's own rules.
const CSS = `
.s-passed{color:var(--ok);font-weight:600}.s-failed,.s-artifact_missing,.s-timeout,.s-error,.s-memory_limit,.s-output_limit{color:var(--bad);font-weight:600}
.s-engine_failed,.s-grading_error,.s-invalid_test_format,.s-canceled,.s-not_run{color:var(--warn);font-weight:600}
td.cell-all{background:#dafbe1}td.cell-some{background:#fff8c5}td.cell-none{background:#ffebe9}
details{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}summary{cursor:pointer;font-weight:600}
.muted{color:var(--muted)}.ev{margin:2px 0;padding:2px 6px;border-left:3px solid var(--line)}.ev-message{border-color:#0969da}
.ev-tool_call,.ev-tool_result{border-color:#8250df}.ev-file_change{border-color:var(--ok)}.ev-usage,.ev-log,.ev-status{border-color:var(--muted)}
.toolbar{margin:8px 0}.toolbar button{margin-right:6px}body.only-failing .attempt.passed{display:none}
`;

// Toolbar actions: expand/collapse every <details>, and hide passing attempts.
const SCRIPT = `
document.getElementById("expand-all").addEventListener("click", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});
document.getElementById("collapse-all").addEventListener("click", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = false; });
});
document.getElementById("only-failing").addEventListener("change", function (ev) {
  document.body.classList.toggle("only-failing", ev.target.checked);
});
`;

export function toSolveHtml(report: SolveReport): string {
  const title = `skillrig solve: ${report.summary.passed}/${report.summary.attempts} attempts passed`;
  return htmlPage({
    title,
    subtitle: `${report.summary.tasks} task(s), ${report.engines.length} engine(s), ${report.attempts_per_task} attempt(s) each; started ${report.started_at}, took ${(report.duration_ms / 1000).toFixed(1)} s`,
    css: CSS,
    body: `<div class="toolbar"><button type="button" id="expand-all">Expand all</button><button type="button" id="collapse-all">Collapse all</button><label><input type="checkbox" id="only-failing"> only attempts that did not pass</label></div>
<h2>Engines</h2>
${enginesTable(report.engines)}
<h2>Tasks against engines</h2>
${matrix(report)}
${report.tasks.map((t) => taskSection(t, report)).join("\n")}`,
    script: SCRIPT,
  });
}

function enginesTable(engines: EngineSummary[]): string {
  const ks = [...new Set(engines.flatMap((s) => Object.keys(s.pass_at_k)))].sort((a, b) => Number(a) - Number(b));
  const head = `<tr><th>engine</th><th>attempts</th><th>passed</th><th>pass rate</th>${ks.map((k) => `<th>pass@${e(k)}</th>`).join("")}<th>tasks solved</th><th>outcomes</th><th>tokens in / out</th><th>engine time</th></tr>`;
  const rows = engines.map(
    (s) =>
      `<tr class="engine-row" data-engine="${e(s.engine)}"><td>${e(s.engine)}${s.engine !== s.engine_name ? ` <span class="muted">(${e(s.engine_name)})</span>` : ""}</td>` +
      `<td class="num">${s.attempts}</td><td class="num">${s.passed}</td><td class="num">${pct(s.pass_rate)}</td>` +
      ks.map((k) => `<td class="num">${s.pass_at_k[k] === undefined ? "" : pct(s.pass_at_k[k]!)}</td>`).join("") +
      `<td class="num">${s.tasks_solved}</td><td>${Object.entries(s.statuses)
        .map(([status, n]) => `<span class="s-${e(status)}">${e(status)}</span> ${n}`)
        .join(", ")}</td>` +
      `<td class="num">${s.usage.reported ? `${s.usage.inputTokens} / ${s.usage.outputTokens}` : '<span class="muted">not reported</span>'}</td>` +
      `<td class="num">${(s.usage.engineMs / 1000).toFixed(1)} s</td></tr>`,
  );
  return `<table id="engines"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>`;
}

function matrix(report: SolveReport): string {
  const head = `<tr><th>task</th><th>type</th><th>scored cases</th>${report.engines.map((s) => `<th>${e(s.engine)}</th>`).join("")}</tr>`;
  const rows = report.tasks.map((t) => {
    const cells = report.engines.map((s) => {
      const attempts = t.attempts.filter((a) => a.engine === s.engine);
      const passed = attempts.filter((a) => a.status === "passed").length;
      const cls = attempts.length === 0 ? "" : passed === attempts.length ? "cell-all" : passed > 0 ? "cell-some" : "cell-none";
      const statuses = attempts.map((a) => a.status).join(", ");
      return `<td class="${cls}" data-engine="${e(s.engine)}"><a href="#${anchorId(t.task_id, s.engine)}">${passed}/${attempts.length} passed</a><div class="muted">${e(statuses)}</div></td>`;
    });
    return `<tr class="task-row" data-task="${e(t.task_id)}"><td><a href="#${anchorId(t.task_id)}">${e(t.task_id)}</a></td><td>${e(t.deliverable_type)}</td><td class="num">${t.scored_cases}/${t.total_cases}</td>${cells.join("")}</tr>`;
  });
  return `<table id="matrix"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>`;
}

function taskSection(t: TaskResult, report: SolveReport): string {
  const reference = t.reference
    ? `<h3>Reference check</h3><p>Reference solution <code>${e(t.reference.file)}</code>: ${
        t.reference.flagged.length === 0
          ? '<span class="s-passed">passes every case</span>'
          : `<span class="s-failed">fails ${t.reference.flagged.length} case(s)</span>; they are not scored against engines:`
      }</p>${
        t.reference.flagged.length > 0
          ? `<ul class="flagged">${t.reference.flagged.map((f) => `<li><b>${e(f.name)}</b>: <span class="s-${e(f.status)}">${e(f.status)}</span> ${e(f.message ?? "")}</li>`).join("")}</ul>`
          : ""
      }`
    : "";
  const engines = report.engines
    .map((s) => {
      const attempts = t.attempts.filter((a) => a.engine === s.engine);
      return `<h3 id="${anchorId(t.task_id, s.engine)}">${e(s.engine)}</h3>${attempts.map(attemptBlock).join("\n")}`;
    })
    .join("\n");
  return `<section class="task" data-task="${e(t.task_id)}">
<h2 id="${anchorId(t.task_id)}">Task ${e(t.task_id)} <span class="muted">(${e(t.deliverable_type)}, entrypoint <code>${e(t.entrypoint)}</code>, ${e(t.file)})</span></h2>
${t.description ? `<pre class="description">${e(t.description)}</pre>` : ""}
${reference}
${engines}
</section>`;
}

function attemptBlock(a: AttemptResult): string {
  const usage = [
    a.usage.inputTokens !== undefined ? `${a.usage.inputTokens} tokens in` : "",
    a.usage.outputTokens !== undefined ? `${a.usage.outputTokens} tokens out` : "",
    a.usage.engineMs !== undefined ? `engine ${(a.usage.engineMs / 1000).toFixed(1)} s` : "",
    `total ${(a.usage.durationMs / 1000).toFixed(1)} s`,
  ]
    .filter(Boolean)
    .join(", ");
  return `<details class="attempt ${a.status === "passed" ? "passed" : "not-passed"}" data-task="${e(a.task_id)}" data-engine="${e(a.engine)}" data-attempt="${a.attempt}" data-status="${e(a.status)}">
<summary>attempt ${a.attempt}: <span class="s-${e(a.status)}">${e(a.status)}</span> ${a.score.passed}/${a.score.total} cases <span class="muted">${e(usage)}</span></summary>
${a.message ? `<p class="message">${e(a.message)}</p>` : ""}
${a.job?.run_dir ? `<p class="muted">run folder: <code>${e(a.job.run_dir)}</code>${a.job.engine_version ? `, engine version ${e(a.job.engine_version)}` : ""}</p>` : ""}
${a.job?.warnings?.length ? `<ul class="warnings">${a.job.warnings.map((w) => `<li>${e(w)}</li>`).join("")}</ul>` : ""}
<details class="prompt"><summary>Prompt</summary><pre>${e(a.prompt ?? "(no prompt was rendered)")}</pre></details>
${a.skill_md !== undefined ? `<details class="skill-md"><summary>SKILL.md as the agent read it</summary><pre>${e(a.skill_md)}</pre></details>` : ""}
<details class="transcript"><summary>Transcript (${a.transcript.length} events)</summary>${a.transcript.map(eventLine).join("\n") || '<p class="muted">no events</p>'}</details>
<details class="deliverable"${a.status !== "passed" ? " open" : ""}><summary>Deliverable${a.deliverable ? ` <code>${e(a.deliverable.file)}</code>` : ""}</summary>${
    a.deliverable
      ? `<pre>${e(a.deliverable.content)}</pre>${a.deliverable.truncated ? '<p class="muted">(truncated)</p>' : ""}`
      : '<p class="s-artifact_missing">no deliverable was written</p>'
  }</details>
${a.cases.length > 0 ? casesTable(a.cases) : ""}
</details>`;
}

function casesTable(cases: CaseVerdict[]): string {
  const rows = cases.map(
    (c) =>
      `<tr class="case" data-case="${e(c.name)}" data-status="${e(c.status)}"><td>${e(c.name)}</td><td class="s-${e(c.status)}">${e(c.status)}</td><td class="num">${c.duration_ms}</td>` +
      `<td>${c.message ? e(c.message) : ""}${c.diff ? `<pre class="diff">${e(c.diff)}</pre>` : ""}${
        c.status !== "passed"
          ? `<details><summary>input / expected / actual</summary>${c.input !== undefined ? `<h4>input</h4><pre class="input">${e(c.input)}</pre>` : ""}<h4>expected</h4><pre>${e(c.expected)}</pre><h4>actual</h4><pre>${e(c.actual)}</pre></details>`
          : ""
      }</td></tr>`,
  );
  return `<table class="cases"><thead><tr><th>case</th><th>status</th><th>ms</th><th>details</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function eventLine(event: EngineEvent): string {
  let text: string;
  switch (event.type) {
    case "message":
      text = `${event.role}: ${event.text}`;
      break;
    case "tool_call":
      text = `tool call ${event.tool}${event.args === undefined ? "" : ` ${JSON.stringify(event.args)}`}${event.status ? ` (${event.status})` : ""}`;
      break;
    case "tool_result":
      text = `tool result${event.tool ? ` ${event.tool}` : ""}: ${event.status}${event.output ? `\n${event.output}` : ""}`;
      break;
    case "file_change":
      text = `file ${event.kind}: ${event.path}`;
      break;
    case "usage":
      text = `usage: ${event.inputTokens ?? "?"} in, ${event.outputTokens ?? "?"} out${event.model ? ` (${event.model})` : ""}`;
      break;
    case "status":
      text = `status: ${event.status}${event.message ? ` ${event.message}` : ""}`;
      break;
    case "log":
      text = `${event.stream}: ${event.line}`;
      break;
    default:
      text = JSON.stringify(event);
  }
  return `<pre class="ev ev-${e((event as { type: string }).type)}">${e(text)}</pre>`;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
