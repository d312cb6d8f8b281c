/**
 * `skillrig eval <skill> [--engine E ...] [--runs N] [--baseline DIR] [--configs LIST] [--judge ENGINE]
 *   [--judge-prompt FILE] [--out DIR] [--jobs N] [--min-pass-rate X] [--trigger-runs N] [--no-triggers]
 *   [--distractors DIR] [--timeout MS]`
 * Runs a skill's evals (evals/evals.json) with and without the skill (or against --baseline), graded per
 * assertion, and its trigger evals (evals/triggers.json), in the Agent Skills specification's layout
 * (@skillrig/evals, docs/evals.md). Exit codes: 0 every case's with_skill mean pass rate is at least
 * --min-pass-rate, 1 one is below, 2 invalid input, config or usage.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { runsFolderOf, SkillrigError, type Runner, type SkillManifest } from "@skillrig/core";
import {
  DEFAULT_TRIGGER_RUNS,
  checkPlainSkill,
  gradeRun,
  junitReport,
  MIN_TRIGGER_RUNS,
  loadDistractors,
  loadEvals,
  loadTriggers,
  parseConfigurations,
  runIteration,
  type BenchmarkRun,
  type ConfigurationSummary,
  type IterationResult,
  type LoadedDistractors,
  type PairDelta,
  type TriggerReport,
  type TriggerRunInfo,
  type RunDelta,
  type RunIterationOptions,
  type RunSummary,
} from "@skillrig/evals";
import { type InvocationBudget, loadSkill } from "@skillrig/skills";
import type { CommandModule } from "../command.js";
import type { CommandContext } from "../context.js";
import { percent as percent1, statsText } from "../delta-text.js";
import { comparisonLines, earlierIteration, evalMarkdown } from "../eval-comparison.js";
import { parseFailOn } from "../fail-on.js";
import { readableFlagFile } from "../flag-file.js";
import { ExitCode } from "../exit-codes.js";
import { catchInterrupts } from "../interrupts.js";
import { addBudgetOptions, type BudgetFlags, costLimitError, errorLines, invocationBudget } from "../invocation-budget-flags.js";
import { skillFromArgument } from "./skills.js";
import { attemptsNote, infrastructureLines, parseRetries, retryLine } from "../eval-infrastructure-text.js";

interface EvalOptions extends BudgetFlags {
  engine: string[];
  runs: string;
  baseline?: string;
  configs?: string;
  distractors?: string;
  judge?: string;
  judgePrompt?: string;
  out?: string;
  jobs: string;
  minPassRate?: string;
  failOn?: string;
  against?: string;
  reporter: string[];
  reportFile?: string;
  triggerRuns: string;
  triggers: boolean;
  timeout?: string;
  retries?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInteger(text: string, flag: string, min = 1): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    throw new SkillrigError("usage", `${flag} ${text}: expected a whole number of at least ${min}`, { field: flag });
  }
  return n;
}

/** The engines to run: --engine (repeatable), else the config's run.engine, else the only engine configured. */
export function enginesToRun(runner: Runner, named: string[], configured?: string): string[] {
  const claimed = runner.claims("engine").map((c) => c.name);
  const engines = named.length > 0 ? [...new Set(named)] : configured ? [configured] : claimed.length === 1 ? claimed : [];
  if (engines.length === 0) {
    throw new SkillrigError(
      "usage",
      claimed.length === 0
        ? "no engine plugin is configured: add one (e.g. @skillrig/engine-gemini) to the config's plugins"
        : `name the engines to run with --engine (configured: ${claimed.join(", ")})`,
      { field: "engine" },
    );
  }
  for (const engine of engines) runner.requireClaim("engine", engine, { field: "engine" });
  return engines;
}

const percent = (rate: number) => `${Math.round(rate * 100)}%`;
const signed = (n: number, unit = "") => `${n >= 0 ? "+" : ""}${Math.round(n * 100) / 100}${unit}`;

function progressLine(run: BenchmarkRun, engines: number): string {
  const where = `eval-${run.eval_id} ${run.configuration}${engines > 1 ? ` ${run.engine}` : ""} run ${run.run_number}`;
  const r = run.result;
  const state = r.status === "succeeded" ? `${r.passed}/${r.total} passed` : `${r.status}, ${r.total} assertion(s) failed`;
  return `[eval] ${where}: ${state} (${r.time_seconds}s, ${r.tokens} tokens)${attemptsNote(run)}`;
}

