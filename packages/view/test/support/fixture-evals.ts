/**
 * Eval folders written as `skillrig eval` writes them (the layout and types of @skillrig/evals/format): two
 * iterations of the skill top-months on two engines (gemini, codex), with_skill and without_skill, one run each, so
 * every run folder is `eval-<id>/<configuration>/<engine>/`. Iteration 1 has a failed job; iteration 2 flips
 * assertions both ways, and one of its outputs/ is hostile (HTML with script, a link out of the runs folder).
 * A third folder, eval-broken, has a benchmark.json and a triggers.json that break their formats.
 *
 * The numbers the tests assert are worked out by hand in the comments below; benchmark.json is computed here from
 * the runs, as the writer computes it (mean, sample standard deviation).
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  AssertionResult,
  Benchmark,
  BenchmarkRun,
  Configuration,
  ConfigurationSummary,
  Grading,
  IterationRecord,
  RunAnswer,
  RunSummary,
  Stat,
  Timing,
  TriggerReport,
} from "@skillrig/evals/format";

export const SKILL = "top-months";
export const EVAL_ID = "eval-top-months";
export const BROKEN_ID = "eval-broken";
export const ENGINES = ["gemini", "codex"];

export const A = "The final answer names July 2025 as the best month";
export const B = "top_months.json is valid against the schema";
export const C = "top.py passes the hidden ranking tests";

/** The hostile file an agent left in iteration 2, case 1, with_skill, gemini. */
export const HOSTILE_HTML = `<h1>report</h1><script>window.__pwned = 1; document.title = "pwned";</script><img src="x" onerror="window.__pwned = 2">`;
export const HOSTILE_RUN = "eval-1/with_skill/gemini";

interface RunSpec {
  eval_id: number;
  configuration: Configuration;
  engine: string;
  status?: RunAnswer["status"];
  results: Array<[text: string, passed: boolean]>;
  time_seconds: number;
  tokens: number;
}

const graded = (text: string): AssertionResult["graded_by"] => (text === A ? "judge" : text === B ? "json_schema" : "oracle");

function run(
  eval_id: number,
  configuration: Configuration,
  engine: string,
  results: RunSpec["results"],
  time_seconds = configuration === "with_skill" ? 20 : 10,
  tokens = configuration === "with_skill" ? 4000 : 1000,
): RunSpec {
  return { eval_id, configuration, engine, results, time_seconds, tokens };
}

/*
 * Iteration 1, pass rates per run (case 1: A and B; case 2: C):
 *   case 1  with_skill     gemini 0.5 (A yes, B no)   codex 1
 *           without_skill  gemini 0                   codex 0.5 (A yes)
 *   case 2  with_skill     gemini 1                   codex 0 (the job failed: 5 s, 500 tokens)
 *           without_skill  gemini 0                   codex 0
 * with_skill 0.625, without_skill 0.125, delta +0.5; time with (20+20+20+5)/4 = 16.25 s, without 10 s, delta +6.25 s;
 * tokens with (4000*3+500)/4 = 3125, without 1000, delta +2125.
 * by engine: gemini with 0.75 without 0 delta +0.75; codex with 0.5 without 0.25 delta +0.25.
 * by case: 1 with 0.75, 1 without 0.25, 2 with 0.5, 2 without 0.
 */
const ITERATION_1: RunSpec[] = [
  run(1, "with_skill", "gemini", [
    [A, true],
    [B, false],
  ]),
  run(1, "with_skill", "codex", [
    [A, true],
    [B, true],
  ]),
  run(1, "without_skill", "gemini", [
    [A, false],
    [B, false],
  ]),
  run(1, "without_skill", "codex", [
    [A, true],
    [B, false],
  ]),
  run(2, "with_skill", "gemini", [[C, true]]),
  { ...run(2, "with_skill", "codex", [[C, false]], 5, 500), status: "failed" },
  run(2, "without_skill", "gemini", [[C, false]]),
  run(2, "without_skill", "codex", [[C, false]]),
];

