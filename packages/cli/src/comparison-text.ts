/**
 * A run comparison (`@skillrig/view/compare`) written for people: the console's text (`runs diff`) and a Markdown
 * summary for a pull-request comment (`runs diff --reporter markdown`). Tasks that fell come first, each with the
 * samples that made it fall; then the rates with their statistics; then the cases.
 */
import type { CaseComparison, RunComparison, SampleComparison, TaskComparison } from "@skillrig/view/compare";
import { deltaText, percent, points } from "./delta-text.js";
import { table } from "./text-table.js";

const ms = (value: number | null) => (value === null ? "-" : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`);
const signedMs = (value: number | null) => (value === null ? "-" : `${value > 0 ? "+" : value < 0 ? "-" : "±"}${ms(Math.abs(value))}`);

/** `sample 3 (new): error`, `sample 2 (was 1): passed -> failed`, `gemini #1 (gone): passed`. */
export function sampleText(s: SampleComparison): string {
  const name = s.sample === null ? "the deliverable" : /^[0-9]+$/.test(s.sample) ? `sample ${s.sample}` : s.sample;
  const moved = s.sample_before !== null && s.sample_before !== s.sample && s.change !== "gone" ? ` (was ${s.sample_before})` : "";
  if (s.change === "new") return `${name} (new): ${s.after}`;
  if (s.change === "gone") return `${name} (gone): ${s.before}`;
  return `${name}${moved}: ${s.before} -> ${s.after}`;
}

function taskLines(t: TaskComparison): string[] {
  const lines = [`task ${t.task_id} fell: pass rate ${deltaText(t.pass_rate)}`];
  for (const p of t.pass_at_k.filter((x) => (x.delta ?? 0) < 0)) lines.push(`  pass@${p.k} ${percent(p.before)} -> ${percent(p.after)}`);
  for (const s of t.causes) lines.push(`  ${sampleText(s)}`);
  return lines;
}

const sampleCell = (c: CaseComparison) => (c.sample === null ? "-" : c.sample_before ? `${c.sample} (was ${c.sample_before})` : c.sample);

function caseRows(cases: CaseComparison[]): string[][] {
  return [
    ["change", "task", "sample", "case", "before", "after", "time"],
    ...cases.map((c) => [
      c.change,
      c.task_id,
      sampleCell(c),
      c.case,
      c.before?.status ?? "-",
      c.after?.status ?? "-",
      signedMs(c.duration_delta_ms),
    ]),
  ];
}

/** The headline: what the gate reads. */
export function verdictLine(c: RunComparison): string {
  if (c.same_run) return "comparing a run with itself: nothing can have changed";
  const n = c.counts;
  if (!c.regression) return "no regression: nothing that passed before fails now, and no task's rate fell";
  const parts = [
    n.task_regressions > 0 ? `${n.task_regressions} task(s) fell` : "",
    n.regressions > 0 ? `${n.regressions} case(s) of an unchanged deliverable broke` : "",
  ].filter(Boolean);
  return `REGRESSION: ${parts.join(", ")}${c.significant_drop ? " (the pass rate's fall is significant)" : ""}`;
}

/** Cost and tokens, when either side says them (a job's result, a solve report). */
function costLine(c: RunComparison): string | undefined {
  if (c.cost_usd.before === null && c.cost_usd.after === null && c.tokens.before === null && c.tokens.after === null) return undefined;
  const usd = (v: number | null) => (v === null ? "-" : `$${v.toFixed(4)}`);
  const d = c.cost_usd.delta;
  const signedUsd = d === null ? "-" : `${d > 0 ? "+" : d < 0 ? "-" : "±"}${usd(Math.abs(d))}`;
  return `cost ${usd(c.cost_usd.before)} -> ${usd(c.cost_usd.after)} (${signedUsd}); tokens ${c.tokens.before ?? "-"} -> ${c.tokens.after ?? "-"}`;
}

export function comparisonText(before: string, after: string, c: RunComparison, changedOnly: boolean): string {
  const n = c.counts;
  const lines = [`${before} -> ${after}`, verdictLine(c)];
  for (const t of c.task_changes.filter((x) => x.regression)) lines.push(...taskLines(t));
  lines.push(
    `pass rate (${c.pass_rate.of}) ${deltaText(c.pass_rate)}`,
    ...c.pass_at_k.map((p) => `pass@${p.k} ${p.scope} ${deltaText(p)}`),
    `time ${ms(c.duration_ms.before)} -> ${ms(c.duration_ms.after)} (${signedMs(c.duration_ms.delta)})`,
  );
  const cost = costLine(c);
  if (cost) lines.push(cost);
  if (c.tasks.added.length > 0) lines.push(`tasks only after: ${c.tasks.added.join(", ")}`);
  if (c.tasks.removed.length > 0) lines.push(`tasks only before: ${c.tasks.removed.join(", ")}`);
  if (c.kind === "suite" || c.kind === "solve") {
    lines.push(`samples: ${n.samples.matched} matched by content or position, ${n.samples.new} new, ${n.samples.gone} gone`);
  }
  lines.push(
    `${n.cases} case(s): ${n.regressions} regression(s), ${n.fixed} fixed, ${n.changed - n.regressions - n.fixed - n.added - n.removed} other change(s), ${n.added} added, ${n.removed} removed, ${n.same} unchanged`,
  );
  const shown = changedOnly ? c.cases.filter((x) => x.changed) : c.cases;
  if (shown.length > 0) lines.push("", table(caseRows(shown)));
  const outputs = c.outputs.filter((o) => o.changed || !changedOnly);
  if (outputs.length > 0) {
    lines.push(
      "",
      table([
        ["output field", "changed", "before", "after"],
        ...outputs.map((o) => [
          o.field || "(output)",
          o.changed ? "yes" : "no",
          JSON.stringify(o.before) ?? "-",
          JSON.stringify(o.after) ?? "-",
        ]),
      ]),
    );
  }
  return lines.join("\n");
}

/** Markdown cell text: pipes and newlines would break the table. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** A pull-request comment: the verdict, tasks that fell, the rates with their statistics, the changed cases (at most 50). */
export function comparisonMarkdown(before: string, after: string, c: RunComparison): string {
  const lines = [`### skillrig: \`${cell(before)}\` → \`${cell(after)}\``, "", `**${verdictLine(c)}**`, ""];
  const fell = c.task_changes.filter((t) => t.regression);
  if (fell.length > 0) {
    lines.push("Tasks that fell:", "");
    for (const t of fell) {
      lines.push(`- **${cell(t.task_id)}**: ${cell(deltaText(t.pass_rate))}`);
      for (const s of t.causes) lines.push(`  - ${cell(sampleText(s))}`);
    }
    lines.push("");
  }
  lines.push("| measure | before | after | delta | 95% CI | p | pairs |", "| --- | --- | --- | --- | --- | --- | --- |");
  for (const [label, d] of [
    [`pass rate (${c.pass_rate.of})`, c.pass_rate] as const,
    ...c.pass_at_k.map((p) => [`pass@${p.k} ${p.scope}`, p] as const),
  ]) {
    const ci = d.ci95 ? `${points(d.ci95[0], false)} to ${points(d.ci95[1], false)} pts` : "–";
    lines.push(
      `| ${cell(label)} | ${percent(d.before)} | ${percent(d.after)} | ${points(d.delta)} pts | ${ci} | ${d.p_value ?? "–"} | ${d.pairs} |`,
    );
  }
  const changed = c.cases.filter((x) => x.changed);
  if (changed.length > 0) {
    lines.push("", "| change | task | sample | case | before | after |", "| --- | --- | --- | --- | --- | --- |");
    for (const x of changed.slice(0, 50)) {
      lines.push(
        `| ${x.change} | ${cell(x.task_id)} | ${cell(sampleCell(x))} | ${cell(x.case)} | ${x.before?.status ?? "–"} | ${x.after?.status ?? "–"} |`,
      );
    }
    if (changed.length > 50)
      lines.push("", `… and ${changed.length - 50} more changed case(s): \`skillrig runs diff ${before} ${after} --changed-only\``);
  }
  return lines.join("\n");
}
