/**
 * `skillrig solve <task-file...> --engine <name> [--engine <name2>] [--attempts K] [--jobs N] [--json]
 *  [--reporter json|junit|html --out DIR]`: engines write each task's deliverable through the built-in solve skill,
 * the Task Oracle grades it on the task's hidden tests. Exit 0 when every attempt passed, 1 when any did not,
 * 2 for invalid input (a task file, an unknown engine, misuse). With --json, stdout holds only the solve report.
 * With --server URL the reference checks and attempts run on a jobs server's workers (remote-run.ts); the report is
 * built here by the same code, so it, the reporters and the exit codes are those of a local run.
 */
import { resolve } from "node:path";
import { InvalidArgumentError } from "commander";
import { runsFolderOf, SkillrigError, type Runner } from "@skillrig/core";
import {
  loadSolveTasks,
  solve,
  writeSolveReports,
  type SolveConfig,
  type SolveEngine,
  type SolveOptions,
  type SolveProgress,
  type SolveReport,
} from "@skillrig/solve";
import type { CommandModule } from "../command.js";
import type { CommandContext } from "../context.js";
import { ExitCode } from "../exit-codes.js";
import { catchInterrupts, type Interrupts } from "../interrupts.js";
import { addBudgetOptions, type BudgetFlags, costLimitError, errorLines, invocationBudget } from "../invocation-budget-flags.js";
import { recordRun, reserveRunFolder } from "../run-record.js";
import { seconds, startHeartbeat } from "../heartbeat.js";
import { REMOTE_IN_FLIGHT, SERVER_TOKEN_ENV } from "../server-option.js";
import { loadRemoteRun } from "../server-package.js";

const REPORTERS = ["json", "junit", "html"] as const;

interface SolveCommandOptions extends BudgetFlags {
  engine?: string[];
  attempts?: number;
  jobs?: number;
  reporter?: string[];
  out?: string;
  timeout?: number;
  record?: boolean;
  server?: string;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a whole number of at least 1");
  return n;
}

