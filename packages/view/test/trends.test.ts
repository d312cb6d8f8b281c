/**
 * Trends (src/trends.ts) from records and reports shaped as their writers write them: runs are put in the order they
 * ran, a rate carries its n, a suite its pass@k with the tasks it is the mean of, a solve batch its engines and its
 * cost only when every attempt was priced, an eval its delta with the paired interval.
 */
import { describe, expect, it } from "vitest";
import { evalTrend, runTrend, type TrendRecord } from "../src/trends.js";

const record = (id: string, at: string, passed: number, total: number): TrendRecord => ({
  id,
  kind: "test",
  name: "parse",
  started_at: at,
  status: passed === total ? "passed" : "failed",
  passed,
  total,
  pass_rate: passed / total,
});

describe("runTrend", () => {
  it("orders runs by when they started, each point linking its run with its n", () => {
    const trend = runTrend([
      { record: record("b", "2026-12-02T10:00:02Z", 1, 3), report: { cases: [] } },
      { record: record("a", "2026-12-02T10:00:01Z", 3, 3), report: { cases: [] } },
    ]);
    expect(trend.runs.map((r) => [r.run, r.label, r.href])).toEqual([
      ["a", "#1", "#/run/a"],
      ["b", "#2", "#/run/b"],
    ]);
    expect(trend.series).toHaveLength(1);
    expect(trend.series[0]!.label).toBe("pass rate (cases)");
    expect(trend.series[0]!.points.map((p) => [p.value, p.n])).toEqual([
      [1, 3],
      [1 / 3, 3],
    ]);
  });

  it("a suite adds pass@k per k (n: its tasks); a solve batch its engines and a cost only when all were priced", () => {
    const suite = {
      kind: "skillrig-suite-report",
      tasks: [],
      pass_at_k: { "pass@3": { value: 0.5, tasks: 2 }, "pass@1": { value: 0.25, tasks: 4 } },
    };
    const s = runTrend([{ record: record("s", "2026-12-02T10:00:00Z", 1, 4), report: suite }]);
    expect(s.series.map((x) => [x.key, x.points[0]!.value, x.points[0]!.n])).toEqual([
      ["pass_rate", 0.25, 4],
      ["pass@1", 0.25, 4],
      ["pass@3", 0.5, 2],
    ]);
    const engine = (name: string, passed: number, cost: number, unpriced: number) => ({
      engine: name,
      attempts: 2,
      passed,
      usage: { costUsd: cost, unpricedAttempts: unpriced },
    });
    const solve = (unpriced: number) => ({
      kind: "skillrig-solve-report",
      engines: [engine("g", 2, 0.01, 0), engine("c", 1, 0.02, unpriced)],
    });
    const solveRecord = { ...record("v", "2026-12-02T10:00:00Z", 3, 4), kind: "solve" };
    const priced = runTrend([{ record: solveRecord, report: solve(0) }]);
    expect(priced.kind).toBe("solve");
    expect(priced.series.map((x) => [x.key, x.points[0]!.value])).toEqual([
      ["pass_rate", 0.75],
      ["engine:g", 1],
      ["engine:c", 0.5],
      ["cost", 0.03],
    ]);
    expect(runTrend([{ record: solveRecord, report: solve(1) }]).series.map((x) => x.key)).not.toContain("cost");
  });
});

describe("evalTrend", () => {
  it("per iteration: each configuration's rate with its runs, the delta with its interval, cost when priced", () => {
    const summary = (withSkill: number, ci: [number, number]) => ({
      run_summary: {
        with_skill: { pass_rate: { mean: withSkill, stddev: 0 }, runs: 4, cost_usd: { total: 0.04, mean: 0.01, unpriced_runs: 0 } },
        without_skill: { pass_rate: { mean: 0.25, stddev: 0 }, runs: 4, cost_usd: { total: 0, mean: 0, unpriced_runs: 4 } },
        delta: { of: ["with_skill", "without_skill"], pass_rate: withSkill - 0.25, paired: { pass_rate: { ci95: ci, pairs: 2 } } },
      },
    });
    const trend = evalTrend("eval-x", "x", [
      { n: 2, started_at: "2026-12-02T10:00:02Z", status: "failed", benchmark: summary(0.5, [-0.5, 1]) },
      { n: 1, started_at: "2026-12-02T10:00:01Z", status: "finished", benchmark: summary(1, [0.5, 1]) },
      { n: 3, started_at: null, status: "running", benchmark: null },
    ]);
    expect(trend.runs.map((r) => [r.label, r.href])).toEqual([
      ["1", "#/eval/eval-x/1"],
      ["2", "#/eval/eval-x/2"],
      ["3", "#/eval/eval-x/3"],
    ]);
    expect(trend.series.map((s) => [s.key, s.unit, s.points.map((p) => [p.value, p.n, p.ci95])])).toEqual([
      [
        "with_skill",
        "rate",
        [
          [1, 4, null],
          [0.5, 4, null],
        ],
      ],
      [
        "without_skill",
        "rate",
        [
          [0.25, 4, null],
          [0.25, 4, null],
        ],
      ],
      [
        "delta",
        "delta",
        [
          [0.75, 2, [0.5, 1]],
          [0.25, 2, [-0.5, 1]],
        ],
      ],
      [
        "cost:with_skill",
        "usd",
        [
          [0.01, 4, null],
          [0.01, 4, null],
        ],
      ],
    ]);
  });
});
