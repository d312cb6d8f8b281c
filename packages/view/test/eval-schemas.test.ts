/**
 * The view's schemas of `skillrig eval`'s files against @skillrig/evals/format's types: a value with every field
 * the type has (optional ones included), typed by the type itself, passes; values that break it fail at their pointer.
 */
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBenchmark, confusionTables } from "@skillrig/evals";
import {
  ANSWER_SCHEMA,
  BENCHMARK_SCHEMA,
  type BenchmarkRun,
  GRADING_SCHEMA,
  type Grading,
  ITERATION_SCHEMA,
  type IterationRecord,
  type RunAnswer,
  TIMING_SCHEMA,
  TRIGGERS_SCHEMA,
  type Timing,
  type TriggerReport,
} from "@skillrig/evals/format";
import { describe, expect, it } from "vitest";
import { readChecked } from "../src/eval-folder.js";

const dir = mkdtempSync(join(tmpdir(), "skillrig-eval-schemas-"));
async function check(value: unknown, schema: Parameters<typeof readChecked>[2]) {
  const file = join(dir, "file.json");
  writeFileSync(file, JSON.stringify(value));
  return (await readChecked(file, "file.json", schema, true)).problem;
}

const iteration: Required<IterationRecord> = {
  format: "skillrig-eval-iteration",
  version: 1,
  skill_name: "top-months",
  skill_path: "/skills/top-months",
  iteration: 3,
  started_at: "2026-11-27T00:00:00Z",
  finished_at: "2026-11-27T00:01:00Z",
  engines: ["gemini"],
  configurations: ["with_skill", "old_skill"],
  runs_per_configuration: 2,
  judge: "claude",
  baseline_path: "/skills/top-months-v1",
  status: "error",
  min_pass_rate: 0.8,
  inline_skill: {
    files: [{ path: "SKILL.md", bytes: 900 }],
    bytes: 900,
    max_bytes: 262144,
    left_out: [{ path: "../x.md", reason: "outside the skill folder" }],
  },
  distractors_path: "/skills/neighbours",
};
const answer: Required<RunAnswer> = {
  eval_id: "ranking",
  configuration: "old_skill",
  engine: "gemini",
  run_number: 2,
  job_id: "j",
  job_dir: "/runs/j",
  status: "canceled",
  answer: { months: ["2025-07"] },
  error: { code: "canceled", message: "stopped" },
  skills_activated: [],
  outputs_skipped: [{ path: "leak", reason: "a link" }],
};
const grading: Required<Grading> = {
  assertion_results: [{ text: "t", passed: false, evidence: "e", graded_by: "script" }],
  summary: { passed: 0, failed: 1, total: 1, pass_rate: 0 },
  errors: ["the judge failed"],
};
const timing: Required<Timing> = { total_tokens: 10, duration_ms: 5, input_tokens: 8, output_tokens: 2, engine_ms: 4 };