/*
 * Iteration 2: B flips to passed on gemini (case 1 with), A flips to failed on codex (case 1 with), case 2 with codex
 * now succeeds, case 1 without codex loses A.
 *   case 1  with_skill     gemini 1        codex 0.5 (A no, B yes)
 *           without_skill  gemini 0        codex 0
 *   case 2  with_skill     gemini 1        codex 1
 *           without_skill  gemini 0        codex 0
 * with_skill 0.875, without_skill 0, delta +0.875 (from +0.5); time 20 s vs 10 s, delta +10 s; tokens delta +3000.
 * by case: 1 with 0.75 (same), 1 without 0 (worse, from 0.25), 2 with 1 (better, from 0.5), 2 without 0 (same).
 */
const ITERATION_2: RunSpec[] = [
  run(1, "with_skill", "gemini", [
    [A, true],
    [B, true],
  ]),
  run(1, "with_skill", "codex", [
    [A, false],
    [B, true],
  ]),
  run(1, "without_skill", "gemini", [
    [A, false],
    [B, false],
  ]),
  run(1, "without_skill", "codex", [
    [A, false],
    [B, false],
  ]),
  run(2, "with_skill", "gemini", [[C, true]]),
  run(2, "with_skill", "codex", [[C, true]]),
  run(2, "without_skill", "gemini", [[C, false]]),
  run(2, "without_skill", "codex", [[C, false]]),
];

type Q = [query: string, should_trigger: boolean, split: "train" | "validation", engine: string, triggers: number];
export const Q1 = "Which months sold best in sales_2025.csv?";
export const Q2 = "Rank the top 3 months by revenue";
export const Q3 = "What is the capital of France?";
export const Q4 = "Plot the monthly temperatures of 2025";

/*
 * Triggers, 3 runs per query, threshold 0.5:
 *   iteration 1: gemini Q1 3/3 pass, Q2 2/3 pass, Q3 0/3 pass, Q4 2/3 FAIL   -> train 2/2, validation 1/2
 *                codex  Q1 1/3 FAIL, Q2 2/3 pass, Q3 0/3 pass, Q4 0/3 pass   -> train 1/2, validation 2/2
 *   iteration 2: gemini Q2 1/3 (worse, fails), Q4 1/3 (better, passes); codex Q1 3/3 (better, passes)
 */
const TRIGGERS_1: Q[] = [
  [Q1, true, "train", "gemini", 3],
  [Q2, true, "validation", "gemini", 2],
  [Q3, false, "train", "gemini", 0],
  [Q4, false, "validation", "gemini", 2],
  [Q1, true, "train", "codex", 1],
  [Q2, true, "validation", "codex", 2],
  [Q3, false, "train", "codex", 0],
  [Q4, false, "validation", "codex", 0],
];
const TRIGGERS_2: Q[] = TRIGGERS_1.map(([q, s, split, engine, n]): Q => {
  if (q === Q2 && engine === "gemini") return [q, s, split, engine, 1];
  if (q === Q4 && engine === "gemini") return [q, s, split, engine, 1];
  if (q === Q1 && engine === "codex") return [q, s, split, engine, 3];
  return [q, s, split, engine, n];
});

const json = (path: string, value: unknown) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
};

function stat(values: number[]): Stat {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.length > 1 ? values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1) : 0;
  return { mean, stddev: Math.sqrt(variance), min: Math.min(...values), max: Math.max(...values) };
}

function summary(runs: BenchmarkRun[]): RunSummary {
  const out: RunSummary = {};
  for (const configuration of ["with_skill", "without_skill"] as const) {
    const mine = runs.filter((r) => r.configuration === configuration);
    const s: ConfigurationSummary = {
      pass_rate: stat(mine.map((r) => r.result.pass_rate)),
      time_seconds: stat(mine.map((r) => r.result.time_seconds)),
      tokens: stat(mine.map((r) => r.result.tokens)),
      runs: mine.length,
      cost_usd: {
        total: mine.reduce((t, r) => t + (r.result.cost_usd ?? 0), 0),
        mean: mine.reduce((t, r) => t + (r.result.cost_usd ?? 0), 0) / mine.length,
        unpriced_runs: 0,
      },
    };
    out[configuration] = s;
  }
  const w = out.with_skill as ConfigurationSummary;
  const wo = out.without_skill as ConfigurationSummary;
  out.delta = {
    of: ["with_skill", "without_skill"],
    pass_rate: w.pass_rate.mean - wo.pass_rate.mean,
    time_seconds: w.time_seconds.mean - wo.time_seconds.mean,
    tokens: w.tokens.mean - wo.tokens.mean,
    cost_usd: { before: wo.cost_usd!.mean, after: w.cost_usd!.mean, delta: w.cost_usd!.mean - wo.cost_usd!.mean },
  };
  return out;
}

