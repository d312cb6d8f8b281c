/**
 * compareRuns over reports skillrig itself wrote in this test (`skillrig test --json` on examples/: the receipt
 * parser's correct and buggy scripts, suite-mini graded from its solutions and from its samples; `skillrig solve` on
 * examples/solve-run-length with the real Gemini CLI against the mock model, once with its correct scenario and once
 * with its buggy one, under one engine label), and small edge cases the examples cannot produce (a sample that could
 * not be graded, a job's output, reports that do not match).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CompareError, compareRuns, reportKind } from "../src/compare-runs.js";
import { REPO, runCli } from "./support/cli.js";

const RECEIPT = join(REPO, "examples", "oracle-receipt-parser");
const SUITE = join(REPO, "examples", "suite-mini");
const SOLVE = join(REPO, "examples", "solve-run-length");

/** A solve of the example under the engine label `agent`, with one of its mock scenarios; its recorded report. */
async function solveReport(scenario: "correct" | "buggy"): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), `skillrig-compare-solve-${scenario}-`));
  const config = join(dir, "skillrig.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      plugins: [join(REPO, "plugins", "engine-gemini", "dist", "index.js")],
      solve: {
        attempts: 1,
        variants: [{ label: "agent", engine: "gemini", options: { mock_scenario: join(SOLVE, "scenarios", `${scenario}.json`) } }],
      },
    }),
  );
  const r = await runCli(["--config", config, "solve", "task.json", "--engine", "agent"], {
    cwd: SOLVE,
    env: { SKILLRIG_RUNS_DIR: join(dir, "runs") },
  });
  expect(r.code, r.stderr).toBe(scenario === "correct" ? 0 : 1);
  const folder = /recorded in (\S+) /.exec(r.stderr)![1]!;
  return JSON.parse(readFileSync(join(folder, "report.json"), "utf8"));
}

async function report(cwd: string, args: string[]): Promise<Record<string, unknown>> {
  const r = await runCli(["test", ...args, "--json", "--no-record"], { cwd });
  // 0: every case passed, 1: some did not; anything else is the test's own mistake.
  expect([0, 1], r.stderr).toContain(r.code);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

function thrown(f: () => unknown): CompareError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(CompareError);
    return error as CompareError;
  }
  throw new Error("expected a CompareError");
}

