/**
 * What `skillrig eval` says of runs lost to their infrastructure: the closing lines name how many runs the pass rate
 * leaves out and the n it is over, the case table's mean leaves them out too, and `--retries` is checked at the edge.
 */
import { describe, expect, it } from "vitest";
import { buildBenchmark, type BenchmarkRun, type IterationResult } from "@skillrig/evals";
import { summaryText } from "../src/commands/eval.js";
import { attemptsNote, infrastructureLines, parseRetries } from "../src/eval-infrastructure-text.js";

function run(evalId: string, configuration: "with_skill" | "without_skill", passRate: number, extra: Partial<BenchmarkRun["result"]> = {}) {
  return {
    eval_id: evalId,
    configuration,
    engine: "gemini",
    run_number: 1,
    path: `eval-${evalId}/${configuration}`,
    result: {
      status: "succeeded",
      pass_rate: passRate,
      passed: passRate,
      failed: 1 - passRate,
      total: 1,
      time_seconds: 1,
      tokens: 10,
      ...extra,
    },
  } as BenchmarkRun;
}

const runs = [
  run("a", "with_skill", 1, { attempts: 3 }),
  run("b", "with_skill", 0),
  run("c", "with_skill", 0, { status: "failed", attempts: 3, infrastructure_failure: "model_server_error" }),
  run("a", "without_skill", 0),
  run("b", "without_skill", 0),
  run("c", "without_skill", 0),
];
const benchmark = buildBenchmark({
  metadata: {
    skill_name: "s",
    skill_path: "/s",
    iteration: 1,
    timestamp: "2026-01-01T00:00:00Z",
    engines: ["gemini"],
    configurations: ["with_skill", "without_skill"],
    evals_run: ["a", "b", "c"],
    runs_per_configuration: 1,
  },
  runs,
});

describe("runs lost to their infrastructure, on screen", () => {
  it("the closing lines say how many runs the pass rate leaves out, with n", () => {
    expect(infrastructureLines(benchmark)).toEqual([
      "with_skill: 1 run lost to infrastructure failures (every attempt), left out of the pass rate: n = 2 of 3 runs",
    ]);
    const text = summaryText(
      { iteration: 1, dir: "/tmp/x/iteration-1", benchmark, gated: false, passed: true } as IterationResult,
      "/tmp/x",
    );
    expect(text).toContain("left out of the pass rate: n = 2 of 3 runs");
    // with_skill's mean is over the two graded runs: 50%, not 33%.
    expect(text).toMatch(/with_skill vs without_skill: pass rate 50% vs 0%/);
  });

  it("progress notes: attempts of a retried run, and a run lost on every attempt", () => {
    expect(attemptsNote(runs[0]!)).toBe(" [attempts: 3]");
    expect(attemptsNote(runs[1]!)).toBe("");
    expect(attemptsNote(runs[2]!)).toBe(" [lost to its infrastructure (model_server_error) after 3 attempts: left out of the pass rate]");
  });

  it("says nothing when no run was lost; --retries takes a whole number from 0 to 100", () => {
    const clean = buildBenchmark({ metadata: benchmark.metadata, runs: runs.filter((r) => r.eval_id !== "c") });
    expect(infrastructureLines(clean)).toEqual([]);
    expect(parseRetries(undefined)).toBeUndefined();
    expect(parseRetries("0")).toBe(0);
    expect(parseRetries("2")).toBe(2);
    for (const bad of ["-1", "1.5", "two", "101", ""]) expect(parseRetries(bad), bad).toBeNaN();
  });
});