function writeIteration(evalDir: string, n: number, specs: RunSpec[], triggers: Q[], startedAt: string, finishedAt: string): void {
  const dir = join(evalDir, `iteration-${n}`);
  const iteration: IterationRecord = {
    format: "skillrig-eval-iteration",
    version: 1,
    skill_name: SKILL,
    skill_path: "/project/skills/top-months",
    iteration: n,
    started_at: startedAt,
    finished_at: finishedAt,
    engines: ENGINES,
    configurations: ["with_skill", "without_skill"],
    runs_per_configuration: 1,
    judge: "gemini",
    status: "running",
    min_pass_rate: 0.7,
  };
  json(join(dir, "iteration.json"), iteration);
  const runs: BenchmarkRun[] = [];
  specs.forEach((spec, index) => {
    const path = `eval-${spec.eval_id}/${spec.configuration}/${spec.engine}`;
    const folder = join(dir, path);
    const status = spec.status ?? "succeeded";
    const passed = spec.results.filter(([, p]) => p).length;
    const total = spec.results.length;
    const jobId = `job-${n}-${index + 1}`;
    const grading: Grading = {
      assertion_results: spec.results.map(([text, ok]) => ({
        text,
        passed: ok,
        evidence:
          status === "failed"
            ? "the run failed: engine_failed"
            : ok
              ? `found it in the ${spec.engine} run`
              : `not in the ${spec.engine} run`,
        graded_by: graded(text),
      })),
      summary: { passed, failed: total - passed, total, pass_rate: passed / total },
    };
    const timing: Timing = {
      total_tokens: spec.tokens,
      duration_ms: spec.time_seconds * 1000,
      input_tokens: spec.tokens - 100,
      output_tokens: 100,
      cost_usd: spec.tokens / 1_000_000,
    };
    const answer: RunAnswer = {
      eval_id: spec.eval_id,
      configuration: spec.configuration,
      engine: spec.engine,
      run_number: 1,
      job_id: jobId,
      job_dir: join(dir, "jobs", jobId),
      status,
      ...(status === "failed"
        ? { error: { code: "engine_failed", message: "codex exited with code 1" } }
        : { answer: `The best month was July 2025 (${spec.engine}, ${spec.configuration}).` }),
      skills_activated: spec.configuration === "with_skill" ? [SKILL] : [],
    };
    json(join(folder, "grading.json"), grading);
    json(join(folder, "timing.json"), timing);
    json(join(folder, "answer.json"), answer);
    mkdirSync(join(folder, "outputs", "data"), { recursive: true });
    writeFileSync(join(folder, "outputs", "top_months.json"), JSON.stringify({ months: ["2025-07", "2025-12"] }));
    writeFileSync(join(folder, "outputs", "data", "notes.txt"), `notes of ${jobId}\n`);
    runs.push({
      eval_id: spec.eval_id,
      configuration: spec.configuration,
      engine: spec.engine,
      run_number: 1,
      path,
      result: {
        status,
        pass_rate: passed / total,
        passed,
        failed: total - passed,
        total,
        time_seconds: spec.time_seconds,
        tokens: spec.tokens,
        // A dollar per million tokens: the cost follows the tokens.
        cost_usd: spec.tokens / 1_000_000,
      },
    });
  });
  const byEval: Benchmark["by_eval"] = [];
  for (const id of [1, 2])
    for (const configuration of ["with_skill", "without_skill"] as const) {
      const mine = runs.filter((r) => r.eval_id === id && r.configuration === configuration);
      byEval.push({ eval_id: id, configuration, pass_rate: stat(mine.map((r) => r.result.pass_rate)).mean });
    }
  const benchmark: Benchmark = {
    format: "skillrig-eval-benchmark",
    version: 1,
    metadata: {
      skill_name: SKILL,
      skill_path: iteration.skill_path,
      iteration: n,
      timestamp: finishedAt,
      engines: ENGINES,
      configurations: ["with_skill", "without_skill"],
      evals_run: [1, 2],
      runs_per_configuration: 1,
      judge: "gemini",
    },
    run_summary: summary(runs),
    by_engine: Object.fromEntries(ENGINES.map((e) => [e, summary(runs.filter((r) => r.engine === e))])),
    runs,
    by_eval: byEval,
  };
  json(join(dir, "benchmark.json"), benchmark);
  // Passed when every case's with_skill pass rate meets min_pass_rate: iteration 1 fails (case 2: 0.5), 2 passes.
  const ok = byEval.every((e) => e.configuration !== "with_skill" || e.pass_rate >= 0.7);
  json(join(dir, "iteration.json"), { ...iteration, status: ok ? "passed" : "failed" });
  const queries: TriggerReport["queries"] = triggers.map(([query, should_trigger, split, engine, hits]) => ({
    query,
    should_trigger,
    split,
    engine,
    triggers: hits,
    runs: 3,
    trigger_rate: hits / 3,
    passed: should_trigger ? hits / 3 > 0.5 : hits / 3 <= 0.5,
    jobs: [`t-${engine}-1`, `t-${engine}-2`, `t-${engine}-3`],
  }));
  const split = (engine: string, s: "train" | "validation") => {
    const mine = queries.filter((q) => q.engine === engine && q.split === s);
    return { passed: mine.filter((q) => q.passed).length, total: mine.length };
  };
  const report: TriggerReport = {
    format: "skillrig-trigger-report",
    version: 1,
    skill_name: SKILL,
    runs_per_query: 3,
    threshold: 0.5,
    queries,
    summary: Object.fromEntries(ENGINES.map((e) => [e, { train: split(e, "train"), validation: split(e, "validation") }])),
  };
  json(join(dir, "triggers.json"), report);
}

