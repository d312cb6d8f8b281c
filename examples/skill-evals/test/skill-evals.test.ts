/**
 * docs/evals.md's example end to end: `skillrig eval top-months` through the built CLI, the real gemini, codex and
 * claude binaries in the agent jail, and the mock model the example's config names (no key, no network). The
 * scenario plays a better agent with the skill than without it, and a judge that reads the run's answer, so every
 * number below comes from real runs graded for real: the script check re-ranks the CSV, the oracle runs the hidden
 * tests, the judge's command reads the answer file.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Benchmark, Grading, RunAnswer, TriggerReport } from "@skillrig/evals/format";
import { beforeAll, describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "../../..");
const EXAMPLE = resolve(import.meta.dirname, "..");
const CLI = join(REPO, "packages/cli/dist/bin.js");
const ENGINES = ["gemini", "codex", "claude"] as const;

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

describe("examples/skill-evals: skillrig eval on three engines, offline", () => {
  const out = mkdtempSync(join(tmpdir(), "skill-evals-"));
  let run: { exitCode: number; stdout: string; stderr: string };
  let iteration: string;

  beforeAll(async () => {
    // Only what a user's shell would have: no API keys at all.
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root" };
    const args = [CLI, "eval", "top-months", ...ENGINES.flatMap((e) => ["--engine", e]), "--judge", "gemini", "--jobs", "2", "--out", out];
    run = await new Promise((done) => {
      execFile(process.execPath, args, { cwd: EXAMPLE, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        done({ exitCode: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
      );
    });
    iteration = join(out, "iteration-1");
  }, 1_200_000);

  it("exits 0 and prints the delta and the trigger rates", () => {
    expect(run.exitCode, `${run.stderr}\n${run.stdout}`).toBe(0);
    expect(run.stdout).toMatch(/delta/i);
    expect(run.stdout).toContain("three strongest revenue months");
  });

  it("grades each engine's with_skill runs all passed and its without_skill runs where the agent went wrong", () => {
    for (const engine of ENGINES) {
      const grading = (id: string, configuration: string) =>
        readJson<Grading>(join(iteration, `eval-${id}`, configuration, engine, "grading.json"));
      const withSkill = grading("1", "with_skill");
      expect(withSkill.summary, `${engine}: ${JSON.stringify(withSkill)}`).toMatchObject({ passed: 8, total: 8, pass_rate: 1 });
      const without = grading("1", "without_skill");
      // The hand ranking is valid JSON and has July, but gets the tie wrong (the script re-ranks the CSV) and the
      // answer never says "July 2025" (the judge's command reads it).
      expect(
        without.assertion_results.map((r) => [r.graded_by, r.passed]),
        engine,
      ).toEqual([
        ["json_schema", true],
        ["file_contains", true],
        ["script", false],
        ["judge", false],
        // How it got there: no skill, no script; nothing destructive, few steps.
        ["skill_activated", false],
        ["tool_used", false],
        ["tool_not_used", true],
        ["step_count", true],
      ]);
      expect(without.assertion_results[2]!.evidence).toContain("2025-11");
      expect(grading("ranking-function", "with_skill").summary.pass_rate, engine).toBe(1);
      const naive = grading("ranking-function", "without_skill");
      expect(naive.summary.pass_rate, engine).toBe(0);
      expect(naive.assertion_results[0]!.evidence).toMatch(/4\/5 cases passed; first failure: tie/);
    }
  });

  it("trajectory assertions name the job events that decided, the same on every engine", () => {
    for (const engine of ENGINES) {
      const dir = join(iteration, "eval-1", "with_skill", engine);
      const results = readJson<Grading>(join(dir, "grading.json")).assertion_results;
      const events = readFileSync(join(readJson<RunAnswer>(join(dir, "answer.json")).job_dir, "logs", "events.jsonl"), "utf8").split("\n");
      const eventOf = (kind: string) => {
        const evidence = results.find((r) => r.graded_by === kind)!.evidence;
        const n = Number(/event (\d+)/.exec(evidence)?.[1]);
        return { evidence, event: JSON.parse(events[n - 1] ?? "null") as Record<string, unknown> | null };
      };
      const script = eventOf("tool_used");
      expect(script.event, `${engine}: ${script.evidence}`).toMatchObject({ type: "tool_call" });
      expect(JSON.stringify(script.event)).toContain("scripts/top_months.py");
      const activated = eventOf("skill_activated");
      expect(activated.event, `${engine}: ${activated.evidence}`).toMatchObject({ type: "skill_activated", skill: "top-months" });
    }
  });

  it("keeps what the agent left, and which skills it activated", () => {
    for (const engine of ENGINES) {
      const dir = join(iteration, "eval-1", "with_skill", engine);
      expect(readJson<Array<{ month: string }>>(join(dir, "outputs", "top_months.json")).map((m) => m.month)).toEqual([
        "2025-07",
        "2025-05",
        "2025-11",
      ]);
      // The skill's installed copy is not an output, and evals/ never reached the agent.
      expect(existsSync(join(dir, "outputs", ".agents"))).toBe(false);
      expect(readJson<RunAnswer>(join(dir, "answer.json")).skills_activated, engine).toEqual(["top-months"]);
      const without = readJson<RunAnswer>(join(iteration, "eval-1", "without_skill", engine, "answer.json"));
      expect(without.skills_activated, engine).toEqual([]);
      const timing = readJson<{ total_tokens: number; duration_ms: number }>(join(dir, "timing.json"));
      expect(timing.total_tokens).toBeGreaterThan(0);
      expect(timing.duration_ms).toBeGreaterThan(0);
    }
  });

  it("writes the specification's benchmark.json with the delta, overall and per engine", () => {
    const benchmark = readJson<Benchmark>(join(iteration, "benchmark.json"));
    expect(benchmark.metadata.engines).toEqual([...ENGINES]);
    expect(benchmark.runs).toHaveLength(2 * 2 * ENGINES.length);
    const summary = benchmark.run_summary;
    // with_skill: 1 and 1; without_skill: 0.5 (four of eight) and 0.
    expect(summary.with_skill?.pass_rate.mean).toBe(1);
    expect(summary.without_skill?.pass_rate.mean).toBe(0.25);
    expect(summary.delta?.pass_rate).toBe(0.75);
    for (const engine of ENGINES) expect(benchmark.by_engine[engine]?.delta?.pass_rate, engine).toBe(0.75);
  });

  it("writes the trigger rates: the skill fires for a ranking request and not for the near misses, on every engine", () => {
    const report = readJson<TriggerReport>(join(iteration, "triggers.json"));
    expect(report.runs_per_query).toBe(3);
    expect(report.queries).toHaveLength(4 * ENGINES.length);
    for (const q of report.queries) {
      expect(q.trigger_rate, `${q.engine}: ${q.query}`).toBe(q.should_trigger ? 1 : 0);
      expect(q.passed).toBe(true);
      expect(["train", "validation"]).toContain(q.split);
    }
    // The split is per query, the same on every engine.
    const splits = new Map(report.queries.map((q) => [q.query, q.split]));
    for (const q of report.queries) expect(q.split).toBe(splits.get(q.query));
  });
});