function padTable(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}

/** Each pair's delta, across engines and (with several) per engine. */
export function pairDeltaLines(deltas: PairDelta[], engines: number): string[] {
  const lines = ["pairs:"];
  for (const d of deltas) {
    if (d.engine !== null && engines < 2) continue;
    const stats = d.paired ? `; ${statsText(d.paired.pass_rate)}` : "";
    lines.push(
      `  ${d.engine !== null ? `${d.engine}: ` : ""}${d.of[0]} - ${d.of[1]}: pass rate ${signed(d.pass_rate * 100, " pts")}${stats}, time ${signed(d.time_seconds, "s")}, tokens ${signed(d.tokens)}`,
    );
  }
  return lines;
}

/** The confusion table of trigger runs among neighbours: whose queries, which skill fired first, with n. */
export function confusionLines(triggers: TriggerReport): string[] {
  const d = triggers.distractors;
  if (!d) return [];
  const skills = [triggers.skill_name, ...d.skills.map((s) => s.name)];
  const lines = [
    `among ${d.skills.length} neighbour(s) (${d.skills.map((s) => `${s.name}: ${s.queries} queries`).join(", ")}): which skill fired first`,
  ];
  const ci = (c: { ci95: [number, number] | null }) => (c.ci95 ? `, 95% CI ${percent1(c.ci95[0])}-${percent1(c.ci95[1])}` : "");
  for (const table of d.confusion) {
    if (d.confusion.length > 1) lines.push(`  ${table.engine ?? "all engines"}:`);
    const rows = [["queries of", ...skills, "none", "n"]];
    for (const r of table.rows) rows.push([r.owner, ...skills.map((s) => String(r.fired[s] ?? 0)), String(r.none), String(r.n)]);
    lines.push(...padTable(rows).map((l) => `    ${l}`));
    const p = table.picked;
    const f = table.fired_on_neighbours;
    lines.push(
      `    ${triggers.skill_name} picked on its own queries: ${p.count}/${p.n}${ci(p)}`,
      `    ${triggers.skill_name} fired on a neighbour's query: ${f.count}/${f.n}${ci(f)}`,
    );
  }
  return lines;
}

/** The end-of-run text: pass rate per case x configuration x engine, the delta, trigger rates, where the files are. */
export function summaryText(result: IterationResult, cwd: string): string {
  const { benchmark, triggers } = result;
  const { engines, configurations } = benchmark.metadata;
  const lines: string[] = [];
  const rows: string[][] = [["case", ...configurations.flatMap((c) => engines.map((e) => (engines.length > 1 ? `${c} ${e}` : c)))]];
  for (const evalId of benchmark.metadata.evals_run) {
    const row = [`eval-${evalId}`];
    for (const c of configurations)
      for (const e of engines) {
        const all = benchmark.runs.filter((r) => String(r.eval_id) === String(evalId) && r.configuration === c && r.engine === e);
        // A run lost to its infrastructure says nothing of the skill: not in the mean (infrastructureLines says so).
        const mine = all.filter((r) => r.result.infrastructure_failure === undefined);
        const mean = mine.reduce((a, r) => a + r.result.pass_rate, 0) / Math.max(1, mine.length);
        const failed = mine.filter((r) => r.result.status !== "succeeded").length;
        row.push(`${percent(mean)}${failed > 0 ? ` (${failed} run${failed === 1 ? "" : "s"} failed)` : ""}`);
      }
    rows.push(row);
  }
  lines.push(...padTable(rows), "");
  const deltaLine = (label: string, summary: RunSummary) => {
    const d = summary.delta as RunDelta | undefined;
    const a = summary[d?.of[0] ?? ""] as ConfigurationSummary | undefined;
    const b = summary[d?.of[1] ?? ""] as ConfigurationSummary | undefined;
    if (!d || !a || !b) return;
    const stats = d.paired ? `; ${statsText(d.paired.pass_rate)}` : "";
    lines.push(
      `${label}${d.of[0]} vs ${d.of[1]}: pass rate ${percent(a.pass_rate.mean)} vs ${percent(b.pass_rate.mean)} (${signed(d.pass_rate * 100, " pts")}${stats}), time ${signed(d.time_seconds, "s")}, tokens ${signed(d.tokens)}`,
    );
  };
  const lost = infrastructureLines(benchmark);
  if (lost.length > 0) lines.push(...lost, "");
  deltaLine("delta ", benchmark.run_summary);
  if (engines.length > 1) for (const e of engines) deltaLine(`  ${e}: `, benchmark.by_engine[e]!);
  // With a third configuration, every pair (run_summary.delta above is the specification's one).
  if (configurations.length > 2) lines.push(...pairDeltaLines(benchmark.deltas ?? [], engines.length));
  if (triggers) {
    lines.push(
      "",
      `triggers (${triggers.runs_per_query} runs per query; passes above ${triggers.threshold} for should_trigger, at or below for should not):`,
    );
    const trows = [["query", ...(engines.length > 1 ? ["engine"] : []), "should", "rate", "result", "split"]];
    for (const q of triggers.queries) {
      const text = q.query.length > 60 ? `${q.query.slice(0, 57)}...` : q.query;
      trows.push([
        text,
        ...(engines.length > 1 ? [q.engine] : []),
        q.should_trigger ? "yes" : "no",
        `${q.triggers}/${q.runs}${q.trigger_rate_ci95 ? ` (95% CI ${percent1(q.trigger_rate_ci95[0])}-${percent1(q.trigger_rate_ci95[1])})` : ""}`,
        q.passed ? "pass" : "FAIL",
        q.split,
      ]);
    }
    lines.push(...padTable(trows).map((l) => `  ${l}`));
    for (const [engine, s] of Object.entries(triggers.summary)) {
      lines.push(
        `  ${engine}: train ${s.train.passed}/${s.train.total} passed, validation ${s.validation.passed}/${s.validation.total} passed`,
      );
    }
    if (triggers.distractors) lines.push("", ...confusionLines(triggers));
  }
  lines.push("", ...(result.comparison ? comparisonLines(result.comparison) : ["no earlier iteration to compare with"]));
  const shown = relative(cwd, result.dir);
  lines.push(
    "",
    `iteration ${result.iteration}: ${shown.startsWith("..") ? result.dir : shown} (benchmark.json${triggers ? ", triggers.json" : ""})`,
  );
  return lines.join("\n");
}

