/**
 * `skillrig runs list|show|diff|clean`: the runs folder's recorded test, solve and run runs and eval iterations
 * (docs/view.md), so run folders and cached Python environments do not pile up unseen, and two runs can be
 * compared (`diff`, the same comparison as the view's compare page: `@skillrig/view/compare`).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runsFolderOf, SkillrigError } from "@skillrig/core";
import { cleanRuns, isRunId, listRunRecords, parseAge, RUN_KINDS, readRunRecord, type RunRecord } from "@skillrig/view";
import { failingCaseLines } from "../failing-cases.js";
import type { CommandModule } from "../command.js";
import { pythonEnvDirOf } from "../run-record.js";
import { table } from "../text-table.js";
import { parseFailOn } from "../fail-on.js";
import { runsDiff } from "./runs-diff.js";

const KINDS: readonly string[] = RUN_KINDS;

function rate(r: RunRecord): string {
  if (r.pass_rate === null) return "-";
  // An eval iteration's rate is a mean of pass rates, with no count behind it.
  return `${Math.round(r.pass_rate * 1000) / 10}%${r.total === null ? "" : ` (${r.passed}/${r.total})`}`;
}

function seconds(ms: number | null): string {
  return ms === null ? "-" : `${(ms / 1000).toFixed(1)} s`;
}

export const runsCommand: CommandModule = {
  register(program, context, setExit) {
    const runs = program
      .command("runs")
      .description("List, show, compare (diff) and clean the recorded runs (the runs folder, .skillrig/runs)");
    runs
      .command("list")
      .description("Recorded runs, newest first")
      .option("--kind <kind>", `only runs of this kind: ${KINDS.join(", ")}`)
      .action(async (options: { kind?: string }, command) => {
        const ctx = context(command);
        if (options.kind !== undefined && !KINDS.includes(options.kind)) {
          throw new SkillrigError("usage", `--kind "${options.kind}": expected one of ${KINDS.join(", ")}`, { field: "--kind" });
        }
        const dir = runsFolderOf(await ctx.runner());
        const records = (await listRunRecords(dir)).filter((r) => options.kind === undefined || r.kind === options.kind);
        const human =
          records.length === 0
            ? `no recorded runs in ${dir}`
            : table([
                ["id", "kind", "name", "engine", "status", "pass rate", "duration"],
                ...records.map((r) => [r.id, r.kind, r.name, r.engines.join(",") || "-", r.status, rate(r), seconds(r.duration_ms)]),
              ]);
        ctx.out.result({ runs_dir: dir, runs: records }, human);
      });
    runs
      .command("show <id>")
      .description("One recorded run: its record and where its report is (with --json, the report too)")
      .action(async (id: string, _options, command) => {
        const ctx = context(command);
        const dir = runsFolderOf(await ctx.runner());
        const record = isRunId(id) ? await readRunRecord(dir, id) : undefined;
        if (!record) {
          throw new SkillrigError("usage", `no recorded run "${id}" in ${dir}`, { field: "id", hint: "skillrig runs list shows the ids" });
        }
        const reportFile = join(dir, id, record.report);
        let report: unknown = null;
        try {
          report = JSON.parse(await readFile(reportFile, "utf8"));
        } catch {
          report = null;
        }
        const human = [
          `${record.kind} ${record.name}: ${record.status}, pass rate ${rate(record)}, ${seconds(record.duration_ms)}`,
          `started ${record.started_at}${record.engines.length > 0 ? `, engine ${record.engines.join(", ")}` : ""}`,
          `folder ${join(dir, id)}`,
          `report ${reportFile}${report === null ? " (missing or not JSON)" : ""}`,
          ...incompleteLines(report),
          ...failingCaseLines(report),
        ].join("\n");
        ctx.out.result({ record, folder: join(dir, id), report }, human);
      });
    runs
      .command("diff <before> <after>")
      .description("Compare two recorded runs of the same task, suite, solve batch or skill: exit 1 on a regression (see --fail-on)")
      .option("--changed-only", "list only the cases whose status changed")
      .option(
        "--fail-on <when>",
        "regression (a case of an unchanged deliverable broke, or a task's rate fell), significant (only a drop whose 95% interval excludes 0), never",
        "regression",
      )
      .option("--reporter <name>", "text, or markdown (a summary for a pull-request comment)", "text")
      .addHelpText(
        "after",
        "\nIds as `runs list` shows them; `latest` is the newest run, `latest~N` the N-th earlier run of the same kind and name.\nExit codes: 0 the gate passed, 1 it failed (by default: a regression), 2 an unknown id or runs that cannot be compared.\n",
      )
      .action(async (before: string, after: string, options: { changedOnly?: boolean; failOn: string; reporter: string }, command) => {
        const ctx = context(command);
        const failOn = parseFailOn(options.failOn);
        if (options.reporter !== "text" && options.reporter !== "markdown") {
          throw new SkillrigError("usage", `--reporter "${options.reporter}": expected text or markdown`, { field: "--reporter" });
        }
        setExit(
          await runsDiff(ctx, runsFolderOf(await ctx.runner()), before, after, {
            changedOnly: options.changedOnly === true,
            failOn,
            reporter: options.reporter,
          }),
        );
      });
    runs
      .command("clean")
      .description("Remove recorded runs, and cached Python environments, older than an age")
      .requiredOption("--older-than <age>", "e.g. 12h, 7d, 2w (units s, m, h, d, w)")
      .option("--dry-run", "only list what would be removed")
      .action(async (options: { olderThan: string; dryRun?: boolean }, command) => {
        const ctx = context(command);
        const olderThanMs = parseAge(options.olderThan);
        if (olderThanMs === undefined) {
          throw new SkillrigError("usage", `--older-than "${options.olderThan}": expected a number and a unit, like 12h, 7d or 2w`, {
            field: "--older-than",
          });
        }
        const runner = await ctx.runner();
        const dir = runsFolderOf(runner);
        const removed = await cleanRuns(dir, { olderThanMs, pythonEnvDir: pythonEnvDirOf(runner), dryRun: options.dryRun === true });
        const verb = options.dryRun ? "would remove" : "removed";
        const lines = [...removed.runs.map((r) => `${verb} run ${r}`), ...removed.pythonEnvs.map((p) => `${verb} python env ${p}`)];
        lines.push(
          `${verb} ${removed.runs.length} run(s) and ${removed.pythonEnvs.length} Python environment(s) older than ${options.olderThan}`,
        );
        ctx.out.result({ dry_run: options.dryRun === true, runs: removed.runs, python_envs: removed.pythonEnvs }, lines.join("\n"));
      });
  },
};

/** What ended early in a recorded report (a task's `incomplete`, or any sample's): shown so it is never read as complete. */
function incompleteLines(report: unknown): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(report)) return [];
  const reason = (v: unknown) => (isObject(v) && typeof v.reason === "string" ? v.reason : undefined);
  const own = reason(report.incomplete);
  const samples = Array.isArray(report.tasks)
    ? report.tasks.flatMap((t) =>
        isObject(t) && Array.isArray(t.samples) ? t.samples.map((s) => (isObject(s) ? reason(s.incomplete) : undefined)) : [],
      )
    : [];
  return [own, ...samples].filter((r): r is string => r !== undefined).map((r) => `INCOMPLETE: ${r}; not a pass`);
}