/** Repeatable, comma-separated values; the first call gets no previous list (no default, so help shows none). */
function collect(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

export const solveCommand: CommandModule = {
  register(program, context, setExit) {
    const command = program
      .command("solve")
      .description("Have an engine write the deliverable for a task, then grade it on the task's hidden tests")
      .argument("<task-file...>", "task files (JSON, Task Oracle Input Contract v1.0)")
      .option(
        "-e, --engine <name>",
        "engine (or solve.variants label) to solve with, repeatable (default: solve.engines from the config)",
        collect,
      )
      .option("-k, --attempts <k>", "attempts per task and engine (default: solve.attempts from the config, else 1)", positiveInteger)
      .option("-j, --jobs <n>", "attempts run at once (default: solve.jobs from the config, else 2)", positiveInteger)
      .option("--reporter <name>", `report file to write, repeatable: ${REPORTERS.join(", ")}`, collect)
      .option("--out <dir>", "folder for report files (solve-report.json, solve-report.junit.xml, solve-report.html)")
      .option("--timeout <ms>", "time limit of each engine run in milliseconds", positiveInteger)
      .option("--no-record", "do not record this run in the runs folder (skillrig runs, skillrig view)")
      .option(
        "--server <url>",
        `run the attempts and grade them on a jobs server (skillrig serve) instead of here; its token from ${SERVER_TOKEN_ENV}. --jobs is then the attempts submitted at once (default ${REMOTE_IN_FLIGHT})`,
      );
    addBudgetOptions(command, "solve")
      .addHelpText(
        "after",
        "\nExit codes: 0 every attempt passed, 1 some attempt did not pass (or the budget stopped the batch: cost_limit), 2 invalid input or misuse.\n" +
          "With --json, stdout holds only the solve report (the same document as --reporter json).\n",
      )
      .action((taskFiles: string[], given: SolveCommandOptions, command) => solveAction(context(command), taskFiles, given, setExit));
  },
};

/** The command's options with the repeatable ones as lists, checked. */
type CheckedOptions = SolveCommandOptions & { engine: string[]; reporter: string[] };

/** `skillrig solve`: check the options, load the tasks, run the batch, record and report it, set the exit code. */
async function solveAction(
  ctx: CommandContext,
  taskFiles: string[],
  given: SolveCommandOptions,
  setExit: (code: number) => void,
): Promise<void> {
  const options = checkedOptions(given);
  const runner = await ctx.runner();
  const budget = invocationBudget(options, runner.config.cost);
  const defaults = runner.config.solve ?? {};
  const engines = enginesOf(options.engine, defaults);
  const tasks = await loadSolveTasks(taskFiles, ctx.cwd);
  // Ctrl-C stops the running engines (their process groups are killed) and starts no new attempt; the
  // report of what ran is still printed and written. The listener stays until the batch ends, so engine
  // plugins that kill their CLIs on SIGINT leave the process alive to report. A second Ctrl-C exits at once.
  const canceled = catchInterrupts({ stopping: "the running engines' attempts", warn: (line) => ctx.out.warn(line) });
  const startedAt = new Date();
  const folder =
    options.record !== false ? await reserveRunFolder(ctx, "solve", tasks.map((t) => t.task.task_id).join(","), startedAt) : undefined;
  const batch: SolveOptions = {
    signal: canceled.signal,
    runsDir: folder?.jobsDir ?? runsFolderOf(runner),
    tasks,
    engines,
    attempts: options.attempts ?? defaults.attempts ?? 1,
    jobs: options.jobs ?? (options.server ? REMOTE_IN_FLIGHT : (defaults.jobs ?? 2)),
    timeoutMs: options.timeout,
    ...(budget.active ? { budget } : {}),
  };
  const report = await solveWithProgress(ctx, runner, batch, options.server, canceled);
  if (folder) await recordRun(ctx, "solve", report, startedAt, folder);
  if (options.out) {
    for (const file of await writeSolveReports(report, options.reporter, resolve(ctx.cwd, options.out))) ctx.out.info(`wrote ${file}`);
  }
  ctx.out.result(report, formatSolveSummary(report));
  if (report.stopped) {
    // The report (what ran, and the attempts not run) is written and printed; the error closes the output.
    const where = options.out
      ? resolve(ctx.cwd, options.out)
      : folder
        ? `run ${folder.id} (skillrig runs show ${folder.id})`
        : "the report above";
    for (const line of errorLines(costLimitError(report.stopped.message, "the solve batch", where))) ctx.out.info(line);
    setExit(ExitCode.Failure);
    return;
  }
  setExit(report.summary.not_passed === 0 ? ExitCode.Success : ExitCode.Failure);
}

/** --reporter names known ones and comes with --out; --server is an http(s) URL. */
function checkedOptions(given: SolveCommandOptions): CheckedOptions {
  const options = { ...given, engine: given.engine ?? [], reporter: given.reporter ?? [] };
  const unknown = options.reporter.filter((r) => !(REPORTERS as readonly string[]).includes(r));
  if (unknown.length > 0) {
    throw new SkillrigError("usage", `unknown reporter ${unknown.map((r) => `"${r}"`).join(", ")}; available: ${REPORTERS.join(", ")}`, {
      field: "--reporter",
    });
  }
  if (options.reporter.length > 0 && !options.out) {
    throw new SkillrigError("usage", "--reporter writes report files and needs --out <dir>", { field: "--out" });
  }
  if (options.server !== undefined && !/^https?:\/\/[^/]+/.test(options.server)) {
    throw new SkillrigError("usage", `--server must be an http(s) URL such as http://127.0.0.1:8765, not "${options.server}"`, {
      field: "--server",
    });
  }
  return options;
}

/** The engines to solve with: --engine, else solve.engines; a name of a configured variant gets its engine and options. */
function enginesOf(named: string[], defaults: SolveConfig): SolveEngine[] {
  const engines = named.length > 0 ? named : (defaults.engines ?? []);
  if (engines.length === 0) {
    throw new SkillrigError("usage", "no engine given", {
      field: "--engine",
      hint: "skillrig solve <task-file...> --engine gemini (or set solve.engines in the config)",
    });
  }
  // An --engine that names a configured variant gets that variant's engine and options; anything else is an engine name.
  const variants = new Map((defaults.variants ?? []).map((v) => [v.label, v]));
  return engines.map((name) => {
    const variant = variants.get(name);
    return variant ? { name: variant.engine, label: variant.label, options: variant.options } : { name };
  });
}

/** Runs the batch (here, or on a jobs server with --server) with a line per reference check and attempt, and a heartbeat. */
async function solveWithProgress(
  ctx: CommandContext,
  runner: Runner,
  batch: SolveOptions,
  server: string | undefined,
  canceled: Interrupts,
): Promise<SolveReport> {
  let done = 0;
  const heartbeat = startHeartbeat(
    (line) => ctx.out.info(line),
    (elapsed, quiet) => `... still running: ${done} attempt(s) done, ${seconds(elapsed)} so far, nothing new for ${seconds(quiet)}`,
  );
  try {
    return await solve(runner, {
      ...batch,
      ...(server ? { execution: (await loadRemoteRun()).remoteSolveExecution(runner, server) } : {}),
      onProgress: (event) => {
        heartbeat.touch();
        if (event.type !== "reference") done = event.done;
        ctx.out.info(progressLine(event));
      },
    });
  } finally {
    heartbeat.stop();
    canceled.release();
  }
}

/** One reference check's or one attempt's line. */
function progressLine(event: SolveProgress): string {
  if (event.type === "reference") {
    const c = event.check;
    return c.flagged.length === 0
      ? `reference ${event.task_id}: passes every case`
      : `reference ${event.task_id}: fails ${c.flagged.map((f) => f.name).join(", ")}; not scored against engines`;
  }
  const r = event.result;
  return `[${event.done}/${event.total}] ${r.task_id} ${r.engine} #${r.attempt}: ${r.status} ${r.score.passed}/${r.score.total}${r.message && r.status !== "passed" ? ` - ${r.message}` : ""}`;
}

/** The human summary: one line per engine, then tasks against engines. */
export function formatSolveSummary(report: SolveReport): string {
  const lines: string[] = [];
  lines.push(
    `${report.summary.passed}/${report.summary.attempts} attempts passed (${report.summary.tasks} tasks, ${report.attempts_per_task} attempt(s) per engine)`,
  );
  for (const e of report.engines) {
    const ks = Object.entries(e.pass_at_k)
      .map(([k, v]) => `pass@${k} ${(v * 100).toFixed(1)}%`)
      .join(", ");
    const tokens = e.usage.reported ? `, tokens ${e.usage.inputTokens} in / ${e.usage.outputTokens} out` : "";
    lines.push(`  ${e.engine}: ${e.passed}/${e.attempts} passed, ${ks}, engine time ${(e.usage.engineMs / 1000).toFixed(1)} s${tokens}`);
  }
  for (const t of report.tasks) {
    const cells = report.engines.map((e) => {
      const mine = t.attempts.filter((a) => a.engine === e.engine);
      return `${e.engine} ${mine.filter((a) => a.status === "passed").length}/${mine.length} [${mine.map((a) => a.status).join(",")}]`;
    });
    const flagged = t.reference && t.reference.flagged.length > 0 ? ` (reference fails ${t.reference.flagged.length}, not scored)` : "";
    lines.push(`  ${t.task_id}${flagged}: ${cells.join("  ")}`);
  }
  return lines.join("\n");
}