describe("compareRuns on runs the oracle recorded", () => {
  let correct: Record<string, unknown>;
  let correctAgain: Record<string, unknown>;
  let buggy: Record<string, unknown>;
  let solutions: Record<string, unknown>;
  let samples: Record<string, unknown>;
  let solvedRight: Record<string, unknown>;
  let solvedWrong: Record<string, unknown>;

  beforeAll(async () => {
    [correct, correctAgain, buggy, solutions, samples, solvedRight, solvedWrong] = await Promise.all([
      report(RECEIPT, ["task.json", "--deliverable", "correct"]),
      report(RECEIPT, ["task.json", "--deliverable", "correct"]),
      report(RECEIPT, ["task.json", "--deliverable", "buggy"]),
      report(SUITE, ["tasks", "--deliverable", "solutions"]),
      report(SUITE, ["tasks", "--samples", "samples.jsonl"]),
      solveReport("correct"),
      solveReport("buggy"),
    ]);
  }, 400_000);

  it("a deliverable that passed every case, then one that fails some: each failing case is a regression", () => {
    expect(reportKind(correct)).toBe("task");
    const c = compareRuns(correct, buggy);
    const buggyCases = buggy.cases as Array<{ name: string; status: string }>;
    const notPassed = buggyCases.filter((x) => x.status !== "passed").map((x) => x.name);
    expect(notPassed.length).toBeGreaterThan(0);
    expect(c.kind).toBe("task");
    expect(c.regression).toBe(true);
    expect(c.cases.filter((x) => x.regression).map((x) => x.case)).toEqual(notPassed);
    // Regressions come first, unchanged cases last.
    expect(c.cases.slice(0, notPassed.length).every((x) => x.change === "regression")).toBe(true);
    expect(c.counts).toMatchObject({ cases: buggyCases.length, regressions: notPassed.length, same: buggyCases.length - notPassed.length });
    for (const x of c.cases.filter((y) => y.regression)) {
      expect(x.before?.status).toBe("passed");
      expect(x.after?.status).toBe(buggyCases.find((b) => b.name === x.case)!.status);
      expect(x.sample).toBeNull();
    }
    const total = buggyCases.length;
    expect(c.pass_rate).toEqual({
      of: "cases",
      before: 1,
      after: Math.round(((total - notPassed.length) / total) * 10_000) / 10_000,
      delta: Math.round((-notPassed.length / total) * 10_000) / 10_000,
    });
    expect(c.duration_ms.before).toBe(correct.duration_ms);
    expect(c.duration_ms.delta).toBe((buggy.duration_ms as number) - (correct.duration_ms as number));
    const first = c.cases[0]!;
    expect(first.duration_delta_ms).toBe(first.after!.duration_ms! - first.before!.duration_ms!);

    // The other way round the same cases are fixed, and nothing regressed.
    const back = compareRuns(buggy, correct);
    expect(back.regression).toBe(false);
    expect(back.cases.filter((x) => x.fixed).map((x) => x.case)).toEqual(notPassed);
  });

  it("the same deliverable twice: nothing changed, only times differ", () => {
    const c = compareRuns(correct, correctAgain);
    expect(c.regression).toBe(false);
    expect(c.counts.changed).toBe(0);
    expect(c.pass_rate.delta).toBe(0);
    expect(c.cases.every((x) => x.change === "same" && x.before?.status === "passed")).toBe(true);
  });

  it("a suite graded from its solutions, then from samples with wrong ones: pass@k and samples per task", () => {
    expect(reportKind(samples)).toBe("suite");
    const c = compareRuns(solutions, samples);
    expect(c.kind).toBe("suite");
    expect(c.tasks.common.sort()).toEqual(["any-int", "big-sum", "run-length"]);
    // Sample 0 (the reports number samples from 0) of every task is a correct solution both times; sample 1 is
    // in samples.jsonl only.
    const added = c.cases.filter((x) => x.change === "added");
    expect(added.length).toBeGreaterThan(0);
    expect(new Set(added.map((x) => x.sample))).toEqual(new Set(["1"]));
    expect(c.cases.filter((x) => x.sample === "0").every((x) => x.change === "same")).toBe(true);
    expect(c.regression).toBe(false);
    // pass@1 over the suite as each report says it, and its delta.
    const passAt = (r: Record<string, unknown>) => (r.pass_at_k as Record<string, { value: number }>)["pass@1"]!.value;
    const all = c.pass_at_k.find((p) => p.scope === "all" && p.k === 1)!;
    expect(all.before).toBe(passAt(solutions));
    expect(all.after).toBe(passAt(samples));
    expect(all.delta).toBe(Math.round((passAt(samples) - passAt(solutions)) * 10_000) / 10_000);
    expect(all.delta).toBeLessThan(0);
    const anyInt = c.pass_at_k.find((p) => p.scope === "any-int" && p.k === 1)!;
    expect(anyInt).toMatchObject({ before: 1, after: 0.5, delta: -0.5 });
    const summary = (r: Record<string, unknown>) => r.summary as { samples: number; samples_passed: number; duration_ms: number };
    expect(c.pass_rate).toMatchObject({
      of: "samples",
      before: 1,
      after: Math.round((summary(samples).samples_passed / summary(samples).samples) * 10_000) / 10_000,
    });
    expect(c.duration_ms.delta).toBe(summary(samples).duration_ms - summary(solutions).duration_ms);
    expect(c.task_durations.map((t) => t.task_id).sort()).toEqual(["any-int", "big-sum", "run-length"]);
    expect(c.task_durations.every((t) => t.before !== null && t.after !== null)).toBe(true);
  });

  it("a solve whose agent wrote a correct solution, then a buggy one: the attempt's failing cases regress, pass@1 per engine", () => {
    expect(reportKind(solvedWrong)).toBe("solve");
    const c = compareRuns(solvedRight, solvedWrong);
    type Attempt = { engine: string; attempt: number; cases: Array<{ name: string; status: string }> };
    const attempt = (r: Record<string, unknown>) => (r.tasks as Array<{ attempts: Attempt[] }>)[0]!.attempts[0]!;
    const failing = attempt(solvedWrong)
      .cases.filter((x) => x.status !== "passed")
      .map((x) => x.name);
    expect(failing.length).toBeGreaterThan(0);
    expect(c.kind).toBe("solve");
    expect(c.regression).toBe(true);
    expect(c.cases.filter((x) => x.regression).map((x) => x.case)).toEqual(failing);
    expect(new Set(c.cases.map((x) => x.sample))).toEqual(new Set(["agent #1"]));
    expect(c.pass_at_k).toEqual([{ scope: "agent", k: 1, before: 1, after: 0, delta: -1 }]);
    expect(c.pass_rate).toEqual({ of: "attempts", before: 1, after: 0, delta: -1 });
    expect(c.duration_ms.delta).toBe((solvedWrong.duration_ms as number) - (solvedRight.duration_ms as number));
    const durationOf = (r: Record<string, unknown>) => (attempt(r) as unknown as { usage: { durationMs: number } }).usage.durationMs;
    expect(c.task_durations).toEqual([
      {
        task_id: "run-length-encode",
        before: durationOf(solvedRight),
        after: durationOf(solvedWrong),
        delta: durationOf(solvedWrong) - durationOf(solvedRight),
      },
    ]);
  });

  it("refuses a one-task report against a suite, and two different tasks, naming both", () => {
    const kinds = thrown(() => compareRuns(correct, samples));
    expect(kinds.code).toBe("different_kinds");
    expect(kinds.message).toBe("cannot compare a one-task test report (before) with a suite report (after)");
    const other = { ...buggy, task_id: "another-task" };
    const tasks = thrown(() => compareRuns(correct, other));
    expect(tasks.code).toBe("different_tasks");
    expect(tasks.message).toBe('the runs share no task: "oracle-receipt-parser" before, "another-task" after');
  });
});