/** The options that are numbers or words, checked once at the edge (exit 2 naming the option). */
function parseNumbers(options: EvalOptions) {
  const runs = positiveInteger(options.runs, "--runs");
  const jobs = positiveInteger(options.jobs, "--jobs");
  const triggerRuns = positiveInteger(options.triggerRuns, "--trigger-runs", MIN_TRIGGER_RUNS);
  const minPassRate = options.minPassRate === undefined ? undefined : Number(options.minPassRate);
  if (minPassRate !== undefined && (!Number.isFinite(minPassRate) || minPassRate < 0 || minPassRate > 1)) {
    throw new SkillrigError("usage", `--min-pass-rate ${options.minPassRate}: expected a number from 0 to 1`, {
      field: "--min-pass-rate",
    });
  }
  const timeout = options.timeout !== undefined ? positiveInteger(options.timeout, "--timeout") : undefined;
  const failOn = options.failOn !== undefined ? parseFailOn(options.failOn) : undefined;
  const againstNumber = options.against !== undefined ? positiveInteger(options.against, "--against") : undefined;
  for (const name of options.reporter) {
    if (name !== "junit" && name !== "markdown")
      throw new SkillrigError("usage", `--reporter "${name}": expected junit or markdown`, { field: "--reporter" });
  }
  if (options.reportFile !== undefined && options.reporter.length !== 1) {
    throw new SkillrigError("usage", "--report-file needs exactly one --reporter", { field: "--report-file" });
  }
  const retries = parseRetries(options.retries);
  if (retries !== undefined && Number.isNaN(retries))
    throw new SkillrigError("usage", `--retries ${options.retries}: expected a whole number from 0 to 100`, { field: "--retries" });
  return { runs, jobs, triggerRuns, minPassRate, timeout, failOn, againstNumber, retries };
}

/** --reporter junit / markdown: each written (the iteration folder, or --report-file); name -> file. */
function writeReports(result: IterationResult, options: EvalOptions, cwd: string, info: (line: string) => void): Record<string, string> {
  const reports: Record<string, string> = {};
  for (const name of options.reporter) {
    const file =
      options.reportFile !== undefined ? resolve(cwd, options.reportFile) : join(result.dir, name === "junit" ? "junit.xml" : "summary.md");
    writeFileSync(file, name === "junit" ? junitReport(result.benchmark, result.dir) : `${evalMarkdown(result)}\n`);
    reports[name] = file;
    info(`${name} report: ${file}`);
  }
  return reports;
}

