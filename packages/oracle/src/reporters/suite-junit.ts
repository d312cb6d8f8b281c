/**
 * JUnit XML for a suite: one <testsuite> per task, one <testcase> per (sample, case). With one sample per task the
 * test cases keep their own names; with several, each is prefixed `sample <n>: `. A sample that could not be graded,
 * and a task with no deliverable, are one <error> test case each, so CI shows them rather than nothing.
 */
import { create } from "./lazy-xml.js";
import type { CaseVerdict } from "@skillrig/core";
import type { SuiteReport } from "../run-suite.js";
import { sampleNumber } from "../sample-number.js";

export function toSuiteJunitXml(report: SuiteReport): string {
  const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);
  const root = create({ version: "1.0", encoding: "UTF-8" }).ele("testsuites", {
    name: "skillrig",
    time: seconds(report.summary.duration_ms),
  });
  let allTests = 0;
  let allFailures = 0;
  let allErrors = 0;
  for (const task of report.tasks) {
    const suite = root.ele("testsuite", { name: task.task_id });
    let tests = 0;
    let failures = 0;
    let errors = 0;
    let time = 0;
    const several = task.samples.length > 1;
    if (task.problem) {
      tests += 1;
      errors += 1;
      suite
        .ele("testcase", { name: "deliverable", classname: task.task_id, time: "0.000" })
        .ele("error", { message: task.problem, type: "usage" })
        .txt(task.problem);
    }
    for (const sample of task.samples) {
      time += sample.duration_ms;
      const prefix = several ? `sample ${sampleNumber(sample.sample)}: ` : "";
      if (!sample.report) {
        tests += 1;
        errors += 1;
        const message = sample.error?.message ?? sample.status;
        suite
          .ele("testcase", {
            name: `${prefix || `sample ${sampleNumber(sample.sample)}: `}not graded`,
            classname: task.task_id,
            time: seconds(sample.duration_ms),
          })
          .ele("error", { message, type: sample.error?.code ?? "error" })
          .txt(message);
        continue;
      }
      for (const verdict of sample.report.cases) {
        tests += 1;
        if (verdict.status === "failed") failures += 1;
        else if (verdict.status !== "passed") errors += 1;
        addCase(suite, `${prefix}${verdict.name}`, task.task_id, verdict, seconds(verdict.duration_ms));
      }
    }
    suite.att({ tests: String(tests), failures: String(failures), errors: String(errors), skipped: "0", time: seconds(time) });
    allTests += tests;
    allFailures += failures;
    allErrors += errors;
  }
  root.att({ tests: String(allTests), failures: String(allFailures), errors: String(allErrors) });
  return root.end({ prettyPrint: true });
}

type XmlNode = ReturnType<ReturnType<typeof create>["ele"]>;

function addCase(suite: XmlNode, name: string, classname: string, verdict: CaseVerdict, time: string): void {
  const testcase = suite.ele("testcase", { name, classname, time });
  const message = verdict.message ?? verdict.status;
  if (verdict.status === "failed") testcase.ele("failure", { message, type: "failed" }).txt(verdict.diff || message);
  else if (verdict.status !== "passed") {
    const detail = [message, typeof verdict.details?.traceback === "string" ? verdict.details.traceback : ""].filter(Boolean).join("\n");
    testcase.ele("error", { message, type: verdict.status }).txt(detail);
  }
  const stderr = verdict.details?.stderr;
  if (typeof stderr === "string" && stderr !== "") testcase.ele("system-err").txt(stderr);
}
