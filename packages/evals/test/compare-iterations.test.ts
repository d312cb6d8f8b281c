/**
 * Comparing two iterations (compareIterations: the closing lines of `skillrig eval`, comparison.json, the view), and
 * benchmark.json with skillrig's paired object still read by a reader of the specification's format (a Python
 * reader written as the specification's tooling reads the file).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareIterations } from "../src/compare-iterations.js";
import type { BenchmarkRun, Configuration } from "../src/format.js";
import { buildBenchmark } from "../src/stats.js";

const run = (eval_id: number, configuration: Configuration, pass_rate: number, engine = "gemini"): BenchmarkRun => ({
  eval_id,
  configuration,
  engine,
  run_number: 1,
  path: `eval-${eval_id}/${configuration}`,
  result: {
    status: "succeeded",
    pass_rate,
    passed: pass_rate > 0 ? 1 : 0,
    failed: pass_rate > 0 ? 0 : 1,
    total: 1,
    time_seconds: 3,
    tokens: 100,
  },
});

/** An iteration of `n` cases: with_skill passes all but the first `failing`, without_skill passes none. */
function iteration(iterationNumber: number, n: number, failing: number) {
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  return buildBenchmark({
    metadata: {
      skill_name: "s",
      skill_path: "/s",
      iteration: iterationNumber,
      timestamp: "2026-12-02T00:00:00.000Z",
      engines: ["gemini"],
      configurations: ["with_skill", "without_skill"],
      evals_run: ids,
      runs_per_configuration: 1,
    },
    runs: ids.flatMap((id) => [run(id, "with_skill", id <= failing ? 0 : 1), run(id, "without_skill", 0)]),
  });
}

function python(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok, fail) => {
    const child = spawn("python3", args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("error", fail);
    child.on("close", (code) => ok({ code, stdout, stderr }));
  });
}

describe("compareIterations", () => {
  it("with_skill 100% -> 50% over 2 cases: a regression naming the case, not significant on 2 pairs", () => {
    const c = compareIterations(iteration(1, 2, 0), iteration(2, 2, 1));
    expect(c).toMatchObject({ format: "skillrig-eval-comparison", before: 1, after: 2, regression: true, significant_drop: false });
    expect(c.configurations[0]).toEqual({
      configuration: "with_skill",
      engine: null,
      pass_rate: { before: 1, after: 0.5, delta: -0.5, ci95: [-1, 0], p_value: 1, pairs: 2 },
    });
    expect(c.cases.filter((x) => x.fell)).toEqual([{ eval_id: 1, configuration: "with_skill", before: 1, after: 0, fell: true }]);
  });

  it("10 of 40 cases broke: significant; 1 of 40: a regression, not significant; the same numbers twice: neither", () => {
    expect(compareIterations(iteration(1, 40, 0), iteration(2, 40, 10)).significant_drop).toBe(true);
    const one = compareIterations(iteration(1, 40, 0), iteration(2, 40, 1));
    expect(one).toMatchObject({ regression: true, significant_drop: false });
    const same = compareIterations(iteration(1, 40, 3), iteration(2, 40, 3));
    expect(same).toMatchObject({ regression: false, significant_drop: false });
    expect(same.configurations[0]!.pass_rate).toMatchObject({ delta: 0, ci95: [0, 0], p_value: 1, pairs: 40 });
  });
});

describe("benchmark.json and the specification's readers", () => {
  const reader = join(__dirname, "fixtures", "spec-reader", "read_benchmark.py");

  it("a benchmark.json with the paired object is read by the specification's reader", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-spec-reader-"));
    const b = iteration(1, 4, 1);
    expect(b.run_summary.delta!.paired!.pass_rate).toMatchObject({ before: 0, after: 0.75, pairs: 4 });
    writeFileSync(join(dir, "benchmark.json"), JSON.stringify(b));
    const r = await python([reader, join(dir, "benchmark.json")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("with_skill: pass rate 75% ± 50%");
    expect(r.stdout).toContain("without_skill: pass rate 0% ± 0%");
    expect(r.stdout).toContain("delta: pass rate 0.75, time 0, tokens 0");

    // Why the object is inside delta: beside it in run_summary, the same reader takes it for a configuration.
    const beside = { ...b, run_summary: { ...b.run_summary, delta_paired: b.run_summary.delta!.paired } };
    writeFileSync(join(dir, "beside.json"), JSON.stringify(beside));
    const broken = await python([reader, join(dir, "beside.json")]);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain("KeyError");
  });
});