/** Which gate failed, in words. */
function gateFailure(result: IterationResult, minPassRate: number | undefined, failOn: string | undefined): string {
  const below =
    minPassRate !== undefined && result.benchmark.by_eval.some((e) => e.configuration === "with_skill" && e.pass_rate < minPassRate);
  const parts = [below ? `a case's with_skill pass rate is below --min-pass-rate ${minPassRate}` : ""];
  const c = result.comparison;
  if (c && failOn === "regression" && c.regression)
    parts.push(`a case's with_skill pass rate fell against iteration ${c.before} (--fail-on regression)`);
  if (c && failOn === "significant" && c.significant_drop)
    parts.push(`with_skill's pass rate fell significantly against iteration ${c.before} (--fail-on significant)`);
  return parts.filter(Boolean).join("; ");
}

export const evalCommand: CommandModule = {
  register(program, context, setExit) {
    const command = program
      .command("eval <skill>")
      .description("Run a skill's evals with and without the skill on real engines, graded per assertion, and its trigger evals")
      .option(
        "-e, --engine <name>",
        "engine to run on; repeatable (default: the config's run.engine, or the only engine configured)",
        collect,
        [],
      )
      .option("--runs <n>", "runs per case, configuration and engine", "1")
      .option("--baseline <dir>", "compare with an old snapshot of the skill (old_skill) instead of without_skill")
      .option(
        "--configs <list>",
        "the configurations, comma-separated: with_skill, without_skill, inline_skill (SKILL.md and its referenced files in the prompt, nothing installed), old_skill (with --baseline); default with_skill,without_skill (with_skill,old_skill with --baseline)",
      )
      .option("--judge <engine>", "engine that grades plain-string assertions (without it they fail as not graded)")
      .option("--judge-prompt <file>", "your own judge prompt template (see docs/evals.md)")
      .option("--out <dir>", "the eval folder (default: <runs_dir>/eval-<skill id>); each eval adds iteration-<n>")
      .option("--jobs <n>", "runs at once", "1")
      .option("--min-pass-rate <x>", "gate: exit 1 when a case's with_skill mean pass rate is below x (0..1)")
      .option(
        "--fail-on <when>",
        "gate on the comparison with the earlier iteration: regression (a case's with_skill pass rate fell), significant (only a fall whose 95% interval excludes 0), never",
      )
      .option("--against <n>", "compare with iteration n (default: the newest earlier iteration)")
      .option("--reporter <name>", "also write junit (JUnit XML, for CI) or markdown (a pull-request comment); repeatable", collect, [])
      .option("--report-file <file>", "where the one --reporter writes (default: junit.xml or summary.md in the iteration folder)")
      .option("--trigger-runs <n>", `runs per trigger query and engine (at least ${MIN_TRIGGER_RUNS})`, String(DEFAULT_TRIGGER_RUNS))
      .option("--no-triggers", "skip the trigger evals even when evals/triggers.json exists")
      .option(
        "--distractors <dir>",
        "trigger evals among neighbours: install every skill folder of dir beside the skill, run their queries too, print the confusion table",
      )
      .option("--timeout <ms>", "each job's time limit in milliseconds")
      .option(
        "--retries <n>",
        "run again, up to n times, a run lost to its infrastructure (model 429/5xx/unreachable, engine dead before its first event, jail not started); never one whose answer or assertions failed",
      );
    addBudgetOptions(command, "eval")
      .addHelpText(
        "after",
        "\n<skill> is an id in skills.roots or a path to a skill folder. Results: docs/evals.md.\nWith no gate (--min-pass-rate, --fail-on) an iteration is `finished`, never `passed`.\nExit codes: 0 the gates passed (or there were none), 1 one failed (a case's with_skill pass rate is below --min-pass-rate, or --fail-on; or the budget stopped the eval: cost_limit), 2 invalid input, config or usage.",
      )
      .action((skillArg: string, options: EvalOptions, command: Command) => evalAction(context(command), skillArg, options, setExit));
  },
};

/** The options that are numbers or words, parsed. */
type EvalNumbers = ReturnType<typeof parseNumbers>;

