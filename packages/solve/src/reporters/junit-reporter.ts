/**
 * JUnit XML for a solve batch: one <testsuite> per task and engine, one <testcase> per attempt. An attempt that
 * graded and failed, or wrote no deliverable (`artifact_missing`), is a <failure> (the agent's answer was wrong or
 * absent); an engine failure or a grading error is an <error> (the attempt could not be judged). The failure text
 * lists each case that did not pass with its diff. A canceled attempt is <skipped>.
 */
import { create } from "xmlbuilder2";
import type { AttemptResult, SolveReport } from "../report.js";

const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);

export function toSolveJunit(report: SolveReport): string {
  const all = report.tasks.flatMap((t) => t.attempts);
  const isFailure = (a: AttemptResult) => a.status === "failed" || a.status === "artifact_missing";
  const isError = (a: AttemptResult) => a.status === "engine_failed" || a.status === "grading_error";
  const root = create({ version: "1.0", encoding: "UTF-8" }).ele("testsuites", {
    name: "skillrig solve",
    tests: all.length,
    failures: all.filter(isFailure).length,
    errors: all.filter(isError).length,
    time: seconds(report.duration_ms),
  });
  for (const task of report.tasks) {
    for (const engine of report.engines) {
      const attempts = task.attempts.filter((a) => a.engine === engine.engine);
      if (attempts.length === 0) continue;
      const suite = root.ele("testsuite", {
        name: `${task.task_id} [${engine.engine}]`,
        tests: attempts.length,
        failures: attempts.filter(isFailure).length,
        errors: attempts.filter(isError).length,
        skipped: attempts.filter((a) => a.status === "canceled" || a.status === "not_run").length,
        time: seconds(attempts.reduce((s, a) => s + a.usage.durationMs, 0)),
      });
      const props = suite.ele("properties");
      props.ele("property", { name: "task_file", value: task.file });
      props.ele("property", { name: "engine", value: engine.engine_name });
      props.ele("property", { name: "scored_cases", value: String(task.scored_cases) });
      if (task.reference) props.ele("property", { name: "reference_flagged", value: task.reference.flagged.map((f) => f.name).join(", ") });
      for (const a of attempts) {
        const testcase = suite.ele("testcase", {
          name: `attempt ${a.attempt}`,
          classname: `${task.task_id}.${engine.engine}`,
          time: seconds(a.usage.durationMs),
        });
        const message = a.message ?? a.status;
        if (a.status === "canceled" || a.status === "not_run") testcase.ele("skipped", { message });
        else if (isFailure(a)) testcase.ele("failure", { message, type: a.status }).txt(caseDetails(a) || message);
        else if (isError(a)) testcase.ele("error", { message, type: a.status }).txt(message);
        const out = [`score ${a.score.passed}/${a.score.total}`, a.job?.run_dir ? `run folder: ${a.job.run_dir}` : ""]
          .filter(Boolean)
          .join("\n");
        testcase.ele("system-out").txt(out);
      }
    }
  }
  return root.end({ prettyPrint: true });
}

function caseDetails(a: AttemptResult): string {
  return a.cases
    .filter((c) => c.status !== "passed")
    .map((c) =>
      [
        `${c.name}: ${c.status}${c.message ? ` - ${c.message}` : ""}`,
        c.input !== undefined ? `input: ${JSON.stringify(c.input)}` : "",
        c.diff ?? "",
      ]
        .filter(Boolean)
        .join("\n"),
    )
    .join("\n\n");
}
