import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BenchmarkRun, Configuration } from "../src/format.js";
import { nextIteration, runPath } from "../src/layout.js";
import { allFailed, planRuns } from "../src/run-iteration.js";
import { assignSplits } from "../src/run-triggers.js";
import { buildBenchmark, meetsMinPassRate, stat } from "../src/stats.js";

function run(
  eval_id: number,
  configuration: Configuration,
  engine: string,
  pass_rate: number,
  time_seconds: number,
  tokens: number,
  cost_usd?: number | null,
): BenchmarkRun {
  return {
    eval_id,
    configuration,
    engine,
    run_number: 1,
    path: `eval-${eval_id}/${configuration}`,
    result: {
      status: "succeeded",
      pass_rate,
      passed: 0,
      failed: 0,
      total: 0,
      time_seconds,
      tokens,
      ...(cost_usd !== undefined ? { cost_usd } : {}),
    },
  };
}

const metadata = (engines: string[], configurations: Configuration[], evals: number[]) => ({
  skill_name: "s",
  skill_path: "/s",
  iteration: 1,
  timestamp: "2026-11-27T00:00:00.000Z",
  engines,
  configurations,
  evals_run: evals,
  runs_per_configuration: 1,
});

describe("benchmark maths", () => {
  it("stat: mean and the sample standard deviation (n-1); one value has none", () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, sample variance 32/7.
    expect(stat([2, 4, 4, 4, 5, 5, 7, 9])).toEqual({ mean: 5, stddev: Math.round(Math.sqrt(32 / 7) * 10_000) / 10_000, min: 2, max: 9 });
    expect(stat([0.5])).toEqual({ mean: 0.5, stddev: 0, min: 0.5, max: 0.5 });
    expect(stat([1, 0]).stddev).toBe(Math.round(Math.SQRT1_2 * 10_000) / 10_000);
  });

  it("run_summary across engines, by_engine, the delta (with_skill minus the other), by_eval", () => {
    const runs = [
      run(1, "with_skill", "gemini", 1, 10, 1000, 0.01),
      run(1, "with_skill", "codex", 0.5, 20, 3000, 0.03),
      run(1, "without_skill", "gemini", 0.5, 4, 500, 0.005),
      run(1, "without_skill", "codex", 0, 6, 700, 0.007),
      run(2, "with_skill", "gemini", 1, 30, 2000, 0.02),
      // An unpriced run: counted apart, never as $0.
      run(2, "with_skill", "codex", 1, 40, 2000, null),
      run(2, "without_skill", "gemini", 0, 2, 100, 0.001),
      run(2, "without_skill", "codex", 0.5, 8, 300, 0.003),
    ];
    const b = buildBenchmark({ metadata: metadata(["gemini", "codex"], ["with_skill", "without_skill"], [1, 2]), runs });
    expect(b.format).toBe("skillrig-eval-benchmark");
    expect(b.run_summary.with_skill).toMatchObject({
      pass_rate: { mean: 0.875, stddev: 0.25 },
      time_seconds: { mean: 25 },
      tokens: { mean: 2000 },
      runs: 4,
    });
    expect(b.run_summary.without_skill).toMatchObject({
      pass_rate: { mean: 0.25, stddev: 0.2887 },
      time_seconds: { mean: 5 },
      tokens: { mean: 400 },
    });
    // Cost per configuration: priced runs summed and averaged, the unpriced one counted apart.
    expect(b.run_summary.with_skill).toMatchObject({ cost_usd: { total: 0.06, mean: 0.02, unpriced_runs: 1 } });
    expect(b.run_summary.without_skill).toMatchObject({ cost_usd: { total: 0.016, mean: 0.004, unpriced_runs: 0 } });
    // The specification's three numbers, and beside them the pass-rate delta paired by case (case 1: 0.25 -> 0.75,
    // case 2: 0.25 -> 1): both rose, so the sign test's p is 2 * (1/2)^2 and the interval spans the two differences.
    expect(b.run_summary.delta).toEqual({
      of: ["with_skill", "without_skill"],
      pass_rate: 0.625,
      time_seconds: 20,
      tokens: 1600,
      cost_usd: { before: 0.004, after: 0.02, delta: 0.016 },
      paired: { pass_rate: { before: 0.25, after: 0.875, delta: 0.625, ci95: [0.5, 0.75], p_value: 0.5, pairs: 2 } },
    });
    expect(b.by_engine.gemini!.delta).toMatchObject({
      of: ["with_skill", "without_skill"],
      pass_rate: 0.75,
      time_seconds: 17,
      tokens: 1200,
      cost_usd: { before: 0.003, after: 0.015, delta: 0.012 },
    });
    expect(b.by_engine.gemini!.delta!.paired!.pass_rate).toEqual({
      before: 0.25,
      after: 1,
      delta: 0.75,
      ci95: [0.5, 1],
      p_value: 0.5,
      pairs: 2,
    });
    expect(b.by_engine.codex!.with_skill).toMatchObject({ cost_usd: { total: 0.03, mean: 0.03, unpriced_runs: 1 } });
    expect(b.by_engine.codex!.with_skill).toMatchObject({ pass_rate: { mean: 0.75, stddev: 0.3536 }, runs: 2 });
    expect(b.by_eval).toEqual([
      { eval_id: 1, configuration: "with_skill", pass_rate: 0.75 },
      { eval_id: 1, configuration: "without_skill", pass_rate: 0.25 },
      { eval_id: 2, configuration: "with_skill", pass_rate: 1 },
      { eval_id: 2, configuration: "without_skill", pass_rate: 0.25 },
    ]);
    expect(meetsMinPassRate(b, 0.75)).toBe(true);
    expect(meetsMinPassRate(b, 0.76)).toBe(false);
    expect(meetsMinPassRate(b, 0)).toBe(true);
  });

  it("old_skill: the delta is with_skill minus old_skill", () => {
    const b = buildBenchmark({
      metadata: metadata(["gemini"], ["with_skill", "old_skill"], [1]),
      runs: [run(1, "with_skill", "gemini", 0.5, 1, 10), run(1, "old_skill", "gemini", 1, 2, 30)],
    });
    expect(b.run_summary.delta).toMatchObject({
      of: ["with_skill", "old_skill"],
      pass_rate: -0.5,
      time_seconds: -1,
      tokens: -20,
      cost_usd: { before: 0, after: 0, delta: 0 },
    });
    expect(b.run_summary.delta!.paired!.pass_rate).toMatchObject({ before: 1, after: 0.5, delta: -0.5, pairs: 1, p_value: 1 });
  });

  it("a failed run's grading: every assertion failed, with why; pass rate 0 even with no assertions", () => {
    const g = allFailed(["a", { kind: "regex", pattern: "x" }], "the run failed (timeout: ...)");
    expect(g.assertion_results.map((r) => [r.passed, r.graded_by, r.evidence])).toEqual([
      [false, "judge", "the run failed (timeout: ...)"],
      [false, "regex", "the run failed (timeout: ...)"],
    ]);
    expect(g.summary).toEqual({ passed: 0, failed: 2, total: 2, pass_rate: 0 });
    expect(allFailed([], "failed").summary.pass_rate).toBe(0);
  });
});