/** What an eval runs, loaded and checked before anything runs (bad input is exit 2 with nothing started). */
type LoadedEval = Pick<
  RunIterationOptions,
  "runner" | "skill" | "baseline" | "configurations" | "distractors" | "evals" | "triggers" | "engines" | "evalDir" | "against"
> & { template?: string };

/** `skillrig eval`: parse the options, load what runs, run the iteration, report it, and set the exit code. */
async function evalAction(ctx: CommandContext, skillArg: string, options: EvalOptions, setExit: (code: number) => void): Promise<void> {
  const loaded = await ctx.config();
  const numbers = parseNumbers(options);
  const budget = invocationBudget(options, loaded.config.cost);
  const plan = await loadEval(ctx, skillArg, options, loaded.config.run?.engine, numbers.againstNumber);
  const cancel = catchInterrupts({ stopping: "the eval's jobs", warn: (line) => ctx.out.warn(line) });
  ctx.out.info(planLine(plan, numbers));
  let result: IterationResult;
  try {
    result = await runIteration(iterationOptions(ctx, plan, options, numbers, budget, cancel.signal));
  } finally {
    cancel.release();
  }
  setExit(reportEval(ctx, result, options, numbers, cancel.signal.aborted));
}

/** The skill, its evals and triggers, the --baseline, --configs, --distractors, judge, engines and eval folder. */
async function loadEval(
  ctx: CommandContext,
  skillArg: string,
  options: EvalOptions,
  configuredEngine: string | undefined,
  againstNumber: number | undefined,
): Promise<LoadedEval> {
  const skill: SkillManifest = await skillFromArgument(ctx, skillArg);
  checkPlainSkill(skill, "skill");
  // The runner first: its plugins declare the assertion kinds evals.json is checked against.
  const runner = await ctx.runner();
  const evals = loadEvals(skill, runner);
  const triggers = options.triggers ? loadTriggers(skill) : undefined;
  const baseline = options.baseline !== undefined ? loadBaseline(options.baseline, ctx.cwd) : undefined;
  const configurations = options.configs !== undefined ? parseConfigurations(options.configs, baseline !== undefined) : undefined;
  let distractors: LoadedDistractors | undefined;
  if (options.distractors !== undefined) {
    if (!triggers)
      throw new SkillrigError(
        "usage",
        `--distractors ${options.distractors}: distractors are for trigger evals, and ${options.triggers ? `skill "${skill.id}" has no evals/triggers.json` : "--no-triggers skips them"}`,
        { field: "--distractors" },
      );
    distractors = loadDistractors(options.distractors, skill, ctx.cwd);
  }
  let template: string | undefined;
  if (options.judgePrompt !== undefined) {
    if (options.judge === undefined) throw new SkillrigError("usage", "--judge-prompt needs --judge <engine>", { field: "--judge-prompt" });
    // Checked here so a missing file is bad input (exit 2) before anything runs; grading reads it by its path.
    template = readableFlagFile("--judge-prompt", options.judgePrompt, ctx.cwd);
  }
  const engines = enginesToRun(runner, options.engine, configuredEngine);
  if (options.judge !== undefined) runner.requireClaim("engine", options.judge, { field: "--judge" });
  else if (evals.cases.some((c) => c.assertions.some((a) => typeof a === "string" || a.kind === "judge"))) {
    ctx.out.warn("plain-string assertions need a judge: without --judge <engine> they fail as not graded");
  }
  const evalDir = options.out !== undefined ? resolve(ctx.cwd, options.out) : resolve(runsFolderOf(runner), `eval-${skill.id}`);
  const against = earlierIteration(evalDir, againstNumber);
  return { runner, skill, baseline, configurations, distractors, evals, triggers, engines, evalDir, against, template };
}

/** --baseline: an old snapshot of the skill, a plain skill like the one evaluated. */
function loadBaseline(given: string, cwd: string): SkillManifest {
  const dir = resolve(cwd, given);
  if (!existsSync(dir)) throw new SkillrigError("usage", `--baseline ${given}: ${dir} does not exist`, { field: "--baseline" });
  const baseline = loadSkill(dir);
  checkPlainSkill(baseline, "the --baseline skill");
  return baseline;
}

