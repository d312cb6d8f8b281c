/**
 * End to end: one budget for a whole eval iteration (`skillrig eval --max-tokens`), on the real Gemini CLI against
 * the mock model, metered by engine-kit's proxy. One with_skill job measures what a run uses (T tokens); then an
 * iteration of four runs (with_skill and without_skill, two runs each) gets a budget of 1.5 T: the first run
 * finishes, the second is capped to what is left and stopped with cost_limit, the last two never start. The
 * iteration's files hold what ran, its status is `error` with `stopped.code` cost_limit, never passed or finished.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner, type JobResult } from "@skillrig/core";
import GeminiEnginePlugin from "@skillrig/engine-gemini";
import { loadScenario } from "@skillrig/mock-model";
import sandboxPlugin from "@skillrig/sandbox";
import { InvocationBudget, loadSkill, runJob, skillProtocolPlugin } from "@skillrig/skills";
import type { Benchmark, IterationRecord, RunAnswer, Timing } from "../src/format.js";
import { builtinAssertionKinds, gradeRun } from "../src/index.js";
import { loadEvals } from "../src/load-evals.js";
import { runIteration, type IterationResult } from "../src/run-iteration.js";

const fixtures = resolve(fileURLToPath(new URL("./fixtures/eval-run", import.meta.url)));
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

let dir: string;
let measured: JobResult;
let budget: InvocationBudget;
let result: IterationResult;

const tokensOf = (r: JobResult): number => r.usage?.totalTokens ?? 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evals-budget-"));
  cpSync(join(fixtures, "csv-total"), join(dir, "csv-total"), { recursive: true });
  const runner = new Runner({ cwd: dir })
    .use(
      new GeminiEnginePlugin({ approval_mode: "yolo", mock_scenario: loadScenario(join(fixtures, "scenario.json")), timeout_ms: 120_000 }),
    )
    .use(skillProtocolPlugin())
    .use(builtinAssertionKinds())
    .use(sandboxPlugin());
  const skill = loadSkill(join(dir, "csv-total"));
  const evals = loadEvals(skill, runner);
  const evalCase = evals.cases[0]!;
  try {
    // The same request as the iteration's with_skill run: what one run uses.
    measured = await runJob(
      runner,
      {
        skill_id: skill.id,
        engine: "gemini",
        prompt: evalCase.prompt,
        files: Object.fromEntries(evalCase.files.map((f) => [f.workspacePath, f.source])),
        options: { skill_install: "discoverable" },
      },
      { skill, runsDir: join(dir, "measure") },
    );
    budget = new InvocationBudget({ maxTokens: Math.ceil(tokensOf(measured) * 1.5) });
    result = await runIteration({
      runner,
      skill,
      evals,
      engines: ["gemini"],
      runs: 2,
      jobs: 1,
      evalDir: join(dir, "runs", "eval-csv-total"),
      gradeRun,
      minPassRate: 0,
      budget,
    });
  } finally {
    await runner.close();
  }
}, 900_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an eval invocation's budget (--max-tokens) on gemini against the mock model", () => {
  it("the measuring run succeeded and was metered", () => {
    expect(measured.status).toBe("succeeded");
    expect(measured.usage?.source).toBe("proxy");
    expect(tokensOf(measured)).toBeGreaterThan(0);
  });

  it("stops the iteration with cost_limit once spent: iteration.json says error and why, never passed", () => {
    expect(result.costLimit).toMatch(/token budget is spent/);
    expect(result.passed).toBe(false);
    const record = readJson<IterationRecord>(join(result.dir, "iteration.json"));
    expect(record.status).toBe("error");
    expect(record.stopped).toMatchObject({ code: "cost_limit" });
    expect(record.finished_at).toBeDefined();
  });

  it("the first run finished, the second was capped to the remainder and stopped, the rest never started", () => {
    const answer = (configuration: string, run: number) =>
      readJson<RunAnswer>(join(result.dir, "eval-1", configuration, `run-${run}`, "answer.json"));
    const timing = (configuration: string, run: number) =>
      readJson<Timing>(join(result.dir, "eval-1", configuration, `run-${run}`, "timing.json"));
    expect(answer("with_skill", 1).status).toBe("succeeded");
    const second = answer("with_skill", 2);
    expect(second.status).toBe("failed");
    expect(second.error?.code).toBe("cost_limit");
    // Capped to what was left (about half a run): it stopped before using a whole run's tokens.
    expect(timing("with_skill", 2).total_tokens).toBeLessThan(tokensOf(measured));
    for (const run of [1, 2]) {
      const notRun = answer("without_skill", run);
      expect(notRun.status).toBe("canceled");
      expect(notRun.error).toMatchObject({ code: "cost_limit" });
      expect(notRun.error?.message).toMatch(/^not run: the invocation's token budget is spent/);
      expect(notRun.job_id).toBe("");
    }
    expect(budget.spent().jobs).toBe(2);
    expect(budget.spent().tokens).toBeGreaterThanOrEqual(Math.ceil(tokensOf(measured) * 1.5));
  });

  it("benchmark.json lists every run with what it was: the partial results kept", () => {
    const benchmark = readJson<Benchmark>(join(result.dir, "benchmark.json"));
    expect(benchmark.runs.map((r) => `${r.configuration} ${r.run_number} ${r.result.status}`)).toEqual([
      "with_skill 1 succeeded",
      "with_skill 2 failed",
      "without_skill 1 canceled",
      "without_skill 2 canceled",
    ]);
    expect(benchmark.runs[0]!.result.tokens).toBe(tokensOf(measured));
  });
});
