/**
 * An iteration as JUnit XML (`skillrig eval --reporter junit`), what CI systems read: one test case per eval case x
 * configuration x engine (its runs together). A run whose job failed (the engine, not the skill) is an `<error>`; an
 * assertion that did not pass is a `<failure>` naming it and its evidence. Assertion texts and evidence come from the
 * skill's files and the judge (an agent): everything is escaped, and characters XML 1.0 cannot carry are dropped.
 * Nothing is cut: the report holds what grading.json holds, whose size the job's own output bounds already limit.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Benchmark, Grading, RunAnswer } from "./format.js";

/** Text as XML character data or attribute value: escaped, with the characters XML 1.0 forbids removed. */
export function xmlText(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** A JSON file of a run, or undefined when it is missing or not JSON (the report says so instead of failing). */
function readRunFile<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

export function junitReport(benchmark: Benchmark, iterationDir: string): string {
  const { metadata } = benchmark;
  const suite = `skillrig eval ${metadata.skill_name} iteration ${metadata.iteration}`;
  const cases: string[] = [];
  let failures = 0;
  let errors = 0;
  for (const evalId of metadata.evals_run) {
    for (const configuration of metadata.configurations) {
      for (const engine of metadata.engines) {
        const runs = benchmark.runs.filter(
          (r) => String(r.eval_id) === String(evalId) && r.configuration === configuration && r.engine === engine,
        );
        const time = runs.reduce((a, r) => a + r.result.time_seconds, 0);
        const errorLines: string[] = [];
        const failureLines: string[] = [];
        for (const run of runs) {
          const label = runs.length > 1 ? `run ${run.run_number}: ` : "";
          if (run.result.status !== "succeeded") {
            const answer = readRunFile<RunAnswer>(join(iterationDir, run.path, "answer.json"));
            errorLines.push(
              `${label}the job ${run.result.status}${answer?.error ? ` (${answer.error.code}: ${answer.error.message})` : ""}`,
            );
            continue;
          }
          const grading = readRunFile<Grading>(join(iterationDir, run.path, "grading.json"));
          if (!grading) {
            errorLines.push(`${label}grading.json is missing or not JSON`);
            continue;
          }
          for (const a of grading.assertion_results ?? []) {
            if (!a.passed) failureLines.push(`${label}${a.text} (${a.graded_by}): ${a.evidence ?? ""}`);
          }
          for (const e of grading.errors ?? []) errorLines.push(`${label}grading: ${e}`);
        }
        const name = `eval-${evalId} ${configuration} ${engine}`;
        let body = "";
        if (errorLines.length > 0) {
          errors += 1;
          body = `<error message="${xmlText(errorLines[0]!)}">${xmlText(errorLines.join("\n"))}</error>`;
        } else if (failureLines.length > 0) {
          failures += 1;
          body = `<failure message="${xmlText(`${failureLines.length} assertion(s) failed`)}">${xmlText(failureLines.join("\n"))}</failure>`;
        }
        cases.push(
          `  <testcase classname="${xmlText(`${metadata.skill_name}.${configuration}`)}" name="${xmlText(name)}" time="${time.toFixed(3)}">${body}</testcase>`,
        );
      }
    }
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(suite)}" tests="${cases.length}" failures="${failures}" errors="${errors}">`,
    ` <testsuite name="${xmlText(suite)}" tests="${cases.length}" failures="${failures}" errors="${errors}" timestamp="${xmlText(metadata.timestamp)}">`,
    ...cases,
    " </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