/** Writes the eval folders into `runsDir`; `outside` is a file outside it that a link in outputs/ points at. */
export function writeFixtureEvals(runsDir: string, outside: string): void {
  const evalDir = join(runsDir, EVAL_ID);
  writeIteration(evalDir, 1, ITERATION_1, TRIGGERS_1, "2026-11-24T10:00:00.000Z", "2026-11-24T10:04:10.000Z");
  writeIteration(evalDir, 2, ITERATION_2, TRIGGERS_2, "2026-11-25T10:00:00.000Z", "2026-11-25T10:03:00.000Z");
  const hostile = join(evalDir, "iteration-2", HOSTILE_RUN, "outputs");
  writeFileSync(join(hostile, "report.html"), HOSTILE_HTML);
  symlinkSync(outside, join(hostile, "leak.txt"));

  // eval-broken: a valid iteration.json, a benchmark.json whose first run's pass rate is text, a triggers.json
  // whose queries are not a list.
  const broken = join(runsDir, BROKEN_ID);
  writeIteration(broken, 1, ITERATION_1, TRIGGERS_1, "2026-11-20T10:00:00.000Z", "2026-11-20T10:01:00.000Z");
  const benchmarkPath = join(broken, "iteration-1", "benchmark.json");
  const bad = JSON.parse(JSON.stringify(readJson(benchmarkPath)));
  bad.runs[0].result.pass_rate = "high";
  json(benchmarkPath, bad);
  json(join(broken, "iteration-1", "triggers.json"), {
    format: "skillrig-trigger-report",
    version: 1,
    skill_name: SKILL,
    runs_per_query: 3,
    threshold: 0.5,
    queries: "all of them",
    summary: {},
  });
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}
