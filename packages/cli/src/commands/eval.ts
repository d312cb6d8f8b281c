/**
 * `skillrig eval <skill> [--engine E ...] [--runs N] [--baseline DIR] [--judge ENGINE] [--judge-prompt FILE]
 *   [--out DIR] [--jobs N] [--min-pass-rate X] [--trigger-runs N] [--no-triggers] [--timeout MS]`
 * Runs a skill's evals (evals/evals.json) with and without the skill (or against --baseline), graded per
 * assertion, and its trigger evals (evals/triggers.json), in the Agent Skills specification's layout
 * (@skillrig/evals, docs/evals.md). Exit codes: 0 every case's with_skill mean pass rate is at least
 * --min-pass-rate, 1 one is below, 2 invalid input, config or usage.
 */
import { existsSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { SkillrigError, type Runner, type SkillManifest } from "@skillrig/core";
import {
  DEFAULT_TRIGGER_RUNS,
  checkPlainSkill,
  gradeRun,
  MIN_TRIGGER_RUNS,
  loadEvals,
  loadTriggers,
  runIteration,
  type BenchmarkRun,
  type ConfigurationSummary,
  type IterationResult,
  type RunDelta,
  type RunSummary,
} from "@skillrig/evals";
import { loadSkill } from "@skillrig/skills";
import type { CommandModule } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { runsDirOf } from "../run-record.js";
import { skillFromArgument } from "./skills.js";

interface EvalOptions {
  engine: string[];
  runs: string;
  baseline?: string;
  judge?: string;
  judgePrompt?: string;
  out?: string;
  jobs: string;
  minPassRate: string;
  triggerRuns: string;
  triggers: boolean;
  timeout?: string;
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
  return `[eval] ${where}: ${state} (${r.time_seconds}s, ${r.tokens} tokens)`;
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
        const mine = benchmark.runs.filter((r) => String(r.eval_id) === String(evalId) && r.configuration === c && r.engine === e);
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
    lines.push(
      `${label}${d.of[0]} vs ${d.of[1]}: pass rate ${percent(a.pass_rate.mean)} vs ${percent(b.pass_rate.mean)} (${signed(d.pass_rate * 100, " pts")}), time ${signed(d.time_seconds, "s")}, tokens ${signed(d.tokens)}`,
    );
  };
  deltaLine("delta ", benchmark.run_summary);
  if (engines.length > 1) for (const e of engines) deltaLine(`  ${e}: `, benchmark.by_engine[e]!);
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
        `${q.triggers}/${q.runs}`,
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
  }
  const shown = relative(cwd, result.dir);
  lines.push(
    "",
    `iteration ${result.iteration}: ${shown.startsWith("..") ? result.dir : shown} (benchmark.json${triggers ? ", triggers.json" : ""})`,
  );
  return lines.join("\n");
}

