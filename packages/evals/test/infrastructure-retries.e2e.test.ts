/**
 * End to end, offline: `--retries 2` with the real Gemini CLI against the mock model, in the agent jail, through the
 * metering proxy (which is where skillrig learns that the model answered 429). Three cases
 * (test/fixtures/infra-retries):
 *   rate-limited   the endpoint answers 429 in attempts 1 and 2, then the run succeeds: one run, attempts 3, passed;
 *   wrong-answer   the agent writes a wrong total: the assertion fails, and the run is never retried (attempts 1);
 *   endpoint-down  the endpoint answers 500 every time: retries exhausted, the run is an infrastructure failure,
 *                  left out of the pass rate (runs n, infrastructure_failures).
 * Every attempt keeps its own job folder.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { loadScenario } from "@skillrig/mock-model";
import sandboxPlugin from "@skillrig/sandbox";
import { loadSkill, skillProtocolPlugin } from "@skillrig/skills";
import type { Benchmark, ConfigurationSummary, Grading, RunAnswer } from "../src/format.js";
import { builtinAssertionKinds, gradeRun } from "../src/index.js";
import { loadEvals } from "../src/load-evals.js";
import { runIteration, type IterationResult } from "../src/run-iteration.js";

const fixtures = resolve(fileURLToPath(new URL("./fixtures/infra-retries", import.meta.url)));
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

let dir: string;
let result: IterationResult;
const retried: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evals-retries-"));
  cpSync(join(fixtures, "flaky-total"), join(dir, "flaky-total"), { recursive: true });
  const runner = new Runner({ cwd: dir, config: {} })
    .use(
      new GeminiEnginePlugin({ approval_mode: "yolo", mock_scenario: loadScenario(join(fixtures, "scenario.json")), timeout_ms: 180_000 }),
    )
    .use(skillProtocolPlugin())
    .use(sandboxPlugin())
    .use(builtinAssertionKinds());
  const skill = loadSkill(join(dir, "flaky-total"));
  try {
    result = await runIteration({
      runner,
      skill,
      evals: loadEvals(skill),
      engines: ["gemini"],
      jobs: 2,
      retries: 2,
      evalDir: join(dir, "runs", "eval-flaky-total"),
      gradeRun,
      onRetry: (where, failed) => retried.push(`${where} ${failed.attempt} ${failed.infrastructure_failure?.type}`),
    });
  } finally {
    await runner.close();
  }
}, 900_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answerOf = (evalId: string, configuration = "with_skill") =>
  readJson<RunAnswer>(join(result.dir, `eval-${evalId}`, configuration, "answer.json"));

describe("--retries: infrastructure failures only", () => {
  it("429 twice, then success: one run with attempts 3, graded and passed; every attempt's job folder kept", () => {
    for (const configuration of ["with_skill", "without_skill"]) {
      const answer = answerOf("rate-limited", configuration);
      expect(answer.status, configuration).toBe("succeeded");
      expect(answer.attempts).toBe(3);
      expect(answer.infrastructure_failure).toBeUndefined();
      expect(answer.attempt_history!.map((a) => [a.attempt, a.status, a.infrastructure_failure?.type])).toEqual([
        [1, "failed", "model_rate_limited"],
        [2, "failed", "model_rate_limited"],
        [3, "succeeded", undefined],
      ]);
      expect(answer.attempt_history![0]!.infrastructure_failure).toMatchObject({ status: 429 });
      // Three jobs, three folders, each with its own logs.
      const dirs = new Set(answer.attempt_history!.map((a) => a.job_dir));
      expect(dirs.size).toBe(3);
      for (const jobDir of dirs) expect(existsSync(join(jobDir, "logs")), jobDir).toBe(true);
      const grading = readJson<Grading>(join(result.dir, "eval-rate-limited", configuration, "grading.json"));
      expect(grading.summary.pass_rate).toBe(1);
    }
    const run = result.benchmark.runs.find((r) => r.eval_id === "rate-limited" && r.configuration === "with_skill")!;
    expect(run.result).toMatchObject({ status: "succeeded", attempts: 3, pass_rate: 1 });
    expect(run.result.infrastructure_failure).toBeUndefined();
  });

  it("an assertion that fails is the skill's result: attempts 1 despite --retries", () => {
    const answer = answerOf("wrong-answer");
    expect(answer.status).toBe("succeeded");
    expect(answer.attempts).toBe(1);
    expect(answer.attempt_history).toBeUndefined();
    const run = result.benchmark.runs.find((r) => r.eval_id === "wrong-answer" && r.configuration === "with_skill")!;
    expect(run.result).toMatchObject({ attempts: 1, pass_rate: 0 });
    expect(retried.filter((r) => r.includes("wrong-answer"))).toEqual([]);
  });

  it("retries exhausted: an infrastructure failure, not a skill failure, left out of the pass rate with its n", () => {
    const answer = answerOf("endpoint-down");
    expect(answer.status).toBe("failed");
    expect(answer.attempts).toBe(3);
    expect(answer.infrastructure_failure).toMatchObject({ type: "model_server_error", status: 500 });
    expect(answer.attempt_history!.every((a) => a.infrastructure_failure?.type === "model_server_error")).toBe(true);
    const grading = readJson<Grading>(join(result.dir, "eval-endpoint-down", "with_skill", "grading.json"));
    expect(grading.assertion_results[0]!.evidence).toMatch(/lost to its infrastructure after 3 attempts .*left out of the pass rate/);

    const benchmark = readJson<Benchmark>(join(result.dir, "benchmark.json"));
    const down = benchmark.runs.find((r) => r.eval_id === "endpoint-down" && r.configuration === "with_skill")!;
    expect(down.result).toMatchObject({ attempts: 3, infrastructure_failure: "model_server_error" });
    const withSkill = benchmark.run_summary.with_skill as ConfigurationSummary;
    // rate-limited passed (1), wrong-answer failed (0); endpoint-down is not counted: mean 0.5 over n = 2, not 1/3.
    expect(withSkill).toMatchObject({ runs: 2, infrastructure_failures: 1 });
    expect(withSkill.pass_rate.mean).toBe(0.5);
    expect(benchmark.by_engine.gemini!.with_skill).toMatchObject({ runs: 2, infrastructure_failures: 1 });
    // Two lost attempts for rate-limited and two for endpoint-down, per configuration; none for wrong-answer.
    expect(retried.filter((r) => r.startsWith("eval-rate-limited/with_skill"))).toEqual([
      "eval-rate-limited/with_skill 1 model_rate_limited",
      "eval-rate-limited/with_skill 2 model_rate_limited",
    ]);
  });
});
