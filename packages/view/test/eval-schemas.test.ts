/**
 * The view's schemas of `skillrig eval`'s files against @skillrig/evals/format's types: a value with every field
 * the type has (optional ones included), typed by the type itself, passes; values that break it fail at their pointer.
 */
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Grading, IterationRecord, RunAnswer, Timing } from "@skillrig/evals/format";
import { describe, expect, it } from "vitest";
import { readChecked } from "../src/eval-folder.js";
import { ANSWER_SCHEMA, GRADING_SCHEMA, ITERATION_SCHEMA, TIMING_SCHEMA } from "../src/eval-schemas.js";

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

  it("refuse values that break the types, naming the pointer", async () => {
    expect(await check({ ...iteration, status: "done" }, ITERATION_SCHEMA)).toBe(
      'file.json is not valid: /status must be one of "running", "passed", "failed", "error"',
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
