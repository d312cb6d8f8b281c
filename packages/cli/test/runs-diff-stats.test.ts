/**
 * `skillrig runs diff` on suites recorded in the test (issue 39): a task whose pass rate fell because of new failing
 * samples placed before the old ones is a regression (exit 1, the task and the samples named), not "added" rows;
 * two runs of identical samples give an interval containing 0 and pass `--fail-on significant`; a run compared with
 * itself says so; `--reporter markdown` writes the pull-request summary; `--fail-on` refuses other words.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../view/test/support/cli.js";

const suite = resolve(__dirname, "../../../examples/suite-mini");
const line = (task_id: string, solution: string) => JSON.stringify({ task_id, solution });
const RIGHT_A = "def big_sum(numbers):\n    return sum(numbers)\n";
const RIGHT_B = "def big_sum(numbers):\n    total = 0\n    for n in numbers:\n        total += n\n    return total\n";
const SYNTAX_ERROR = "def big_sum(numbers)\n    return sum(numbers)\n";
const WRONG = "def big_sum(numbers):\n    return sum(numbers) + 1\n";
const ANY_INT =
  "def any_int(x, y, z):\n    if not all(type(v) is int for v in (x, y, z)):\n        return False\n    return x + y == z or x + z == y or y + z == x\n";
const RUN_LENGTH_PATH = JSON.stringify({ task_id: "run-length", path: join(suite, "solutions", "run-length.py") });

describe("runs diff: regressions that count, statistics, the gate", () => {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-runs-diff-stats-"));
  const runs = join(dir, "runs");
  const skillrig = (args: string[]) => runCli(args, { cwd: dir, env: { NO_COLOR: "1", SKILLRIG_RUNS_DIR: runs } });
  const ids: string[] = [];

  const record = async (name: string, lines: string[]) => {
    writeFileSync(join(dir, name), `${lines.join("\n")}\n`);
    const r = await skillrig(["test", join(suite, "tasks"), "--samples", name]);
    expect([0, 1], r.stderr).toContain(r.code);
    const list = JSON.parse((await skillrig(["runs", "list", "--json"])).stdout).runs as Array<{ id: string }>;
    ids.push(list[0]!.id);
  };

  beforeAll(async () => {
    const common = [line("any-int", ANY_INT), RUN_LENGTH_PATH];
    // One after the other: each is the newest when it is listed.
    await record("before.jsonl", [...common, line("big-sum", RIGHT_A), line("big-sum", RIGHT_B)]);
    await record("again.jsonl", [...common, line("big-sum", RIGHT_A), line("big-sum", RIGHT_B)]);
    // The same two programs, now behind a new sample that does not compile and one that is wrong.
    await record("after.jsonl", [
      ...common,
      line("big-sum", SYNTAX_ERROR),
      line("big-sum", RIGHT_A),
      line("big-sum", WRONG),
      line("big-sum", RIGHT_B),
    ]);
  }, 300_000);

  it("a task that fell through new failing samples: exit 1, the task first, its samples named by their place in the samples file", async () => {
    const [before, , after] = ids;
    const r = await skillrig(["runs", "diff", before!, after!, "--json"]);
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.regression).toBe(true);
    expect(out.counts.regressions).toBe(0);
    expect(out.task_changes[0]).toMatchObject({
      task_id: "big-sum",
      regression: true,
      pass_rate: { before: 1, after: 0.5, delta: -0.5, pairs: 2 },
    });
    expect(out.task_changes[0].causes.map((s: { sample: string; change: string }) => [s.sample, s.change])).toEqual([
      ["1", "new"],
      ["3", "new"],
    ]);
    // The two programs kept their results though they moved: matched by content, not position.
    const moved = out.samples.filter((s: { task_id: string; change: string }) => s.task_id === "big-sum" && s.change === "same");
    expect(
      moved.map((s: { sample: string; sample_before: string; matched_by: string }) => [s.sample, s.sample_before, s.matched_by]),
    ).toEqual([
      ["2", "1", "content"],
      ["4", "2", "content"],
    ]);
    // Every compared rate is the paired delta object.
    for (const rate of [out.pass_rate, ...out.pass_at_k]) {
      expect(Object.keys(rate)).toEqual(expect.arrayContaining(["before", "after", "delta", "ci95", "p_value", "pairs"]));
    }
    expect(out.pass_rate.pairs).toBe(3);

    const human = await skillrig(["runs", "diff", before!, after!]);
    expect(human.code).toBe(1);
    const lines = human.stdout.split("\n");
    expect(lines[1]).toBe("REGRESSION: 1 task(s) fell");
    expect(lines[2]).toMatch(
      /^task big-sum fell: pass rate 100% -> 50% \(-50 pts, 95% CI -?[0-9.]+ to -?[0-9.]+ pts, p = [0-9.]+, 2 pairs\)$/,
    );
    expect(human.stdout).toContain("  sample 1 (new): failed");
    expect(human.stdout).toContain("  sample 3 (new): failed");
    // The fall is real but rests on few pairs: not significant, so the significant gate passes.
    expect((await skillrig(["runs", "diff", before!, after!, "--fail-on", "significant"])).code).toBe(0);
    expect((await skillrig(["runs", "diff", before!, after!, "--fail-on", "never"])).code).toBe(0);
  });

  it("identical samples twice: an interval containing 0, exit 0 under --fail-on significant and regression", async () => {
    const [before, again] = ids;
    const r = await skillrig(["runs", "diff", before!, again!, "--json", "--fail-on", "significant"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.pass_rate).toMatchObject({ delta: 0, ci95: [0, 0], p_value: 1, pairs: 3 });
    expect(out.samples.every((s: { matched_by: string; change: string }) => s.matched_by === "content" && s.change === "same")).toBe(true);
    expect((await skillrig(["runs", "diff", before!, again!])).code).toBe(0);
  });

  it("a run compared with itself says so", async () => {
    const r = await skillrig(["runs", "diff", ids[0]!, ids[0]!]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[1]).toBe("comparing a run with itself: nothing can have changed");
  });

  it("--reporter markdown: the pull-request summary names the task and its samples", async () => {
    const r = await skillrig(["runs", "diff", ids[0]!, ids[2]!, "--reporter", "markdown"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("**REGRESSION: 1 task(s) fell**");
    expect(r.stdout).toContain("- **big-sum**: 100% -> 50% (-50 pts, 95% CI");
    expect(r.stdout).toContain("  - sample 1 (new): failed");
    expect(r.stdout).toMatch(/\| pass rate \(samples\) \| 100% \| [0-9.]+% \| -[0-9.]+ pts \| .+ \| [0-9.]+ \| 3 \|/);
  });

  it("--fail-on and --reporter refuse other words (exit 2)", async () => {
    const r = await skillrig(["runs", "diff", ids[0]!, ids[1]!, "--fail-on", "sometimes"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fail-on "sometimes": expected one of regression, significant, never');
    const m = await skillrig(["runs", "diff", ids[0]!, ids[1]!, "--reporter", "html"]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('--reporter "html": expected text or markdown');
  });
});
