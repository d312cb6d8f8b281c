/**
 * End to end: the inline_skill configuration and trigger evals among neighbours (--distractors), run by the real
 * Gemini CLI against the mock model (test/fixtures/inline-distractors). The mock agent writes the right total only
 * when the skill is inlined with its referenced file (a marker in references/format.md) or installed; among
 * neighbours it picks csv-total for one of csv-total's queries and csv-average for the other, and csv-average's
 * queries the other way round (one stolen). Checked on disk: each arm's workspace (nothing installed for
 * inline_skill), its prompt, benchmark.json's pair deltas, triggers.json's fired skills and confusion table.
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
import { loadDistractors } from "../src/distractors.js";
import type { Benchmark, IterationRecord, RunAnswer, TriggerReport } from "../src/format.js";
import { builtinAssertionKinds, gradeRun } from "../src/index.js";
import { loadEvals, loadTriggers } from "../src/load-evals.js";
import { runIteration, type IterationResult } from "../src/run-iteration.js";

const fixtures = resolve(fileURLToPath(new URL("./fixtures/inline-distractors", import.meta.url)));
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;

let dir: string;
let result: IterationResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evals-inline-"));
  cpSync(fixtures, dir, { recursive: true });
  const runner = new Runner({ cwd: dir })
    .use(
      new GeminiEnginePlugin({ approval_mode: "yolo", mock_scenario: loadScenario(join(fixtures, "scenario.json")), timeout_ms: 120_000 }),
    )
    .use(skillProtocolPlugin())
    .use(sandboxPlugin())
    .use(builtinAssertionKinds());
  const skill = loadSkill(join(dir, "csv-total"));
  try {
    result = await runIteration({
      runner,
      skill,
      evals: loadEvals(skill),
      configurations: ["with_skill", "without_skill", "inline_skill"],
      triggers: loadTriggers(skill),
      distractors: loadDistractors(join(dir, "neighbours"), skill),
      triggerRuns: 3,
      engines: ["gemini"],
      jobs: 2,
      evalDir: join(dir, "runs", "eval-csv-total"),
      gradeRun,
    });
  } finally {
    await runner.close();
  }
}, 900_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answerOf = (configuration: string) => readJson<RunAnswer>(join(result.dir, "eval-1", configuration, "answer.json"));

describe("the inline_skill configuration on gemini", () => {
  it("nothing is installed in its workspace: no .agents/skills, no .claude/skills, no gemini skill policy", () => {
    const inline = answerOf("inline_skill");
    expect(inline.status).toBe("succeeded");
    expect(inline.skills_activated).toEqual([]);
    const workspace = join(inline.job_dir, "workspace");
    expect(existsSync(workspace)).toBe(true);
    expect(existsSync(join(workspace, ".agents"))).toBe(false);
    expect(existsSync(join(workspace, ".claude"))).toBe(false);
    expect(existsSync(join(inline.job_dir, "engine", "gemini", "home", ".gemini", "policies"))).toBe(false);
    // The with_skill arm of the same iteration did install it (the check above can fail).
    const withSkill = answerOf("with_skill");
    expect(existsSync(join(withSkill.job_dir, "workspace", ".agents", "skills", "csv-total", "SKILL.md"))).toBe(true);
  });

  it("its prompt: SKILL.md and the referenced file, then the case's prompt; never evals/ or a file outside the skill", () => {
    const prompt = readFileSync(join(answerOf("inline_skill").job_dir, "prompt.md"), "utf8");
    expect(prompt).toContain("### SKILL.md");
    expect(prompt).toContain("Sum the amount column of an orders CSV");
    expect(prompt).toContain("### references/format.md");
    expect(prompt).toContain("FORMAT-REFERENCE-MARKER");
    expect(prompt.trimEnd().endsWith("What is the total amount in orders.csv? Write it to total.txt.")).toBe(true);
    expect(prompt).not.toContain('"skill_name"');
    expect(prompt).not.toContain("outside the skill");
    const record = readJson<IterationRecord>(join(result.dir, "iteration.json"));
    expect(record.configurations).toEqual(["with_skill", "without_skill", "inline_skill"]);
    expect(record.inline_skill?.files.map((f) => f.path)).toEqual(["SKILL.md", "references/format.md", "scripts/total.py"]);
    expect(record.inline_skill?.left_out).toEqual([
      { path: "evals/evals.json", reason: "in the skill's evals/ folder, which the agent never sees" },
      { path: "../outside.md", reason: "outside the skill folder" },
    ]);
  });

  it("benchmark.json: the three configurations, the specification's delta, and each pair's delta with its interval", () => {
    const benchmark = readJson<Benchmark>(join(result.dir, "benchmark.json"));
    expect(benchmark.metadata.configurations).toEqual(["with_skill", "without_skill", "inline_skill"]);
    expect(benchmark.by_eval).toEqual([
      { eval_id: 1, configuration: "with_skill", pass_rate: 0.6667 },
      { eval_id: 1, configuration: "without_skill", pass_rate: 0 },
      { eval_id: 1, configuration: "inline_skill", pass_rate: 0.6667 },
    ]);
    expect(benchmark.run_summary.delta?.of).toEqual(["with_skill", "without_skill"]);
    const across = (benchmark.deltas ?? []).filter((d) => d.engine === null);
    expect(across.map((d) => [d.of, d.pass_rate])).toEqual([
      [["with_skill", "inline_skill"], 0],
      [["with_skill", "without_skill"], 0.6667],
      [["inline_skill", "without_skill"], 0.6667],
    ]);
    expect(across[2]!.paired?.pass_rate).toMatchObject({ before: 0, after: 0.6667, pairs: 1 });
    expect((benchmark.deltas ?? []).filter((d) => d.engine === "gemini")).toHaveLength(3);
  });
});

describe("trigger evals among neighbours (--distractors) on gemini", () => {
  it("each run records the skill that fired first; the skill under test triggers only when it was picked", () => {
    const report = readJson<TriggerReport>(join(result.dir, "triggers.json"));
    const own = Object.fromEntries(report.queries.map((q) => [q.query, q]));
    expect(own["please add up the amount column of my orders file"]).toMatchObject({
      triggers: 3,
      fired: ["csv-total", "csv-total", "csv-total"],
    });
    expect(own["sum up the order amounts for me"]).toMatchObject({
      triggers: 0,
      passed: false,
      fired: ["csv-average", "csv-average", "csv-average"],
    });
    expect(own["what is the capital of France?"]).toMatchObject({ triggers: 0, passed: true, fired: [null, null, null] });
    // The neighbour's should_trigger queries ran too, beside the skill's; its near miss did not.
    const theirs = Object.fromEntries(report.distractors!.queries.map((q) => [q.query, q]));
    expect(Object.keys(theirs).sort()).toEqual([
      "how much do my orders come to on average and in sum?",
      "what is the average order amount in my orders file?",
    ]);
    expect(theirs["how much do my orders come to on average and in sum?"]).toMatchObject({
      owner: "csv-average",
      runs: 3,
      fired: ["csv-total", "csv-total", "csv-total"],
    });
    expect(report.distractors!.skills).toEqual([{ name: "csv-average", path: join(dir, "neighbours", "csv-average"), queries: 2 }]);
  });

  it("the confusion table: how often csv-total was picked on its queries, how often it fired on the neighbour's", () => {
    const report = readJson<TriggerReport>(join(result.dir, "triggers.json"));
    const [table] = report.distractors!.confusion;
    expect(table!.engine).toBe("gemini");
    expect(table!.rows).toEqual([
      { owner: "csv-total", fired: { "csv-total": 3, "csv-average": 3 }, none: 0, n: 6 },
      { owner: "csv-average", fired: { "csv-total": 3, "csv-average": 3 }, none: 0, n: 6 },
    ]);
    expect(table!.picked).toMatchObject({ count: 3, n: 6, rate: 0.5 });
    expect(table!.fired_on_neighbours).toMatchObject({ count: 3, n: 6, rate: 0.5 });
    expect(table!.picked.ci95![0]).toBeLessThan(0.5);
    expect(table!.picked.ci95![1]).toBeGreaterThan(0.5);
  });

  it("the neighbour was installed beside the skill, without its evals/, where gemini and Claude Code look", () => {
    const report = readJson<TriggerReport>(join(result.dir, "triggers.json"));
    const job = report.queries[0]!.jobs[0]!;
    const workspace = join(result.dir, "jobs", job, "workspace");
    for (const where of [join(".agents", "skills"), join(".claude", "skills")]) {
      expect(existsSync(join(workspace, where, "csv-average", "SKILL.md")), where).toBe(true);
      expect(existsSync(join(workspace, where, "csv-average", "evals")), where).toBe(false);
    }
  });
});