describe("the view's schemas of eval files", () => {
  it("accept every field the types have", async () => {
    expect(await check(iteration, ITERATION_SCHEMA)).toBeNull();
    expect(await check(answer, ANSWER_SCHEMA)).toBeNull();
    expect(await check(grading, GRADING_SCHEMA)).toBeNull();
    expect(await check(timing, TIMING_SCHEMA)).toBeNull();
  });

  it("accept a benchmark.json with inline_skill and each pair's delta, and a triggers.json with the confusion table", async () => {
    const run = (configuration: BenchmarkRun["configuration"], pass_rate: number, eval_id: number): BenchmarkRun => ({
      eval_id,
      configuration,
      engine: "gemini",
      run_number: 1,
      path: `eval-${eval_id}/${configuration}`,
      result: {
        status: "succeeded",
        pass_rate,
        passed: pass_rate,
        failed: 1 - pass_rate,
        total: 1,
        time_seconds: 1,
        tokens: 10,
        cost_usd: null,
      },
    });
    const configurations: BenchmarkRun["configuration"][] = ["with_skill", "without_skill", "inline_skill"];
    const benchmark = buildBenchmark({
      metadata: {
        skill_name: "s",
        skill_path: "/s",
        iteration: 1,
        timestamp: "2026-12-02T00:00:00Z",
        engines: ["gemini"],
        configurations,
        evals_run: [1, 2],
        runs_per_configuration: 1,
      },
      runs: [1, 2].flatMap((id) => [run("with_skill", 1, id), run("without_skill", 0, id), run("inline_skill", 1, id)]),
    });
    expect(benchmark.deltas?.filter((d) => d.engine === null).map((d) => d.of.join(" - "))).toEqual([
      "with_skill - inline_skill",
      "with_skill - without_skill",
      "inline_skill - without_skill",
    ]);
    expect(await check(benchmark, BENCHMARK_SCHEMA)).toBeNull();
    expect(await check({ ...benchmark, deltas: [{ ...benchmark.deltas![0], engine: 3 }] }, BENCHMARK_SCHEMA)).toBe(
      "file.json is not valid: /deltas/0/engine must be string,null",
    );
    const confusion = confusionTables({
      skillName: "s",
      neighbours: ["n"],
      engines: ["gemini"],
      own: [{ engine: "gemini", fired: ["s", "n", null] }],
      neighbourQueries: [{ owner: "n", engine: "gemini", fired: ["n", "s", "n"] }],
    });
    const triggers: TriggerReport = {
      format: "skillrig-trigger-report",
      version: 1,
      skill_name: "s",
      runs_per_query: 3,
      threshold: 0.5,
      queries: [
        {
          query: "q",
          should_trigger: true,
          split: "train",
          engine: "gemini",
          triggers: 1,
          runs: 3,
          trigger_rate: 0.3333,
          trigger_rate_ci95: [0.06, 0.79],
          passed: false,
          jobs: ["a", "b", "c"],
          fired: ["s", "n", null],
        },
      ],
      summary: { gemini: { train: { passed: 0, total: 1 }, validation: { passed: 0, total: 0 } } },
      distractors: {
        skills: [{ name: "n", path: "/n", queries: 1 }],
        queries: [{ query: "nq", owner: "n", engine: "gemini", runs: 3, jobs: ["d", "e", "f"], fired: ["n", "s", "n"] }],
        confusion,
      },
    };
    expect(await check(triggers, TRIGGERS_SCHEMA)).toBeNull();
    const broken = structuredClone(triggers);
    broken.distractors!.confusion[0]!.rows[1]!.n = -1;
    expect(await check(broken, TRIGGERS_SCHEMA)).toBe("file.json is not valid: /distractors/confusion/0/rows/1/n must be >= 0");
  });

  it("refuse values that break the types, naming the pointer", async () => {
    expect(await check({ ...iteration, status: "done" }, ITERATION_SCHEMA)).toBe(
      'file.json is not valid: /status must be one of "running", "finished", "passed", "failed", "error"',
    );
    expect(await check({ ...iteration, version: 2 }, ITERATION_SCHEMA)).toBe("file.json is not valid: /version must be equal to constant");
    const { job_id: _, ...noJob } = answer;
    expect(await check(noJob, ANSWER_SCHEMA)).toBe("file.json is not valid: /job_id is required");
    expect(await check({ ...grading, assertion_results: [{ ...grading.assertion_results[0], passed: "yes" }] }, GRADING_SCHEMA)).toBe(
      "file.json is not valid: /assertion_results/0/passed must be boolean",
    );
    expect(await check({ ...timing, duration_ms: -1 }, TIMING_SCHEMA)).toBe("file.json is not valid: /duration_ms must be >= 0");
  });

  it("say so for a file that is not JSON, and never follow a link", async () => {
    const file = join(dir, "half.json");
    writeFileSync(file, '{"total_tokens": 1');
    expect((await readChecked(file, "timing.json", TIMING_SCHEMA, true)).problem).toMatch(/^timing\.json is not valid JSON: /);
    expect((await readChecked(join(dir, "absent.json"), "timing.json", TIMING_SCHEMA, true)).problem).toBe("timing.json is missing");
    expect(await readChecked(join(dir, "absent.json"), "triggers.json", TIMING_SCHEMA, false)).toEqual({ value: null, problem: null });
    writeFileSync(join(dir, "real.json"), JSON.stringify(timing));
    symlinkSync(join(dir, "real.json"), join(dir, "link.json"));
    expect((await readChecked(join(dir, "link.json"), "timing.json", TIMING_SCHEMA, true)).problem).toBe(
      "timing.json is a link; the view does not follow links",
    );
  });
});