export const evalCommand: CommandModule = {
  register(program, context, setExit) {
    program
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
      .option("--judge <engine>", "engine that grades plain-string assertions (without it they fail as not graded)")
      .option("--judge-prompt <file>", "your own judge prompt template (see docs/evals.md)")
      .option("--out <dir>", "the eval folder (default: <runs_dir>/eval-<skill id>); each eval adds iteration-<n>")
      .option("--jobs <n>", "runs at once", "1")
      .option("--min-pass-rate <x>", "exit 1 when a case's with_skill mean pass rate is below x (0..1)", "0")
      .option("--trigger-runs <n>", `runs per trigger query and engine (at least ${MIN_TRIGGER_RUNS})`, String(DEFAULT_TRIGGER_RUNS))
      .option("--no-triggers", "skip the trigger evals even when evals/triggers.json exists")
      .option("--timeout <ms>", "each job's time limit in milliseconds")
      .addHelpText(
        "after",
        "\n<skill> is an id in skills.roots or a path to a skill folder. Results: docs/evals.md.\nExit codes: 0 every case's with_skill pass rate >= --min-pass-rate, 1 one is below, 2 invalid input, config or usage.",
      )
      .action(async (skillArg: string, options: EvalOptions, command: Command) => {
        const ctx = context(command);
        const loaded = await ctx.config();
        const runs = positiveInteger(options.runs, "--runs");
        const jobs = positiveInteger(options.jobs, "--jobs");
        const triggerRuns = positiveInteger(options.triggerRuns, "--trigger-runs", MIN_TRIGGER_RUNS);
        const minPassRate = Number(options.minPassRate);
        if (!Number.isFinite(minPassRate) || minPassRate < 0 || minPassRate > 1) {
          throw new SkillrigError("usage", `--min-pass-rate ${options.minPassRate}: expected a number from 0 to 1`, {
            field: "--min-pass-rate",
          });
        }
        const timeout = options.timeout !== undefined ? positiveInteger(options.timeout, "--timeout") : undefined;
        const skill: SkillManifest = await skillFromArgument(ctx, skillArg);
        checkPlainSkill(skill, "skill");
        const evals = loadEvals(skill);
        const triggers = options.triggers ? loadTriggers(skill) : undefined;
        let baseline: SkillManifest | undefined;
        if (options.baseline !== undefined) {
          const dir = resolve(ctx.cwd, options.baseline);
          if (!existsSync(dir))
            throw new SkillrigError("usage", `--baseline ${options.baseline}: ${dir} does not exist`, { field: "--baseline" });
          baseline = loadSkill(dir);
          checkPlainSkill(baseline, "the --baseline skill");
        }
        let template: string | undefined;
        if (options.judgePrompt !== undefined) {
          if (options.judge === undefined)
            throw new SkillrigError("usage", "--judge-prompt needs --judge <engine>", { field: "--judge-prompt" });
          const file = resolve(ctx.cwd, options.judgePrompt);
          try {
            // Read here so a missing file is bad input (exit 2) before anything runs; grading reads it by its path.
            readFileSync(file, "utf8");
            template = file;
          } catch (error) {
            throw new SkillrigError("usage", `--judge-prompt ${options.judgePrompt}: ${(error as Error).message}`, {
              field: "--judge-prompt",
              file,
            });
          }
        }
        const runner = await ctx.runner();
        const engines = enginesToRun(runner, options.engine, loaded.config.run?.engine);
        if (options.judge !== undefined) runner.requireClaim("engine", options.judge, { field: "--judge" });
        else if (evals.cases.some((c) => c.assertions.some((a) => typeof a === "string"))) {
          ctx.out.warn("plain-string assertions need a judge: without --judge <engine> they fail as not graded");
        }
        const evalDir = options.out !== undefined ? resolve(ctx.cwd, options.out) : resolve(runsDirOf(runner), `eval-${skill.id}`);

        const cancel = new AbortController();
        const onSignal = (signal: NodeJS.Signals) => {
          if (cancel.signal.aborted) process.exit(128 + (signal === "SIGINT" ? 2 : 15));
          ctx.out.warn(`${signal}: canceling the eval's jobs (again to quit at once)`);
          cancel.abort(new Error(`canceled by ${signal}`));
        };
        process.on("SIGINT", onSignal);
        process.on("SIGTERM", onSignal);
        ctx.out.info(
          `eval of skill "${skill.id}": ${evals.cases.length} case(s) x ${baseline ? "with_skill, old_skill" : "with_skill, without_skill"} x ${engines.join(", ")} x ${runs} run(s)${triggers ? `; ${triggers.queries.length} trigger queries x ${triggerRuns} runs` : ""}`,
        );
        let result: IterationResult;
        try {
          result = await runIteration({
            runner,
            skill,
            ...(baseline ? { baseline } : {}),
            evals,
            ...(triggers ? { triggers, triggerRuns } : {}),
            engines,
            runs,
            jobs,
            ...(options.judge ? { judge: { engine: options.judge, ...(template !== undefined ? { template } : {}) } } : {}),
            evalDir,
            minPassRate,
            gradeRun,
            ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
            signal: cancel.signal,
            onRun: (run) => ctx.out.info(progressLine(run, engines.length)),
            onTriggerRun: (run) =>
              ctx.out.info(
                `[trigger] ${engines.length > 1 ? `${run.engine} ` : ""}run ${run.run}: ${run.triggered ? "triggered" : "not triggered"}: ${run.query.length > 60 ? `${run.query.slice(0, 57)}...` : run.query}${run.error ? ` (${run.error})` : ""}`,
              ),
          });
        } finally {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
        }
        if (ctx.out.json)
          ctx.out.result({
            iteration: result.iteration,
            dir: result.dir,
            passed: result.passed,
            benchmark: result.benchmark,
            triggers: result.triggers,
          });
        else ctx.out.result(undefined, summaryText(result, ctx.cwd));
        if (cancel.signal.aborted) ctx.out.info(`canceled: iteration ${result.iteration} is incomplete (status error)`);
        else if (!result.passed) ctx.out.info(`a case's with_skill pass rate is below --min-pass-rate ${minPassRate}`);
        setExit(cancel.signal.aborted ? 130 : result.passed ? ExitCode.Success : ExitCode.Failure);
      });
  },
};
