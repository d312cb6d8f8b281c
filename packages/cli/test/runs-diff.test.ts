/**
 * `skillrig runs diff` over runs `skillrig test` recorded in the test: the receipt parser's correct script, then its
 * buggy one (exit 1: cases that passed fail now), the other way round (exit 0), `latest~N`, `--changed-only`, and
 * what cannot be compared (exit 2, saying why): an unknown id, a suite against one task, a report that breaks its shape.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../view/test/support/cli.js";

const examples = resolve(__dirname, "../../../examples");

/** The built CLI with the test's runs folder (the view tests' helper: spawns dist/bin.js, asynchronously). */
const skillrig = (args: string[], cwd: string, runsDir: string) =>
  runCli(args, { cwd, env: { NO_COLOR: "1", SKILLRIG_RUNS_DIR: runsDir } });

describe("skillrig runs diff", () => {
  const runs = mkdtempSync(join(tmpdir(), "skillrig-runs-diff-"));
  const receipt = join(examples, "oracle-receipt-parser");
  const diff = (...args: string[]) => skillrig(["runs", "diff", ...args], receipt, runs);
  let correct: string;
  let buggy: string;
  let buggyReport: { cases: Array<{ name: string; status: string }> };

  beforeAll(async () => {
    // One after the other: `latest` is the newest by start time.
    expect((await skillrig(["test", "task.json", "--deliverable", "correct"], receipt, runs)).code).toBe(0);
    expect((await skillrig(["test", "task.json", "--deliverable", "buggy"], receipt, runs)).code).toBe(1);
    const list = JSON.parse((await skillrig(["runs", "list", "--json"], receipt, runs)).stdout).runs as Array<{ id: string }>;
    [buggy, correct] = [list[0]!.id, list[1]!.id];
    buggyReport = JSON.parse(readFileSync(join(runs, buggy, "report.json"), "utf8"));
  }, 120_000);

  it("exit 1 when cases that passed fail now; the JSON names each and the deltas", async () => {
    const r = await diff(correct, buggy, "--json");
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    const failing = buggyReport.cases.filter((c) => c.status !== "passed").map((c) => c.name);
    expect(failing.length).toBeGreaterThan(0);
    expect(out.before.id).toBe(correct);
    expect(out.after.id).toBe(buggy);
    expect(out.regression).toBe(true);
    expect(out.cases.filter((c: { regression: boolean }) => c.regression).map((c: { case: string }) => c.case)).toEqual(failing);
    expect(out.pass_rate).toMatchObject({ of: "cases", before: 1 });
    expect(out.pass_rate.delta).toBeLessThan(0);

    // The table: one row per case, regressions first; the same comparison by `latest~1 latest`.
    const human = await diff("latest~1", "latest");
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`${correct} -> ${buggy}`);
    expect(human.stdout).toMatch(new RegExp(`regression\\s+oracle-receipt-parser\\s+-\\s+${failing[0]}\\s+passed\\s+failed`));
    expect(human.stdout).toContain(`${failing.length} regression(s), 0 fixed`);
  });

  it("exit 0 the other way round; --changed-only leaves out the cases that kept their status", async () => {
    const r = await diff(buggy, correct, "--json", "--changed-only");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.regression).toBe(false);
    expect(out.cases.every((c: { change: string }) => c.change === "fixed")).toBe(true);
    expect(out.cases).toHaveLength(out.counts.fixed);
    expect(out.counts.same).toBeGreaterThan(0);
    const human = await diff(buggy, correct, "--changed-only");
    expect(human.stdout).not.toMatch(/^same\s/m);
    expect((await diff(buggy, correct)).stdout).toMatch(/^same\s/m);
  });

  it("exit 2 for an id that names no run, runs of different kinds, and a report that breaks its shape", async () => {
    const unknown = await diff("20990101T000000Z-test-nothing-000000", "latest");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no recorded run "20990101T000000Z-test-nothing-000000"');
    expect((await diff("latest~7", "latest")).stderr).toContain("so no latest~7");

    const suite = await skillrig(["test", "tasks", "--deliverable", "solutions"], join(examples, "suite-mini"), runs);
    expect(suite.code, suite.stderr).toBe(0);
    const kinds = await diff(correct, "latest");
    expect(kinds.code).toBe(2);
    expect(kinds.stderr).toContain("cannot compare a one-task test report (before) with a suite report (after)");

    const broken = JSON.parse(readFileSync(join(runs, buggy, "report.json"), "utf8"));
    broken.cases[1].status = 7;
    writeFileSync(join(runs, buggy, "report.json"), JSON.stringify(broken));
    const bad = await diff(correct, buggy);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`run "${buggy}": the after report: /cases/1/status must be a string`);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
