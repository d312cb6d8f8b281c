/**
 * `skillrig runs diff <before> <after> [--changed-only]`: two recorded runs of the same task, suite, solve batch or
 * skill compared with `@skillrig/view/compare` (the view's compare page uses the same function), as a table of
 * cases whose status changed and the pass rate, pass@k and time deltas. Exit 1 when a case that passed before does
 * not now (for CI), 2 when an id names no run or the runs cannot be compared.
 */
import { SkillrigError } from "@skillrig/core";
import { listRunRecords, readRunReport, type RunRecord } from "@skillrig/view";
import { CompareError, compareRuns, type CaseComparison, type Delta, type RunComparison } from "@skillrig/view/compare";
import type { CommandContext } from "../context.js";
import { ExitCode } from "../exit-codes.js";
import { table } from "../text-table.js";

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

const percent = (rate: number | null) => (rate === null ? "-" : `${Math.round(rate * 1000) / 10}%`);
const ms = (value: number | null) => (value === null ? "-" : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`);

function signed(value: number | null, unit: "pp" | "ms"): string {
  if (value === null) return "-";
  const sign = value > 0 ? "+" : value < 0 ? "-" : "±";
  return unit === "pp" ? `${sign}${Math.abs(Math.round(value * 1000) / 10)} pp` : `${sign}${ms(Math.abs(value))}`;
}

const rateLine = (label: string, d: Delta) => `${label} ${percent(d.before)} -> ${percent(d.after)} (${signed(d.delta, "pp")})`;

function caseRows(cases: CaseComparison[]): string[][] {
  return [
    ["change", "task", "sample", "case", "before", "after", "time"],
    ...cases.map((c) => [
      c.change,
      c.task_id,
      c.sample ?? "-",
      c.case,
      c.before?.status ?? "-",
      c.after?.status ?? "-",
      signed(c.duration_delta_ms, "ms"),
    ]),
  ];
}

function human(before: string, after: string, c: RunComparison, changedOnly: boolean): string {
  const n = c.counts;
  const lines = [
    `${before} -> ${after}`,
    rateLine(`pass rate (${c.pass_rate.of})`, c.pass_rate),
    ...c.pass_at_k.map((p) => rateLine(`pass@${p.k} ${p.scope}`, p)),
    `time ${ms(c.duration_ms.before)} -> ${ms(c.duration_ms.after)} (${signed(c.duration_ms.delta, "ms")})`,
  ];
  if (c.tasks.added.length > 0) lines.push(`tasks only after: ${c.tasks.added.join(", ")}`);
  if (c.tasks.removed.length > 0) lines.push(`tasks only before: ${c.tasks.removed.join(", ")}`);
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

/** Runs the comparison and prints it; the exit code (1: a regression). */
export async function runsDiff(
  ctx: CommandContext,
  runsDir: string,
  beforeArg: string,
  afterArg: string,
  changedOnly: boolean,
): Promise<number> {
  const before = await load(runsDir, beforeArg, "before");
  const after = await load(runsDir, afterArg, "after");
  let comparison: RunComparison;
  try {
    comparison = compareRuns(before.report, after.report);
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
  ctx.out.result(json, human(before.id, after.id, comparison, changedOnly));
  return comparison.regression ? ExitCode.Failure : ExitCode.Success;
}
