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
    // The receipt parser's runs one at a time: its regex case has a wall-clock search limit (the oracle's), which
    // seven CLIs at once on two loaded cores can push a correct script past.
    correct = await report(RECEIPT, ["task.json", "--deliverable", "correct"]);
    correctAgain = await report(RECEIPT, ["task.json", "--deliverable", "correct"]);
    buggy = await report(RECEIPT, ["task.json", "--deliverable", "buggy"]);
    [solutions, samples, solvedRight, solvedWrong] = await Promise.all([
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
    expect(c.pass_rate).toMatchObject({
      of: "cases",
      pairs: total,
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
    // Sample 1 of every task (its first line) is the solutions/ file both times, matched by content; sample 2 is in
    // samples.jsonl only: new.
    const added = c.cases.filter((x) => x.change === "added");
    expect(added.length).toBeGreaterThan(0);
    expect(new Set(added.map((x) => x.sample))).toEqual(new Set(["2"]));
    expect(c.samples.filter((x) => x.change === "new").map((x) => [x.task_id, x.sample])).toEqual([
      ["any-int", "2"],
      ["big-sum", "2"],
    ]);
    expect(c.cases.filter((x) => x.sample === "1").every((x) => x.change === "same")).toBe(true);
    expect(c.samples.filter((x) => x.sample === "1").every((x) => x.matched_by === "content")).toBe(true);
    // any-int's new sample is wrong: its pass rate fell, which is a regression, not an "added" row.
    expect(c.regression).toBe(true);
    const anyIntTask = c.task_changes[0]!;
    expect(anyIntTask).toMatchObject({ task_id: "any-int", regression: true, pass_rate: { before: 1, after: 0.5, pairs: 1 } });
    expect(anyIntTask.causes).toEqual([expect.objectContaining({ sample: "2", change: "new", after: "failed" })]);
    expect(c.task_changes.filter((t) => t.regression).map((t) => t.task_id)).toEqual(["any-int"]);
    // pass@1 over the suite as each report says it, and its delta.
    const passAt = (r: Record<string, unknown>) => (r.pass_at_k as Record<string, { value: number }>)["pass@1"]!.value;
    const all = c.pass_at_k.find((p) => p.scope === "all" && p.k === 1)!;
    expect(all.before).toBe(passAt(solutions));
    expect(all.after).toBe(passAt(samples));
    expect(all.delta).toBe(Math.round((passAt(samples) - passAt(solutions)) * 10_000) / 10_000);
    expect(all.delta).toBeLessThan(0);
    const anyInt = c.pass_at_k.find((p) => p.scope === "any-int" && p.k === 1)!;
    expect(anyInt).toMatchObject({ before: 1, after: 0.5, delta: -0.5, ci95: null, p_value: null, pairs: 0 });
    expect(all.pairs).toBe(3);
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
    // The agent wrote another program: a new sample (its cases added) and the old one gone; the task fell because of it.
    expect(c.samples.map((x) => [x.sample, x.change, x.matched_by])).toEqual([
      ["agent #1", "new", "none"],
      ["agent #1", "gone", "none"],
    ]);
    expect(c.task_changes[0]).toMatchObject({ task_id: "run-length-encode", regression: true });
    expect(c.task_changes[0]!.causes.map((x) => [x.change, x.after ?? x.before])).toEqual([
      ["new", "failed"],
      ["gone", "passed"],
    ]);
    expect(c.cases.filter((x) => x.change === "added" && x.after?.status !== "passed").map((x) => x.case)).toEqual(failing);
    expect(new Set(c.cases.map((x) => x.sample))).toEqual(new Set(["agent #1"]));
    // The same program twice is the same sample.
    expect(compareRuns(solvedWrong, solvedWrong).samples).toEqual([
      expect.objectContaining({ sample: "agent #1", change: "same", matched_by: "content" }),
    ]);
    expect(c.pass_at_k).toEqual([{ scope: "agent", k: 1, before: 1, after: 0, delta: -1, ci95: [-1, -1], p_value: 1, pairs: 1 }]);
    expect(c.pass_rate).toMatchObject({ of: "attempts", before: 1, after: 0, delta: -1, pairs: 1 });
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

  it("a skill job's cost and tokens: before, after and delta; an unpriced side has no delta", () => {
    const job = (cost_usd: number | "unpriced", totalTokens: number) => ({
      skill_id: "s",
      status: "succeeded",
      timings: { duration_ms: 10 },
      usage: { totalTokens, source: "proxy" },
      cost_usd,
    });
    const c = compareRuns(job(0.0036, 1500), job(0.0012, 900));
    expect(c.cost_usd).toEqual({ before: 0.0036, after: 0.0012, delta: -0.0024 });
    expect(c.tokens).toEqual({ before: 1500, after: 900, delta: -600 });
    expect(compareRuns(job("unpriced", 1500), job(0.0012, 900)).cost_usd).toEqual({ before: null, after: 0.0012, delta: null });
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
    expect(c.counts).toMatchObject({ cases: 5, changed: 4, regressions: 1, fixed: 0, added: 1, removed: 1, same: 1 });
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
              sample: 0,
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
      { scope: "all", k: 1, before: 1, after: 0, delta: -1, ci95: [-1, -1], p_value: 1, pairs: 1 },
      { scope: "t", k: 1, before: 1, after: 0, delta: -1, ci95: null, p_value: null, pairs: 0 },
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
    expect(c.pass_at_k).toEqual([{ scope: "gemini", k: 1, before: 1, after: 0, delta: -1, ci95: [-1, -1], p_value: 1, pairs: 1 }]);
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

describe("compareRuns: samples matched by content, tasks that fell, statistics", () => {
  const sha = (c: string) => `sha256:${Buffer.from(c).toString("hex").repeat(64).slice(0, 64)}`;
  type S = [content: string, status: "passed" | "failed" | "error", cases?: Array<[string, string]>];
  const suite = (tasks: Record<string, S[]>, withDigests = true) => ({
    kind: "skillrig-suite-report",
    version: 1,
    summary: { duration_ms: 10 },
    pass_at_k: {},
    tasks: Object.entries(tasks).map(([task_id, samples]) => ({
      task_id,
      pass_at_k: {},
      samples: samples.map(([content, status, cases], i) => ({
        sample: i,
        source: `samples.jsonl:${i + 1}`,
        ...(withDigests ? { deliverable_sha256: sha(content) } : {}),
        status,
        cases: (cases ?? [["c", status]]).map(([name, st]) => ({ name, status: st, duration_ms: 1 })),
        duration_ms: 2,
      })),
    })),
  });

  it("the same programs in another order are the same samples: nothing changed", () => {
    const c = compareRuns(
      suite({
        t: [
          ["a", "passed"],
          ["b", "failed"],
        ],
      }),
      suite({
        t: [
          ["b", "failed"],
          ["a", "passed"],
        ],
      }),
    );
    expect(c.regression).toBe(false);
    expect(c.counts.changed).toBe(0);
    expect(c.samples.map((x) => [x.sample, x.sample_before, x.change, x.matched_by])).toEqual([
      ["1", "2", "same", "content"],
      ["2", "1", "same", "content"],
    ]);
    // By position the first sample would have "regressed" and the second been "fixed": two different programs.
    const byPosition = compareRuns(
      suite(
        {
          t: [
            ["a", "passed"],
            ["b", "failed"],
          ],
        },
        false,
      ),
      suite(
        {
          t: [
            ["b", "failed"],
            ["a", "passed"],
          ],
        },
        false,
      ),
    );
    expect(byPosition.samples.every((x) => x.matched_by === "position")).toBe(true);
    expect(byPosition.counts.regressions).toBe(1);
  });

  it("new failing samples before the old ones: the task fell, a regression naming the new samples, not 'added' rows", () => {
    const before = suite({
      keep: [["k", "passed"]],
      t: [
        ["a", "passed"],
        ["b", "passed"],
      ],
    });
    const after = suite({
      keep: [["k", "passed"]],
      t: [
        ["syntax", "error"],
        ["a", "passed"],
        ["wrong", "failed"],
        ["b", "passed"],
      ],
    });
    const c = compareRuns(before, after);
    expect(c.regression).toBe(true);
    expect(c.counts.regressions).toBe(0);
    expect(c.counts.task_regressions).toBe(1);
    expect(c.task_changes[0]).toMatchObject({
      task_id: "t",
      regression: true,
      pass_rate: { before: 1, after: 0.5, delta: -0.5, pairs: 2 },
    });
    expect(c.task_changes[0]!.causes.map((x) => [x.sample, x.change, x.after])).toEqual([
      ["1", "new", "error"],
      ["3", "new", "failed"],
    ]);
    expect(c.task_changes[1]).toMatchObject({ task_id: "keep", regression: false });
    expect(c.counts.samples).toEqual({ matched: 3, new: 2, gone: 0 });
  });

  it("a case of the same deliverable that passed and fails now is a regression even when the task's rate held", () => {
    const c = compareRuns(
      suite({
        t: [
          [
            "a",
            "failed",
            [
              ["x", "passed"],
              ["y", "failed"],
            ],
          ],
        ],
      }),
      suite({
        t: [
          [
            "a",
            "failed",
            [
              ["x", "failed"],
              ["y", "passed"],
            ],
          ],
        ],
      }),
    );
    expect(c.task_changes[0]!.regression).toBe(false);
    expect(c.regression).toBe(true);
    expect(c.cases.find((x) => x.case === "x")).toMatchObject({ change: "regression", sample: "1" });
  });

  it("a gone sample that passed makes the task fall; one run compared with itself says so", () => {
    const before = suite({
      t: [
        ["a", "passed"],
        ["b", "failed"],
      ],
    });
    const c = compareRuns(before, suite({ t: [["b", "failed"]] }));
    expect(c.task_changes[0]!.causes).toEqual([expect.objectContaining({ sample: "1", change: "gone", before: "passed" })]);
    expect(compareRuns(before, before, { sameRun: true })).toMatchObject({ same_run: true, regression: false });
    expect(compareRuns(before, before).same_run).toBe(false);
  });

  const task = (n: number, failing: number) => ({
    task_id: "t",
    cases: Array.from({ length: n }, (_, i) => ({ name: `case ${i}`, status: i < failing ? "failed" : "passed", duration_ms: 1 })),
  });

  it("10 of 40 cases flipped is a significant drop; 1 of 40 is a regression but not significant; identical runs neither", () => {
    const ten = compareRuns(task(40, 0), task(40, 10));
    expect(ten.pass_rate).toMatchObject({ before: 1, after: 0.75, delta: -0.25, pairs: 40, p_value: 0.001953 });
    expect(ten.pass_rate.ci95![1]).toBeLessThan(0);
    expect(ten.significant_drop).toBe(true);
    const one = compareRuns(task(40, 0), task(40, 1));
    expect(one.regression).toBe(true);
    expect(one.pass_rate).toMatchObject({ delta: -0.025, p_value: 1, pairs: 40 });
    expect(one.pass_rate.ci95![0]).toBeLessThanOrEqual(0);
    expect(one.pass_rate.ci95![1]).toBeGreaterThanOrEqual(0);
    expect(one.significant_drop).toBe(false);
    const same = compareRuns(task(40, 3), task(40, 3));
    expect(same.pass_rate).toMatchObject({ delta: 0, ci95: [0, 0], p_value: 1 });
    expect(same.significant_drop).toBe(false);
  });

  it("refuses a deliverable_sha256 that is not one, naming its pointer", () => {
    const bad = suite({ t: [["a", "passed"]] });
    (bad.tasks[0]!.samples[0] as Record<string, unknown>).deliverable_sha256 = "md5:x";
    expect(thrown(() => compareRuns(suite({ t: [["a", "passed"]] }), bad))).toMatchObject({
      side: "after",
      pointer: "/tasks/0/samples/0/deliverable_sha256",
    });
  });
});
