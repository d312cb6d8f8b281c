/** The comparison of two eval iterations (web/src/eval-compare.ts) on the edges the browser test's fixture does not reach. */
import type { Benchmark, TriggerReport } from "@skillrig/evals/format";
import { describe, expect, it } from "vitest";
import { changeOf, compareCases, compareDeltas, compareTriggers, flippedAssertions, type RunAssertions } from "../web/src/eval-compare.js";

const run = (eval_id: number | string, engine: string, assertions: RunAssertions["assertions"], run_number = 1): RunAssertions => ({
  eval_id,
  configuration: "with_skill",
  engine,
  run_number,
  path: `eval-${eval_id}/with_skill/${engine}`,
  assertions,
  problem: assertions ? null : "grading.json is missing",
});

function bench(byEval: Benchmark["by_eval"], deltaRate?: number, engines: Record<string, number> = {}): Benchmark {
  const delta = (pass_rate: number) => ({ of: ["with_skill", "without_skill"] as [string, string], pass_rate, time_seconds: 0, tokens: 0 });
  return {
    format: "skillrig-eval-benchmark",
    version: 1,
    metadata: {
      skill_name: "s",
      skill_path: "/s",
      iteration: 1,
      timestamp: "2026-11-27T00:00:00Z",
      engines: Object.keys(engines),
      configurations: ["with_skill", "without_skill"],
      evals_run: [],
      runs_per_configuration: 1,
    },
    run_summary: deltaRate === undefined ? {} : { delta: delta(deltaRate) },
    by_engine: Object.fromEntries(Object.entries(engines).map(([e, r]) => [e, { delta: delta(r) }])),
    runs: [],
    by_eval: byEval,
  };
}

describe("comparing two eval iterations", () => {
  it("marks a change by direction, within rounding noise as the same", () => {
    expect(changeOf(0.5, 0.75)).toBe("better");
    expect(changeOf(0.75, 0.5)).toBe("worse");
    expect(changeOf(0.1 + 0.2, 0.3)).toBe("same");
    expect(changeOf(0.5, 0.25, false)).toBe("better");
    expect(changeOf(undefined, 0.5)).toBe("new");
    expect(changeOf(0.5, undefined)).toBe("gone");
  });

  it("keeps cases only one iteration ran, as new or gone", () => {
    const rows = compareCases(
      bench([
        { eval_id: 1, configuration: "with_skill", pass_rate: 1 },
        { eval_id: "old", configuration: "with_skill", pass_rate: 0.5 },
      ]),
      bench([
        { eval_id: 1, configuration: "with_skill", pass_rate: 0.5 },
        { eval_id: "fresh", configuration: "with_skill", pass_rate: 1 },
      ]),
    );
    expect(rows).toEqual([
      { eval_id: 1, configuration: "with_skill", before: 1, after: 0.5, change: "worse" },
      { eval_id: "fresh", configuration: "with_skill", after: 1, change: "new" },
      { eval_id: "old", configuration: "with_skill", before: 0.5, change: "gone" },
    ]);
  });

  it("matches repeated assertion texts in order, per run, and skips runs whose grading is missing on either side", () => {
    const flips = flippedAssertions(
      [
        run(1, "gemini", [
          { text: "mentions July", passed: true },
          { text: "mentions July", passed: false },
        ]),
        run(1, "codex", [{ text: "x", passed: true }]),
        run(1, "gemini", [{ text: "y", passed: true }], 2),
      ],
      [
        run(1, "gemini", [
          { text: "mentions July", passed: false },
          { text: "mentions July", passed: true },
          { text: "new assertion", passed: false },
        ]),
        run(1, "codex", null),
        run(1, "gemini", [{ text: "y", passed: false }], 2),
        run(2, "gemini", [{ text: "z", passed: false }]),
      ],
    );
    expect(flips.map((f) => [f.engine, f.run_number, f.text, f.change])).toEqual([
      ["gemini", 1, "mentions July", "worse"],
      ["gemini", 1, "mentions July", "better"],
      ["gemini", 2, "y", "worse"],
    ]);
  });

  it("compares the delta across engines and per engine, an engine only one side ran included", () => {
    const rows = compareDeltas(bench([], 0.5, { gemini: 0.5, codex: 0.25 }), bench([], 0.25, { gemini: 0.75, claude: 0.5 }));
    expect(rows.map((r) => [r.scope, r.before?.pass_rate, r.after?.pass_rate, r.change])).toEqual([
      ["all engines", 0.5, 0.25, "worse"],
      ["gemini", 0.5, 0.75, "better"],
      ["claude", undefined, 0.5, "new"],
      ["codex", 0.25, undefined, "gone"],
    ]);
  });

  it("judges a trigger rate by its label, and compares against an iteration without trigger evals", () => {
    const report = (rates: Array<[string, boolean, number]>): TriggerReport => ({
      format: "skillrig-trigger-report",
      version: 1,
      skill_name: "s",
      runs_per_query: 3,
      threshold: 0.5,
      queries: rates.map(([query, should_trigger, rate]) => ({
        query,
        should_trigger,
        split: "train",
        engine: "gemini",
        triggers: rate * 3,
        runs: 3,
        trigger_rate: rate,
        passed: should_trigger ? rate > 0.5 : rate <= 0.5,
        jobs: [],
      })),
      summary: {},
    });
    const rows = compareTriggers(
      report([
        ["use it", true, 1 / 3],
        ["leave it", false, 1 / 3],
      ]),
      report([
        ["use it", true, 2 / 3],
        ["leave it", false, 2 / 3],
      ]),
    );
    expect(rows.map((r) => [r.query, r.change, r.passedBefore, r.passedAfter])).toEqual([
      ["use it", "better", false, true],
      ["leave it", "worse", true, false],
    ]);
    // An iteration with no trigger report did not run its triggers (--no-triggers): its queries are not "gone".
    expect(compareTriggers(null, report([["use it", true, 1]])).map((r) => r.change)).toEqual(["not_run"]);
    expect(compareTriggers(report([["use it", true, 1]]), null).map((r) => [r.change, r.before, r.after])).toEqual([
      ["not_run", 1, undefined],
    ]);
    // A query only one iteration asks, both having run triggers, is new or gone.
    expect(compareTriggers(report([["use it", true, 1]]), report([["leave it", false, 0]])).map((r) => [r.query, r.change])).toEqual([
      ["leave it", "new"],
      ["use it", "gone"],
    ]);
  });
});
