/**
 * `skillrig test --reporter html --out DIR`: one self-contained HTML file for one task (`<task_id>.html`) or a suite
 * (`suite.html`). The CSS is inline and there is no script and no external resource, so the file opens from disk,
 * a CI artifact or a mail. Cases that did not pass come first, each with its input, expected and actual values,
 * the diff, the message and the traceback; passing cases are listed, folded. Everything from task files and from
 * the code under test is untrusted text and enters the page only through `escapeHtml`.
 */
import type { CaseVerdict, TaskReport } from "@skillrig/core";
import type { SampleResult, SuiteReport, SuiteTaskResult } from "../run-suite.js";
import { anchorId, escapeHtml as e, htmlPage } from "./html-page.js";
import { tracebackOf } from "./traceback.js";
import { sampleNumber } from "../sample-number.js";

export type HtmlReportInput = { task: TaskReport } | { suite: SuiteReport };

export { anchorId, escapeHtml, htmlPage, REPORT_CSS } from "./html-page.js";
export type { HtmlPage } from "./html-page.js";

const CSS = `h4{margin:8px 0 2px;font-size:13px}
.s-passed{color:var(--ok);font-weight:600}.s-failed,.s-error,.s-timeout,.s-memory_limit,.s-output_limit{color:var(--bad);font-weight:600}
.s-invalid_test_format,.s-invalid,.s-not_run{color:var(--warn);font-weight:600}
.case{border:1px solid var(--line);border-radius:6px;margin:10px 0;padding:6px 12px}.case.failing{border-left:4px solid var(--bad)}
.values{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:8px}
.d-add{color:var(--ok)}.d-del{color:var(--bad)}.d-hunk{color:#0969da}
.muted{color:var(--muted)}details{margin:6px 0}summary{cursor:pointer;font-weight:600}
`;

export function renderHtmlReport(input: HtmlReportInput): string {
  return htmlPage({ ...("task" in input ? taskPage(input.task) : suitePage(input.suite)), css: CSS });
}

function taskPage(report: TaskReport): { title: string; subtitle: string; body: string } {
  const s = report.summary;
  return {
    title: `skillrig test ${report.task_id}: ${s.passed}/${s.total} cases passed`,
    subtitle: summaryLine(report),
    body: `${warnings(report.warnings)}${casesSection(report)}`,
  };
}