describe("compareRuns edge cases", () => {
  const task = (cases: Array<[string, string, number?]>, extra: Record<string, unknown> = {}) => ({
    task_id: "t",
    summary: { total: cases.length, passed: cases.filter((c) => c[1] === "passed").length },
    cases: cases.map(([name, status, duration_ms]) => ({ name, status, duration_ms: duration_ms ?? 1 })),
    ...extra,
  });

  it("accepts a task report with and without kind and version", () => {
    const c = compareRuns(task([["a", "passed"]]), task([["a", "failed"]], { kind: "skillrig-task-report", version: 1 }));
    expect(c.regression).toBe(true);
  });

  it("added, removed, changed and a repeated case name", () => {
    const c = compareRuns(
      task([
        ["a", "failed"],
        ["b", "passed"],
        ["dup", "passed"],
        ["dup", "passed"],
      ]),
      task([
        ["a", "error"],
        ["c", "passed"],
        ["dup", "passed"],
        ["dup", "timeout"],
      ]),
    );
    expect(c.cases.map((x) => [x.case, x.change])).toEqual([
      ["dup #2", "regression"],
      ["a", "changed"],
      ["c", "added"],
      ["b", "removed"],
      ["dup", "same"],
    ]);
    // A removed case that passed is not a regression: it no longer exists.
    expect(c.counts).toEqual({ cases: 5, changed: 4, regressions: 1, fixed: 0, added: 1, removed: 1, same: 1 });
  });

  it("a suite sample that could not be graded now: its cases take the sample's status, a regression", () => {
    const suite = (status: string, cases: unknown[]) => ({
      kind: "skillrig-suite-report",
      version: 1,
      summary: { duration_ms: 10 },
      pass_at_k: { "pass@1": { value: status === "passed" ? 1 : 0, tasks: 1 } },
      tasks: [
        {
          task_id: "t",
          pass_at_k: { "pass@1": status === "passed" ? 1 : 0 },
          samples: [
            {
              sample: 1,
              status,
              cases,
              duration_ms: 5,
              ...(status === "error" ? { error: { code: "usage", message: "no entrypoint" } } : {}),
            },
          ],
        },
      ],
    });
    const c = compareRuns(suite("passed", [{ name: "x", status: "passed", duration_ms: 1 }]), suite("error", []));
    expect(c.cases).toHaveLength(1);
    expect(c.cases[0]).toMatchObject({
      sample: "1",
      case: "x",
      change: "regression",
      after: { status: "error", message: "no entrypoint" },
    });
    expect(c.pass_at_k).toEqual([
      { scope: "all", k: 1, before: 1, after: 0, delta: -1 },
      { scope: "t", k: 1, before: 1, after: 0, delta: -1 },
    ]);
    expect(c.pass_rate).toMatchObject({ of: "samples", before: 1, after: 0, delta: -1 });
  });

  it("a solve attempt is a sample named by engine and attempt; pass@k per engine", () => {
    const solve = (status: string, pass: number) => ({
      kind: "skillrig-solve-report",
      duration_ms: 100,
      engines: [{ engine: "gemini", pass_at_k: { "1": pass } }],
      tasks: [
        {
          task_id: "t",
          attempts: [
            {
              engine: "gemini",
              attempt: 1,
              status,
              cases: status === "engine_failed" ? [] : [{ name: "x", status, duration_ms: 2 }],
              usage: { durationMs: 50 },
            },
          ],
        },
      ],
      summary: { attempts: 1, passed: pass },
    });
    const c = compareRuns(solve("passed", 1), solve("engine_failed", 0));
    expect(c.kind).toBe("solve");
    expect(c.cases[0]).toMatchObject({ sample: "gemini #1", case: "x", change: "regression", after: { status: "engine_failed" } });
    expect(c.pass_at_k).toEqual([{ scope: "gemini", k: 1, before: 1, after: 0, delta: -1 }]);
    expect(c.pass_rate).toMatchObject({ of: "attempts", before: 1, after: 0 });
    expect(c.task_durations).toEqual([{ task_id: "t", before: 50, after: 50, delta: 0 }]);
  });

  it("a skill job: its status as one case and its output field by field", () => {
    const job = (status: string, output: unknown) => ({
      job_id: "j",
      skill_id: "word-count",
      engine: "gemini",
      status,
      output,
      timings: { started_at: "x", duration_ms: 1000 },
    });
    const c = compareRuns(job("succeeded", { words: 3, lines: 1 }), job("failed", { words: 4, lines: 1 }));
    expect(c.kind).toBe("job");
    expect(c.cases).toEqual([
      expect.objectContaining({
        task_id: "word-count",
        case: "job",
        change: "regression",
        before: expect.objectContaining({ status: "succeeded" }),
      }),
    ]);
    expect(c.outputs).toEqual([
      { field: "words", before: 3, after: 4, changed: true },
      { field: "lines", before: 1, after: 1, changed: false },
    ]);
    expect(thrown(() => compareRuns(job("succeeded", {}), { ...job("succeeded", {}), skill_id: "other" })).code).toBe("different_tasks");
  });

  it("names the side and the JSON pointer of a report it cannot read", () => {
    const bad = thrown(() => compareRuns(task([["a", "passed"]]), { task_id: "t", cases: [{ name: "a", status: 3 }] }));
    expect(bad).toMatchObject({ code: "not_a_report", side: "after", pointer: "/cases/0/status" });
    expect(bad.message).toBe("the after report: /cases/0/status must be a string");
    const unknown = thrown(() => compareRuns({ kind: "skillrig-eval" }, task([])));
    expect(unknown.message).toBe('the before report: /kind is "skillrig-eval", not a kind of report skillrig compares');
    expect(thrown(() => compareRuns([], task([]))).message).toBe("the before report: / must be an object");
  });
});
