/**
 * The suite's summary for people: the tasks where some sample did not pass (most first, capped), then the totals
 * and pass@k. Passing tasks are not listed one by one: a 164-task suite would bury the ones that need a look.
 */
import type { SuiteReport, SuiteTaskResult } from "../run-suite.js";

/** Most tasks listed; the JSON and JUnit reports have all of them. */
const LISTED_TASKS = 40;
const MESSAGE_WIDTH = 100;

export function formatSuiteSummary(report: SuiteReport): string {
  const out: string[] = [""];
  const notPassing = report.tasks.filter((t) => t.problem || t.samples_passed < t.samples_total);
  if (notPassing.length > 0) {
    out.push(`not passing (${notPassing.length} of ${report.tasks.length} tasks):`);
    for (const task of notPassing.slice(0, LISTED_TASKS)) out.push(`  ${task.task_id}: ${describe(task)}`);
    if (notPassing.length > LISTED_TASKS) out.push(`  ... and ${notPassing.length - LISTED_TASKS} more (see --json or --reporter junit)`);
    out.push("");
  }
  const s = report.summary;
  const notGraded = s.tasks_not_graded > 0 ? `, ${s.tasks_not_graded} not graded` : "";
  out.push(
    `${s.tasks} task(s)${notGraded}, ${s.samples} sample(s): ${s.samples_passed} passed every case, ${s.samples_failed} failed, ` +
      `${s.samples_invalid} invalid, ${s.samples_errored} not graded; ${s.cases_passed}/${s.cases} cases passed in ${(s.duration_ms / 1000).toFixed(1)} s`,
  );
  const ks = Object.entries(report.pass_at_k).map(
    ([k, v]) => `${k} ${(v.value * 100).toFixed(1)}%${v.tasks < s.tasks ? ` (${v.tasks} tasks)` : ""}`,
  );
  if (ks.length > 0) out.push(ks.join("  "));
  return `${out.join("\n")}\n`;
}

function describe(task: SuiteTaskResult): string {
  if (task.problem) return `not graded: ${oneLine(task.problem)}`;
  const first = task.samples.find((s) => s.status !== "passed");
  let why = "";
  if (first?.error) why = `${first.error.code}: ${first.error.message}`;
  else if (first?.report) {
    const bad = first.report.cases.find((c) => c.status !== "passed");
    if (bad) why = `${bad.name}: ${bad.status}${bad.message ? ` (${bad.message})` : ""}`;
  }
  return `${task.samples_passed}/${task.samples_total} samples passed${why ? `; sample ${first!.sample}: ${truncate(oneLine(why), MESSAGE_WIDTH)}` : ""}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ");
}

function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}