function suitePage(report: SuiteReport): { title: string; subtitle: string; body: string } {
  const s = report.summary;
  const ks = Object.entries(report.pass_at_k).map(([k, v]) => `${k} ${pct(v.value)}`);
  const failing = (t: SuiteTaskResult) => Boolean(t.problem) || t.samples_passed < t.samples_total;
  const ordered = [...report.tasks].sort((a, b) => Number(failing(b)) - Number(failing(a)));
  const kNames = Object.keys(report.pass_at_k);
  const rows = ordered.map(
    (t) =>
      `<tr class="task-row" data-task="${e(t.task_id)}"><td><a href="#task-${anchorId(t.task_id)}">${e(t.task_id)}</a></td>` +
      `<td class="num">${t.problem ? "-" : `${t.samples_passed}/${t.samples_total}`}</td>` +
      kNames.map((k) => `<td class="num">${t.pass_at_k[k] === undefined ? "-" : pct(t.pass_at_k[k]!)}</td>`).join("") +
      `<td>${t.problem ? `<span class="s-error">not graded</span> ${e(t.problem)}` : failing(t) ? '<span class="s-failed">failing</span>' : '<span class="s-passed">passing</span>'}</td></tr>`,
  );
  const table = `<table id="tasks"><thead><tr><th>task</th><th>samples passed</th>${kNames.map((k) => `<th>${e(k)}</th>`).join("")}<th>verdict</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  const sections = ordered.map((t) => {
    const samples = [...t.samples].sort((a, b) => Number(b.status !== "passed") - Number(a.status !== "passed") || a.sample - b.sample);
    return `<section class="task" id="task-${anchorId(t.task_id)}" data-task="${e(t.task_id)}">
<h2>Task ${e(t.task_id)} <span class="muted">(${e(t.deliverable_type)}, ${e(t.file)}): ${t.samples_passed}/${t.samples_total} samples passed</span></h2>
${t.problem ? `<p class="s-error">${e(t.problem)}</p>` : ""}
${samples.map(sampleBlock).join("\n")}
</section>`;
  });
  return {
    title: `skillrig test: ${s.tasks} task(s), ${s.samples_passed}/${s.samples} samples passed`,
    subtitle: `${s.cases_passed}/${s.cases} cases passed, ${s.samples_failed} samples failed, ${s.samples_invalid} invalid, ${s.samples_errored} not graded, in ${(s.duration_ms / 1000).toFixed(1)} s${ks.length ? `; ${ks.join(", ")}` : ""}`,
    body: `<h2>Tasks</h2>\n${table}\n${sections.join("\n")}`,
  };
}

function sampleBlock(sample: SampleResult): string {
  const open = sample.status !== "passed" ? " open" : "";
  const head = `sample ${sampleNumber(sample.sample)} <span class="s-${e(sample.status)}">${e(sample.status)}</span> <span class="muted">${e(sample.source)}, ${sample.duration_ms} ms</span>`;
  const body = sample.error
    ? `<p class="s-error">${e(sample.error.code)}: ${e(sample.error.message)}</p>`
    : sample.report
      ? `<p class="muted">${e(summaryLine(sample.report))}</p>${warnings(sample.report.warnings)}${casesSection(sample.report)}`
      : "";
  return `<details class="sample" data-sample="${sampleNumber(sample.sample)}" data-status="${e(sample.status)}"${open}><summary>${head}</summary>${body}</details>`;
}

function summaryLine(report: TaskReport): string {
  const s = report.summary;
  return (
    `${report.deliverable_type}, ${s.total} case(s): ${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.invalid} invalid` +
    `${s.not_run ? `, ${s.not_run} not run` : ""}${report.isolation ? `; isolation ${report.isolation}` : ""}` +
    `${report.duration_ms !== undefined ? `; ${report.duration_ms} ms` : ""}`
  );
}

function warnings(list: string[] | undefined): string {
  return list?.length ? `<ul class="warnings">${list.map((w) => `<li class="s-invalid">${e(w)}</li>`).join("")}</ul>` : "";
}

/** Cases that did not pass first (in task order), each in full; then those not run, then the passing ones, folded. */
function casesSection(report: TaskReport): string {
  const cases = [...report.cases].sort((a, b) => a.index - b.index);
  const failing = cases.filter((c) => c.status !== "passed");
  const passing = cases.filter((c) => c.status === "passed");
  const notRun = report.not_run ?? [];
  return [
    failing.length > 0 ? `<h3>${failing.length} case(s) that did not pass</h3>${failing.map(caseBlock).join("\n")}` : "",
    notRun.length > 0
      ? `<h3>${notRun.length} case(s) not run</h3><ul class="not-run">${notRun.map((n) => `<li><span class="s-not_run">not run</span> ${e(n.name)} <span class="muted">${e(n.reason)}</span></li>`).join("")}</ul>`
      : "",
    passing.length > 0
      ? `<details class="passing"><summary>${passing.length} case(s) passed</summary><table class="cases"><thead><tr><th>#</th><th>case</th><th>ms</th></tr></thead><tbody>${passing
          .map(
            (c) =>
              `<tr class="case-row" data-status="passed"><td class="num">${c.index}</td><td>${e(c.name)}</td><td class="num">${c.duration_ms}</td></tr>`,
          )
          .join("")}</tbody></table></details>`
      : "",
  ].join("\n");
}

function caseBlock(c: CaseVerdict): string {
  const traceback = tracebackOf(c);
  const stderr = typeof c.details?.stderr === "string" && c.details.stderr.trim() !== "" ? c.details.stderr : undefined;
  return `<div class="case failing" data-case="${e(c.name)}" data-status="${e(c.status)}">
<h4>#${c.index} ${e(c.name)} <span class="s-${e(c.status)}">${e(c.status)}</span> <span class="muted">${c.duration_ms} ms</span></h4>
${c.message ? `<p class="message">${e(c.message)}</p>` : ""}
<div class="values">
<div><h4>input</h4><pre class="input">${e(c.input ?? null)}</pre></div>
<div><h4>expected</h4><pre class="expected">${e(c.expected ?? null)}</pre></div>
<div><h4>actual</h4><pre class="actual">${e(c.actual ?? null)}</pre></div>
</div>
${c.diff ? `<h4>diff</h4><pre class="diff">${diffLines(c.diff)}</pre>` : ""}
${traceback ? `<h4>traceback</h4><pre class="traceback">${e(traceback)}</pre>` : ""}
${!traceback && stderr ? `<h4>stderr</h4><pre class="stderr">${e(stderr)}</pre>` : ""}
</div>`;
}

function diffLines(diff: string): string {
  return diff
    .split("\n")
    .map((line) => {
      const cls =
        line.startsWith("+++") || line.startsWith("---")
          ? ""
          : line.startsWith("+")
            ? "d-add"
            : line.startsWith("-")
              ? "d-del"
              : line.startsWith("@@")
                ? "d-hunk"
                : "";
      return cls ? `<span class="${cls}">${e(line)}</span>` : e(line);
    })
    .join("\n");
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
