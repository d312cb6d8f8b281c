/**
 * The suite's summary for people: a table of tasks with their samples passed and per-task pass@k, failing tasks
 * first (lowest pass rate first), each with its first failure; then the totals and the suite's pass@k. A long
 * suite lists its failing tasks and as many passing ones as fit the cap: the JSON and JUnit reports have them all.
 */
import type { SuiteReport, SuiteTaskResult } from "../run-suite.js";
import { oneLine, textTable, truncate } from "./text-table.js";
import { sampleNumber } from "../sample-number.js";

/** Most tasks listed; the JSON and JUnit reports have all of them. */
const LISTED_TASKS = 50;
const MESSAGE_WIDTH = 100;

export function formatSuiteSummary(report: SuiteReport): string {
  const out: string[] = [""];
  const ks = Object.keys(report.pass_at_k);
  const failing = (t: SuiteTaskResult) => Boolean(t.problem) || t.samples_passed < t.samples_total;
  const rate = (t: SuiteTaskResult) => (t.samples_total > 0 ? t.samples_passed / t.samples_total : 0);
  // Failing tasks first, the worst first; a stable sort keeps the suite's order within equal rates.
  const ordered = [...report.tasks].sort((a, b) => Number(failing(b)) - Number(failing(a)) || (failing(a) ? rate(a) - rate(b) : 0));
  const listed = ordered.slice(0, LISTED_TASKS);
  if (listed.length > 0) {
    // The failure column only when something failed.
    const anyFailing = listed.some(failing);
    const rows = listed.map((task) => [
      task.task_id,
      task.problem ? "-" : `${task.samples_passed}/${task.samples_total}`,
      ...ks.map((k) => (task.pass_at_k[k] === undefined ? "-" : percent(task.pass_at_k[k]!))),
      ...(anyFailing ? [firstFailure(task)] : []),
    ]);
    out.push(...textTable(["task", "samples passed", ...ks, ...(anyFailing ? ["first failure"] : [])], rows));
    const notListed = report.tasks.length - listed.length;
    if (notListed > 0) {
      const failingLeft = ordered.slice(LISTED_TASKS).filter(failing).length;
      out.push(
        `... and ${notListed} more task(s)${failingLeft > 0 ? `, ${failingLeft} of them failing` : ""} (see --json or --reporter junit)`,
      );
    }
    out.push("");
  }
  const s = report.summary;
  const notGraded = s.tasks_not_graded > 0 ? `, ${s.tasks_not_graded} not graded` : "";
  const notPassing = report.tasks.filter(failing).length;
  out.push(
    `${s.tasks} task(s)${notGraded}, ${notPassing} not passing; ${s.samples} sample(s): ${s.samples_passed} passed every case, ${s.samples_failed} failed, ` +
      `${s.samples_invalid} invalid, ${s.samples_errored} not graded; ${s.cases_passed}/${s.cases} cases passed in ${(s.duration_ms / 1000).toFixed(1)} s`,
  );
  const suiteKs = Object.entries(report.pass_at_k).map(
    ([k, v]) => `${k} ${percent(v.value)}${v.tasks < s.tasks ? ` (${v.tasks} tasks)` : ""}`,
  );
  if (suiteKs.length > 0) out.push(suiteKs.join("  "));
  return `${out.join("\n")}\n`;
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** The first thing that went wrong in a task, on one line: why it was not graded, or its first failing case. */
function firstFailure(task: SuiteTaskResult): string {
  if (task.problem) return truncate(`not graded: ${oneLine(task.problem)}`, MESSAGE_WIDTH);
  const first = task.samples.find((s) => s.status !== "passed");
  if (!first) return "";
  let why = "";
  if (first.error) why = first.error.code === "interrupted" ? first.error.message : `${first.error.code}: ${first.error.message}`;
  else if (first.report) {
    const bad = first.report.cases.find((c) => c.status !== "passed");
    if (bad) why = `${bad.name}: ${bad.status}${bad.message ? ` (${bad.message})` : ""}`;
    else if (first.report.not_run?.length) why = first.report.not_run[0]!.reason;
  }
  return truncate(oneLine(`sample ${sampleNumber(first.sample)}: ${why || first.status}`), MESSAGE_WIDTH);
}
