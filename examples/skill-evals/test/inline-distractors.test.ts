/**
 * docs/evals.md's third arm and neighbours end to end: `skillrig eval top-months --configs
 * with_skill,without_skill,inline_skill --distractors distractors` through the built CLI, the real gemini binary in
 * the agent jail, and the example's mock model (no key, no network). Inlined, the mock agent follows the skill's text
 * by hand and gets the ranking right (the content helps without discovery), but eval 1's trajectory assertions see
 * that it activated no skill and never ran the shipped script (6 of 8 there); among neighbours, a request for the
 * year's total picks revenue-total, and a ranking request still picks top-months.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Benchmark, IterationRecord, RunAnswer, TriggerReport } from "@skillrig/evals/format";
import { beforeAll, describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "../../..");
const EXAMPLE = resolve(import.meta.dirname, "..");
const CLI = join(REPO, "packages/cli/dist/bin.js");

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

describe("examples/skill-evals: inline_skill and --distractors on gemini, offline", () => {
  const out = mkdtempSync(join(tmpdir(), "skill-evals-inline-"));
  let run: { exitCode: number; stdout: string; stderr: string };
  let iteration: string;

  beforeAll(async () => {
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root" };
    const args = [
      CLI,
      "eval",
      "top-months",
      "--engine",
      "gemini",
      "--judge",
      "gemini",
      "--configs",
      "with_skill,without_skill,inline_skill",
      "--distractors",
      "distractors",
      "--jobs",
      "2",
      "--out",
      out,
    ];
    run = await new Promise((done) => {
      execFile(process.execPath, args, { cwd: EXAMPLE, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        done({ exitCode: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
      );
    });
    iteration = join(out, "iteration-1");
  }, 1_200_000);

  it("exits 0 and prints each pair's delta and the confusion table", () => {
    expect(run.exitCode, `${run.stderr}\n${run.stdout}`).toBe(0);
    expect(run.stdout).toContain("pairs:");
    expect(run.stdout).toMatch(/inline_skill - without_skill: pass rate \+62\.5 pts/);
    expect(run.stdout).toMatch(/with_skill - inline_skill: pass rate \+12\.5 pts/);
    expect(run.stdout).toContain("top-months picked on its own queries: 6/6");
    expect(run.stdout).toContain("top-months fired on a neighbour's query: 0/3");
  });

  it("inline_skill: nothing installed, the skill's text in the prompt; only the trajectory assertions about the installed skill fail", () => {
    for (const id of ["1", "ranking-function"]) {
      const answer = readJson<RunAnswer>(join(iteration, `eval-${id}`, "inline_skill", "answer.json"));
      expect(answer.status, id).toBe("succeeded");
      expect(answer.skills_activated).toEqual([]);
      expect(existsSync(join(answer.job_dir, "workspace", ".agents")), id).toBe(false);
      expect(existsSync(join(answer.job_dir, "workspace", ".claude")), id).toBe(false);
      const prompt = readFileSync(join(answer.job_dir, "prompt.md"), "utf8");
      expect(prompt).toContain("### scripts/ranking.py");
      expect(prompt).toContain("### scripts/top_months.py");
    }
    const failed = (id: string) =>
      readJson<{ assertion_results: { text: string; passed: boolean }[] }>(join(iteration, `eval-${id}`, "inline_skill", "grading.json"))
        .assertion_results.filter((a) => !a.passed)
        .map((a) => a.text);
    expect(failed("1")).toEqual(["the agent activated top-months", "the agent ran the ranking script the skill ships"]);
    expect(failed("ranking-function")).toEqual([]);
    const record = readJson<IterationRecord>(join(iteration, "iteration.json"));
    expect(record.inline_skill?.files.map((f) => f.path)).toEqual(["SKILL.md", "scripts/top_months.py", "scripts/ranking.py"]);
    expect(record.distractors_path).toBe(join(EXAMPLE, "distractors"));
  });

  it("benchmark.json: each pair's delta; the content is most of what the installed skill is worth", () => {
    const benchmark = readJson<Benchmark>(join(iteration, "benchmark.json"));
    expect(benchmark.metadata.configurations).toEqual(["with_skill", "without_skill", "inline_skill"]);
    expect(benchmark.run_summary.inline_skill).toMatchObject({ pass_rate: { mean: 0.875 }, runs: 2 });
    expect(benchmark.run_summary.delta).toMatchObject({ of: ["with_skill", "without_skill"], pass_rate: 0.75 });
    const pairs = (benchmark.deltas ?? [])
      .filter((d) => d.engine === null)
      .map((d) => [d.of.join(" - "), d.pass_rate, d.paired?.pass_rate.pairs]);
    expect(pairs).toEqual([
      ["with_skill - inline_skill", 0.125, 2],
      ["with_skill - without_skill", 0.75, 2],
      ["inline_skill - without_skill", 0.625, 2],
    ]);
  });

  it("triggers.json: which skill fired per run, and the confusion table with n", () => {
    const report = readJson<TriggerReport>(join(iteration, "triggers.json"));
    const byQuery = Object.fromEntries(report.queries.map((q) => [q.query, q]));
    expect(byQuery["what's the total revenue for 2025 in sales_2025.csv?"]).toMatchObject({
      triggers: 0,
      passed: true,
      fired: ["revenue-total", "revenue-total", "revenue-total"],
    });
    const [table] = report.distractors!.confusion;
    expect(table!.rows).toEqual([
      { owner: "top-months", fired: { "top-months": 6, "revenue-total": 0 }, none: 0, n: 6 },
      { owner: "revenue-total", fired: { "top-months": 0, "revenue-total": 3 }, none: 0, n: 3 },
    ]);
    expect(table!.picked).toMatchObject({ count: 6, n: 6, rate: 1 });
    expect(table!.fired_on_neighbours).toMatchObject({ count: 0, n: 3, rate: 0 });
  });
});
