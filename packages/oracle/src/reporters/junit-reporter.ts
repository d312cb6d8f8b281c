/**
 * JUnit XML: one <testsuite> per task, one <testcase> per case. `failed` is a <failure> (the deliverable gave a
 * wrong answer); error, timeout, memory_limit, output_limit and invalid_test_format are <error>s (the case could
 * not be judged), with the status as the `type` attribute.
 */
import { create } from "./lazy-xml.js";
import type { Runner, SkillrigPlugin, TaskReport } from "@skillrig/core";
import { tracebackOf } from "./traceback.js";
import { writeReportFile } from "./report-file.js";

export interface JunitReporterOptions {
  /** Write `<dir>/<task_id>.junit.xml`. */
  dir?: string;
  stream?: NodeJS.WritableStream;
  onFile?: (file: string) => void;
}

export function toJunitXml(report: TaskReport): string {
  const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);
  const failures = report.summary.failed;
  const errors = report.summary.errored + report.summary.invalid;
  const root = create({ version: "1.0", encoding: "UTF-8" }).ele("testsuites", {
    name: "skillrig",
    tests: report.summary.total,
    failures,
    errors,
    time: seconds(report.duration_ms),
  });
  const suite = root.ele("testsuite", {
    name: report.task_id,
    tests: report.summary.total,
    failures,
    errors,
    skipped: 0,
    time: seconds(report.duration_ms),
  });
  if (report.isolation || report.warnings) {
    const properties = suite.ele("properties");
    if (report.isolation) properties.ele("property", { name: "isolation", value: report.isolation });
    if (report.hidden_tests_reachable) properties.ele("property", { name: "hidden_tests_reachable", value: "true" });
    for (const warning of report.warnings ?? []) properties.ele("property", { name: "warning", value: warning });
  }
  for (const verdict of report.cases) {
    const testcase = suite.ele("testcase", { name: verdict.name, classname: report.task_id, time: seconds(verdict.duration_ms) });
    // The input as a testcase property (CI viewers list them) and as the first line of a failure's text.
    const input = verdict.input === undefined ? undefined : JSON.stringify(verdict.input);
    if (input !== undefined) testcase.ele("properties").ele("property", { name: "input", value: input });
    const message = verdict.message ?? verdict.status;
    const inputLine = input !== undefined ? `input: ${input}` : "";
    if (verdict.status === "failed") {
      testcase.ele("failure", { message, type: "failed" }).txt([inputLine, verdict.diff || message].filter(Boolean).join("\n"));
    } else if (verdict.status !== "passed") {
      const detail = [inputLine, message, tracebackOf(verdict) ?? ""].filter(Boolean).join("\n");
      testcase.ele("error", { message, type: verdict.status }).txt(detail);
    }
    const stderr = verdict.details?.stderr;
    if (typeof stderr === "string" && stderr !== "") testcase.ele("system-err").txt(stderr);
  }
  return root.end({ prettyPrint: true });
}

export class JunitReporter implements SkillrigPlugin {
  readonly name = "@skillrig/oracle:junit-reporter";
  readonly #options: JunitReporterOptions;

  constructor(options: JunitReporterOptions = {}) {
    if (!options.stream && !options.dir) throw new TypeError("JunitReporter needs a dir or a stream");
    this.#options = options;
  }

  apply(runner: Runner): void {
    runner.hooks.runEnd.tapPromise(this.name, async (info) => {
      if (info.kind !== "task" || !info.report) return;
      const xml = `${toJunitXml(info.report)}\n`;
      if (this.#options.stream) this.#options.stream.write(xml);
      if (this.#options.dir) {
        // Written whether or not anyone listens: \`onFile?.(await write())\` would skip the write without a listener.
        const file = await writeReportFile(this.#options.dir, info.report.task_id, ".junit.xml", xml);
        this.#options.onFile?.(file);
      }
    });
  }
}