/** The line before the runs: cases x configurations x engines x runs, and the trigger queries. */
function planLine(plan: LoadedEval, { runs, triggerRuns }: EvalNumbers): string {
  const { skill, evals, configurations, baseline, engines, triggers, distractors } = plan;
  return `eval of skill "${skill.id}": ${evals.cases.length} case(s) x ${(configurations ?? (baseline ? ["with_skill", "old_skill"] : ["with_skill", "without_skill"])).join(", ")} x ${engines.join(", ")} x ${runs} run(s)${triggers ? `; ${triggers.queries.length} trigger queries x ${triggerRuns} runs` : ""}${distractors ? `, among ${distractors.skills.length} neighbour(s) with ${distractors.skills.reduce((a, d) => a + d.queries.length, 0)} queries of theirs` : ""}`;
}

/** One trigger run's progress line. */
function triggerRunLine(run: TriggerRunInfo, engines: number, amongNeighbours: boolean): string {
  return `[trigger] ${engines > 1 ? `${run.engine} ` : ""}run ${run.run}: ${amongNeighbours ? `fired ${run.fired ?? "none"}` : run.triggered ? "triggered" : "not triggered"}: ${run.owner ? `(${run.owner}'s) ` : ""}${run.query.length > 60 ? `${run.query.slice(0, 57)}...` : run.query}${run.error ? ` (${run.error})` : ""}`;
}

/** The iteration's options: what was loaded, the parsed numbers, and progress lines as runs finish. */
function iterationOptions(
  ctx: CommandContext,
  plan: LoadedEval,
  options: EvalOptions,
  numbers: EvalNumbers,
  budget: InvocationBudget,
  signal: AbortSignal,
): RunIterationOptions {
  const { baseline, configurations, distractors, triggers, template, engines, against } = plan;
  const { runs, jobs, triggerRuns, minPassRate, timeout, failOn, retries } = numbers;
  return {
    runner: plan.runner,
    skill: plan.skill,
    ...(baseline ? { baseline } : {}),
    ...(configurations ? { configurations } : {}),
    ...(distractors ? { distractors } : {}),
    evals: plan.evals,
    ...(triggers ? { triggers, triggerRuns } : {}),
    engines,
    runs,
    jobs,
    ...(options.judge ? { judge: { engine: options.judge, ...(template !== undefined ? { template } : {}) } } : {}),
    evalDir: plan.evalDir,
    ...(minPassRate !== undefined ? { minPassRate } : {}),
    ...(against ? { against } : {}),
    ...(failOn ? { failOn } : {}),
    gradeRun,
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    signal,
    ...(budget.active ? { budget } : {}),
    ...(retries !== undefined ? { retries, onRetry: (where, failed) => ctx.out.info(retryLine(where, failed, retries)) } : {}),
    onRun: (run) => ctx.out.info(progressLine(run, engines.length)),
    onTriggerRun: (run) => ctx.out.info(triggerRunLine(run, engines.length, distractors !== undefined)),
  };
}

/** The reports, the result (JSON or the summary), the closing line; returns the exit code. */
function reportEval(ctx: CommandContext, result: IterationResult, options: EvalOptions, numbers: EvalNumbers, canceled: boolean): number {
  const reports = writeReports(result, options, ctx.cwd, (line) => ctx.out.info(line));
  const stopped =
    result.costLimit !== undefined ? costLimitError(result.costLimit, `eval iteration ${result.iteration}`, result.dir) : undefined;
  if (ctx.out.json)
    ctx.out.result({
      iteration: result.iteration,
      dir: result.dir,
      status: canceled || stopped ? "error" : result.gated ? (result.passed ? "passed" : "failed") : "finished",
      ...(stopped ? { error: stopped.toJSON() } : {}),
      passed: result.passed,
      benchmark: result.benchmark,
      triggers: result.triggers,
      comparison: result.comparison ?? null,
      reports,
    });
  else ctx.out.result(undefined, summaryText(result, ctx.cwd));
  if (stopped) {
    // The results so far are printed above; the error closes the output, and the exit is a failure, not bad input.
    for (const line of errorLines(stopped)) ctx.out.info(line);
    return ExitCode.Failure;
  }
  if (canceled) ctx.out.info(`canceled: iteration ${result.iteration} is incomplete (status error)`);
  else if (!result.gated) ctx.out.info("finished (no gate: --min-pass-rate or --fail-on would make it pass or fail)");
  else if (!result.passed) ctx.out.info(`failed: ${gateFailure(result, numbers.minPassRate, numbers.failOn)}`);
  else ctx.out.info("passed");
  return canceled ? 130 : result.passed ? ExitCode.Success : ExitCode.Failure;
}
