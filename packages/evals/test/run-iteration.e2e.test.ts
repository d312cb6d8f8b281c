/**
 * End to end: a small plain Agent Skill with evals and trigger queries (test/fixtures/eval-run), run by the real
 * Gemini CLI against the mock model, in the agent jail, graded by the real gradeRun. The mock agent writes the right
 * total when the skill is in its request and a wrong one without it, and without it also leaves a hostile
 * workspace (a link to /etc/passwd, a fifo, a grading.json claiming a pass). Checked on disk: the layout, every
 * run's files, benchmark.json's delta, triggers.json, and that nothing the agent left is graded as trusted.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { loadScenario } from "@skillrig/mock-model";
import sandboxPlugin from "@skillrig/sandbox";
import { loadSkill, skillProtocolPlugin } from "@skillrig/skills";
import type { Benchmark, Grading, IterationRecord, RunAnswer, Timing, TriggerReport } from "../src/format.js";
import { builtinAssertionKinds, gradeRun, RESULT_FILE_NAMES } from "../src/index.js";
import { loadEvals, loadTriggers } from "../src/load-evals.js";
import { runIteration, type IterationResult } from "../src/run-iteration.js";

const fixtures = resolve(fileURLToPath(new URL("./fixtures/eval-run", import.meta.url)));
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

let dir: string;
let evalDir: string;
let result: IterationResult;
const progress: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evals-e2e-"));
  cpSync(join(fixtures, "csv-total"), join(dir, "csv-total"), { recursive: true });
  // The pinned CLI's models are priced by config rows (the shipped table has no gemini-3 row), so every run has a cost.
  const prices = {
    "gemini-3.1-pro": { input: 2, output: 12 },
    "gemini-3.5-flash-lite": { input: 0.1, output: 0.4 },
    "gemini-2.5-pro": { input: 1.25, output: 10 },
  };
  const runner = new Runner({ cwd: dir, config: { cost: { prices } } })
    .use(
      new GeminiEnginePlugin({ approval_mode: "yolo", mock_scenario: loadScenario(join(fixtures, "scenario.json")), timeout_ms: 120_000 }),
    )
    .use(skillProtocolPlugin())
    .use(builtinAssertionKinds())
    .use(sandboxPlugin());
  const skill = loadSkill(join(dir, "csv-total"));
  evalDir = join(dir, "runs", "eval-csv-total");
  try {
    result = await runIteration({
      runner,
      skill,
      evals: loadEvals(skill, runner),
      triggers: loadTriggers(skill),
      triggerRuns: 3,
      engines: ["gemini"],
      jobs: 2,
      evalDir,
      gradeRun,
      onRun: (run) => progress.push(`${run.configuration} ${run.result.status}`),
    });
  } finally {
    await runner.close();
  }
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("skillrig eval on gemini against the mock model", () => {
  it("writes the specification's layout for one engine and one run, and iteration.json's end", () => {
    expect(result.iteration).toBe(1);
    expect(result.dir).toBe(join(evalDir, "iteration-1"));
    for (const configuration of ["with_skill", "without_skill"]) {
      const run = join(result.dir, "eval-1", configuration);
      for (const file of ["outputs", "answer.json", "timing.json", "grading.json"])
        expect(existsSync(join(run, file)), `${configuration}/${file}`).toBe(true);
    }
    const record = readJson<IterationRecord>(join(result.dir, "iteration.json"));
    expect(record).toMatchObject({
      status: "finished",
      iteration: 1,
      engines: ["gemini"],
      configurations: ["with_skill", "without_skill"],
    });
    expect(record.finished_at).toBeDefined();
    expect(progress.sort()).toEqual(["with_skill succeeded", "without_skill succeeded"]);
  });

  it("with the skill: activated, right total in outputs/, graded by the deterministic kinds; the plain string not graded without a judge", () => {
    const run = join(result.dir, "eval-1", "with_skill");
    const answer = readJson<RunAnswer>(join(run, "answer.json"));
    expect(answer).toMatchObject({ eval_id: 1, configuration: "with_skill", engine: "gemini", status: "succeeded" });
    expect(answer.skills_activated).toContain("csv-total");
    expect(String(answer.answer)).toContain("42.5");
    expect(readFileSync(join(run, "outputs", "total.txt"), "utf8")).toBe("42.5\n");
    // The case's file is in the workspace at its path below evals/files/; the skill's installed copy is not copied.
    expect(readFileSync(join(run, "outputs", "orders.csv"), "utf8")).toContain("A-2,12.5");
    // Nothing else: no empty folder left where the skill was installed, no context file skillrig wrote.
    expect(readdirSync(join(run, "outputs")).sort()).toEqual(["orders.csv", "total.txt"]);
    const grading = readJson<Grading>(join(run, "grading.json"));
    expect(grading.assertion_results.map((r) => [r.graded_by, r.passed])).toEqual([
      ["file_contains", true],
      ["regex", true],
      ["judge", false],
    ]);
    expect(grading.assertion_results[2]!.evidence).toMatch(/^no judge: pass --judge <engine>/);
    expect(grading.summary).toEqual({ passed: 2, failed: 1, total: 3, pass_rate: 0.6667 });
    const timing = readJson<Timing>(join(run, "timing.json"));
    expect(timing.total_tokens).toBeGreaterThan(0);
    expect(timing.duration_ms).toBeGreaterThan(0);
  });

  it("without the skill: no skill installed, the hostile workspace left out or kept inside outputs/, never graded as trusted", () => {
    const run = join(result.dir, "eval-1", "without_skill");
    const answer = readJson<RunAnswer>(join(run, "answer.json"));
    expect(answer.skills_activated).toEqual([]);
    expect(answer.outputs_skipped).toEqual(
      expect.arrayContaining([
        { path: "passwd", reason: "a symbolic link (links are never followed)" },
        { path: "pipe", reason: "a special file (fifo), not a regular file" },
      ]),
    );
    expect(existsSync(join(run, "outputs", "passwd"))).toBe(false);
    // The agent's grading.json is kept in outputs/ under a name no reader takes for a result; the run's is skillrig's.
    expect(existsSync(join(run, "outputs", "grading.json"))).toBe(false);
    expect(readFileSync(join(run, "outputs", "grading.json.from-agent"), "utf8")).toContain("FORGED-RESULT");
    expect(readFileSync(join(run, "outputs", "nested", "benchmark.json.from-agent"), "utf8")).toContain("FORGED-RESULT");
    const grading = readJson<Grading>(join(run, "grading.json"));
    expect(grading.assertion_results.map((r) => r.passed)).toEqual([false, false, false]);
    expect(grading.summary.pass_rate).toBe(0);
  });

  it("a reader that globs the iteration for grading.json, timing.json, benchmark.json finds only skillrig's (must fail without the renaming)", () => {
    const found = readdirSync(result.dir, { recursive: true, withFileTypes: true })
      .filter((e) => RESULT_FILE_NAMES.has(e.name))
      .map((e) => join(e.parentPath, e.name));
    expect(found.length).toBeGreaterThan(5);
    const forged = found.filter((file) => readFileSync(file, "utf8").includes("FORGED-RESULT"));
    expect(forged).toEqual([]);
    // The agent did write them: in its workspace (outputs/ and jobs/) and its HOME, under the stored name.
    const stored = readdirSync(result.dir, { recursive: true, withFileTypes: true }).filter((e) => e.name.endsWith(".from-agent"));
    expect(stored.map((e) => e.name)).toEqual(
      expect.arrayContaining(["grading.json.from-agent", "timing.json.from-agent", "benchmark.json.from-agent"]),
    );
    expect(stored.some((e) => e.parentPath.endsWith(join("engine", "gemini", "home")))).toBe(true);
  });

  it("benchmark.json: the runs with their paths, the summary per configuration and the delta", () => {
    const benchmark = readJson<Benchmark>(join(result.dir, "benchmark.json"));
    expect(benchmark.runs.map((r) => r.path)).toEqual(["eval-1/with_skill", "eval-1/without_skill"]);
    expect(benchmark.run_summary.delta).toMatchObject({ of: ["with_skill", "without_skill"], pass_rate: 0.6667 });
    expect(benchmark.by_engine.gemini!.delta).toMatchObject({ pass_rate: 0.6667 });
    // Cost per configuration, from each run's metered and priced job (timing.json), beside the specification's fields.
    for (const configuration of ["with_skill", "without_skill"] as const) {
      const timing = readJson<Timing>(join(result.dir, `eval-1/${configuration}`, "timing.json"));
      expect(timing.cost_usd).toBeGreaterThan(0);
      expect(benchmark.run_summary[configuration]).toMatchObject({
        cost_usd: { total: timing.cost_usd, mean: timing.cost_usd, unpriced_runs: 0 },
      });
    }
    const cost = benchmark.run_summary.delta!.cost_usd!;
    expect(cost.delta).toBeCloseTo(cost.after - cost.before, 6);
    expect(benchmark.by_eval).toEqual([
      { eval_id: 1, configuration: "with_skill", pass_rate: 0.6667 },
      { eval_id: 1, configuration: "without_skill", pass_rate: 0 },
    ]);
  });

  it("triggers.json: the should-trigger query activated the skill every run, the near miss never", () => {
    const report = readJson<TriggerReport>(join(result.dir, "triggers.json"));
    expect(report.runs_per_query).toBe(3);
    const byQuery = Object.fromEntries(report.queries.map((q) => [q.query, q]));
    expect(byQuery["please add up the amount column of my orders file"]).toMatchObject({
      triggers: 3,
      runs: 3,
      trigger_rate: 1,
      passed: true,
    });
    expect(byQuery["what is the capital of France?"]).toMatchObject({ triggers: 0, runs: 3, trigger_rate: 0, passed: true });
    expect(report.queries.every((q) => q.jobs.length === 3)).toBe(true);
    // Every job of the iteration, trigger runs included, has its run folder in jobs/.
    const jobs = readdirSync(join(result.dir, "jobs"));
    for (const q of report.queries) for (const job of q.jobs) expect(jobs).toContain(job);
  });

  it("the next eval is iteration 2: --baseline compares with old_skill, --runs 2 adds run-<k>/", async () => {
    // The old snapshot's description does not say what the new one says, so the mock agent with it plays the
    // agent without the skill: wrong total.
    const oldDir = join(dir, "old", "csv-total");
    cpSync(join(dir, "csv-total"), oldDir, { recursive: true });
    writeFileSync(
      join(oldDir, "SKILL.md"),
      readFileSync(join(oldDir, "SKILL.md"), "utf8").replace(/^description: .*$/m, "description: Totals of CSV files."),
    );
    const runner = new Runner({ cwd: dir })
      .use(
        new GeminiEnginePlugin({
          approval_mode: "yolo",
          mock_scenario: loadScenario(join(fixtures, "scenario.json")),
          timeout_ms: 120_000,
        }),
      )
      .use(skillProtocolPlugin())
      .use(builtinAssertionKinds())
      .use(sandboxPlugin());
    const skill = loadSkill(join(dir, "csv-total"));
    let second: IterationResult;
    try {
      second = await runIteration({
        runner,
        skill,
        baseline: loadSkill(oldDir),
        evals: loadEvals(skill, runner),
        engines: ["gemini"],
        runs: 2,
        jobs: 2,
        evalDir,
        minPassRate: 0.9,
        gradeRun,
      });
    } finally {
      await runner.close();
    }
    expect(second.iteration).toBe(2);
    expect(second.passed).toBe(false);
    expect(readJson<IterationRecord>(join(second.dir, "iteration.json"))).toMatchObject({
      status: "failed",
      configurations: ["with_skill", "old_skill"],
      baseline_path: oldDir,
      min_pass_rate: 0.9,
    });
    const benchmark = readJson<Benchmark>(join(second.dir, "benchmark.json"));
    expect(benchmark.runs.map((r) => r.path)).toEqual([
      "eval-1/with_skill/run-1",
      "eval-1/with_skill/run-2",
      "eval-1/old_skill/run-1",
      "eval-1/old_skill/run-2",
    ]);
    for (const r of benchmark.runs) expect(existsSync(join(second.dir, r.path, "grading.json")), r.path).toBe(true);
    expect(benchmark.run_summary.with_skill).toMatchObject({ pass_rate: { mean: 0.6667, stddev: 0 }, runs: 2 });
    expect(benchmark.run_summary.delta).toMatchObject({ of: ["with_skill", "old_skill"], pass_rate: 0.6667 });
    expect(readFileSync(join(second.dir, "eval-1", "old_skill", "run-1", "outputs", "total.txt"), "utf8")).toBe("40\n");
    expect(existsSync(join(second.dir, "triggers.json"))).toBe(false);
  }, 600_000);
});
