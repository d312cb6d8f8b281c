/**
 * `skillrig runs diff <before> <after> [--changed-only] [--fail-on regression|significant|never] [--reporter markdown]`:
 * two recorded runs of the same task, suite, solve batch or skill compared with `@skillrig/view/compare` (the view's
 * compare page uses the same function): tasks that fell and the samples behind them, the pass rate and pass@k with
 * their paired statistics, time deltas, the cases whose status changed. Exit 1 when the gate fails (by default a
 * regression: a case of an unchanged deliverable broke or a task's rate fell), 2 when an id names no run or the runs
 * cannot be compared.
 */
import { SkillrigError } from "@skillrig/core";
import { listRunRecords, readRunReport, type RunRecord } from "@skillrig/view";
import { CompareError, compareRuns, type RunComparison } from "@skillrig/view/compare";
import { comparisonMarkdown, comparisonText } from "../comparison-text.js";
import type { CommandContext } from "../context.js";
import { ExitCode } from "../exit-codes.js";
import { failsGate, type FailOn } from "../fail-on.js";

const LATEST = /^latest(?:~([0-9]{1,6}))?$/;

/** The record an argument names: a run id, `latest`, or `latest~N` (the N-th earlier run of the newest's kind and name). */
async function resolveId(runsDir: string, arg: string, field: string): Promise<string> {
  const match = LATEST.exec(arg);
  if (!match) return arg;
  const records = await listRunRecords(runsDir);
  const newest = records[0];
  const back = Number(match[1] ?? 0);
  const same = newest ? records.filter((r: RunRecord) => r.kind === newest.kind && r.name === newest.name) : [];
  const found = same[back];
  if (!found) {
    throw new SkillrigError(
      "usage",
      newest
        ? `${field} "${arg}": there are ${same.length} recorded run(s) of ${newest.kind} ${newest.name}, so no ${arg}`
        : `${field} "${arg}": no recorded runs in ${runsDir}`,
      { field, hint: "skillrig runs list shows the ids" },
    );
  }
  return found.id;
}

async function load(runsDir: string, arg: string, field: string): Promise<{ id: string; record: RunRecord; report: unknown }> {
  const id = await resolveId(runsDir, arg, field);
  const found = await readRunReport(runsDir, id);
  if (!found)
    throw new SkillrigError("usage", `${field}: no recorded run "${id}" in ${runsDir}`, {
      field,
      hint: "skillrig runs list shows the ids",
    });
  if (found.record.kind === "eval") {
    throw new SkillrigError("usage", `${field}: "${id}" is an eval iteration; compare iterations on the eval's page in skillrig view`, {
      field,
    });
  }
  if (found.report === null) {
    throw new SkillrigError("usage", `${field}: the report of run "${id}" (${found.record.report}) is missing or not JSON`, { field });
  }
  return { id, ...found };
}

/** Runs the comparison and prints it; the exit code (1: a regression). */
export interface RunsDiffOptions {
  changedOnly: boolean;
  failOn: FailOn;
  reporter: "text" | "markdown";
}

export async function runsDiff(
  ctx: CommandContext,
  runsDir: string,
  beforeArg: string,
  afterArg: string,
  options: RunsDiffOptions,
): Promise<number> {
  const { changedOnly } = options;
  const before = await load(runsDir, beforeArg, "before");
  const after = await load(runsDir, afterArg, "after");
  let comparison: RunComparison;
  try {
    comparison = compareRuns(before.report, after.report, { sameRun: before.id === after.id });
  } catch (error) {
    if (!(error instanceof CompareError)) throw error;
    const id = error.side === "before" ? before.id : error.side === "after" ? after.id : undefined;
    throw new SkillrigError("usage", `${id ? `run "${id}": ` : ""}${error.message}`, {
      field: error.side ?? "after",
      ...(error.pointer !== undefined ? { pointer: error.pointer } : {}),
    });
  }
  const json = {
    before: before.record,
    after: after.record,
    ...comparison,
    cases: changedOnly ? comparison.cases.filter((c) => c.changed) : comparison.cases,
    outputs: changedOnly ? comparison.outputs.filter((o) => o.changed) : comparison.outputs,
  };
  const failed = failsGate(options.failOn, comparison);
  if (options.reporter === "markdown" && !ctx.out.json) ctx.out.result(undefined, comparisonMarkdown(before.id, after.id, comparison));
  else ctx.out.result({ ...json, fail_on: options.failOn, failed }, comparisonText(before.id, after.id, comparison, changedOnly));
  return failed ? ExitCode.Failure : ExitCode.Success;
}