describe("layout", () => {
  const cases = [1, 2].map((id) => ({ id, prompt: "p", assertions: [], files: [] }));

  it("one engine and one run: exactly the specification's eval-<id>/<configuration>", () => {
    expect(planRuns(cases, ["with_skill", "without_skill"], ["gemini"], 1).map((p) => p.path)).toEqual([
      "eval-1/with_skill",
      "eval-1/without_skill",
      "eval-2/with_skill",
      "eval-2/without_skill",
    ]);
  });

  it("more engines: an <engine>/ level; more runs: a run-<k>/ level", () => {
    expect(runPath({ engines: 2, runs: 1 }, 3, "with_skill", "codex", 1)).toBe("eval-3/with_skill/codex");
    expect(runPath({ engines: 1, runs: 3 }, 3, "old_skill", "codex", 2)).toBe("eval-3/old_skill/run-2");
    const plan = planRuns(cases.slice(0, 1), ["with_skill"], ["gemini", "codex"], 2);
    expect(plan.map((p) => p.path)).toEqual([
      "eval-1/with_skill/gemini/run-1",
      "eval-1/with_skill/gemini/run-2",
      "eval-1/with_skill/codex/run-1",
      "eval-1/with_skill/codex/run-2",
    ]);
  });

  it("the next iteration is 1 + the highest iteration-<n> folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "evals-layout-"));
    try {
      expect(nextIteration(join(dir, "missing"))).toBe(1);
      expect(nextIteration(dir)).toBe(1);
      for (const name of ["iteration-1", "iteration-7", "iteration-x", "notes"]) mkdirSync(join(dir, name));
      expect(nextIteration(dir)).toBe(8);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("trigger split", () => {
  const queries = [
    ...Array.from({ length: 5 }, (_, i) => ({ query: `should ${i}`, should_trigger: true })),
    ...Array.from({ length: 5 }, (_, i) => ({ query: `near miss ${i}`, should_trigger: false })),
  ];

  it("stratified: 60% of each label train, the same whatever the order, an own split kept", () => {
    const splits = assignSplits(queries);
    expect(splits.slice(0, 5).filter((s) => s === "train")).toHaveLength(3);
    expect(splits.slice(5).filter((s) => s === "train")).toHaveLength(3);
    const reversed = assignSplits([...queries].reverse());
    expect([...reversed].reverse()).toEqual(splits);
    const own = assignSplits([{ query: "mine", should_trigger: true, split: "validation" as const }, ...queries]);
    expect(own[0]).toBe("validation");
    expect(own.slice(1)).toEqual(splits);
  });
});
