/**
 * `skillrig eval` through the CLI binary: bad evals are exit 2 with the file and the JSON pointer before anything
 * runs; a real eval (the real Gemini CLI against the mock model, packages/evals' e2e fixture) prints the table and
 * exits 0, and 1 with a --min-pass-rate the with-skill runs do not meet (then --json is the benchmark).
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillrig } from "./cli-process.js";

const REPO = resolve(__dirname, "../../..");
const bin = join(REPO, "packages/cli/dist/bin.js");
const fixture = join(REPO, "packages/evals/test/fixtures/eval-run");

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "skillrig-eval-cli-"));
  cpSync(join(fixture, "csv-total"), join(dir, "skills", "csv-total"), { recursive: true });
  writeFileSync(
    join(dir, "skillrig.config.json"),
    JSON.stringify({
      plugins: [
        [
          join(REPO, "plugins/engine-gemini/dist/index.js"),
          { approval_mode: "yolo", mock_scenario: join(fixture, "scenario.json"), timeout_ms: 120000 },
        ],
      ],
      skills: { roots: ["skills"] },
      runs_dir: "runs",
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("skillrig eval", () => {
  it("bad evals: exit 2, every problem with the file and the pointer, no job run", async () => {
    const bad = mkdtempSync(join(tmpdir(), "skillrig-eval-bad-"));
    try {
      cpSync(join(fixture, "csv-total"), join(bad, "csv-total"), { recursive: true });
      const file = join(bad, "csv-total", "evals", "evals.json");
      writeFileSync(
        file,
        JSON.stringify({ skill_name: "other", evals: [{ id: 1, prompt: "p", files: ["../x.csv"], assertions: [{ kind: "nope" }] }] }),
      );
      const r = await skillrig(["eval", "./csv-total", "--engine", "gemini", "--config", join(dir, "skillrig.config.json")], bad);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error[invalid_skill]: evals/evals.json of skill "csv-total" has 3 problems`);
      expect(r.stderr).toContain('/skill_name: is "other" but the skill is "csv-total"');
      expect(r.stderr).toContain('/evals/0/files/0: "../x.csv" must not contain ".."');
      expect(r.stderr).toContain('/evals/0/assertions/0/kind: unknown assertion kind "nope"');
      expect(r.stderr).toContain(file);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
      expect(existsSync(join(bad, "runs"))).toBe(false);
      // A skill with no evals at all: where it looked.
      rmSync(file);
      const none = await skillrig(["eval", "./csv-total", "--config", join(dir, "skillrig.config.json")], bad);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain(`${file} does not exist`);
      expect(none.stderr).toContain("docs/evals.md");
      // Evals that grade nothing: exit 2 naming the case, never a pass (issue 38).
      writeFileSync(file, JSON.stringify({ skill_name: "csv-total", evals: [{ id: 1, prompt: "p", assertions: [] }] }));
      const vacuous = await skillrig(["eval", "./csv-total", "--engine", "gemini", "--config", join(dir, "skillrig.config.json")], bad);
      expect(vacuous.code).toBe(2);
      expect(vacuous.stderr).toContain("/evals/0/assertions: grades nothing: a case needs at least one assertion");
      expect(vacuous.stderr).toContain(file);
      expect(existsSync(join(bad, "runs"))).toBe(false);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it("a skill with assets/runner.json: exit 2, eval runs plain Agent Skills (its jobs would refuse the case's prompt)", async () => {
    const other = mkdtempSync(join(tmpdir(), "skillrig-eval-runner-"));
    try {
      cpSync(join(REPO, "examples/hello-skill/skills/word-stats"), join(other, "word-stats"), { recursive: true });
      cpSync(join(fixture, "csv-total", "evals"), join(other, "word-stats", "evals"), { recursive: true });
      const r = await skillrig(["eval", "./word-stats", "--config", join(dir, "skillrig.config.json")], other);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('skill "word-stats" has assets/runner.json: skillrig eval runs plain Agent Skills');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("--help lists its options and exit codes", async () => {
    const r = await skillrig(["eval", "--help"], dir);
    expect(r.code).toBe(0);
    for (const option of [
      "--engine",
      "--runs",
      "--baseline",
      "--judge",
      "--judge-prompt",
      "--out",
      "--jobs",
      "--min-pass-rate",
      "--trigger-runs",
      "--no-triggers",
      "--fail-on",
      "--against",
      "--reporter",
      "--report-file",
    ])
      expect(r.stdout).toContain(option);
    expect(r.stdout).toContain("2 invalid input, config or usage");
    expect(r.stdout).toContain("is `finished`, never `passed`");
  });

  it("bad options: exit 2 naming the option", async () => {
    for (const [args, text] of [
      [["--trigger-runs", "2"], "--trigger-runs 2: expected a whole number of at least 3"],
      [["--min-pass-rate", "1.5"], "--min-pass-rate 1.5: expected a number from 0 to 1"],
      [["--engine", "nope"], '"nope"'],
      [["--fail-on", "often"], '--fail-on "often": expected one of regression, significant, never'],
      [["--reporter", "html"], '--reporter "html": expected junit or markdown'],
      [["--against", "0"], "--against 0: expected a whole number of at least 1"],
      [["--max-tokens", "1.5"], "--max-tokens 1.5: expected a positive whole number"],
      [["--max-cost-usd", "0"], "--max-cost-usd 0: expected a positive number"],
    ] as const) {
      // Asynchronously: nine synchronous runs in a row would hold the test worker past vitest's RPC timeout.
      const r = await skillrig(["eval", "csv-total", ...args], dir);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(text);
    }
  });

  it("bad --configs and --distractors: exit 2 naming the option, before any run (no iteration folder)", async () => {
    const out = mkdtempSync(join(tmpdir(), "skillrig-eval-configs-"));
    writeFileSync(join(out, "not-a-folder"), "");
    for (const [args, text] of [
      [["--configs", "with_skill,inline"], '--configs with_skill,inline: "inline" is not a configuration'],
      [["--configs", "without_skill,inline_skill"], "with_skill must be one of them"],
      [["--configs", "with_skill,old_skill"], "old_skill needs --baseline"],
      [["--distractors", join(out, "absent")], "is not a folder"],
      [["--distractors", out], "no skill folder in it"],
      [["--distractors", join(dir, "skills"), "--no-triggers"], "distractors are for trigger evals, and --no-triggers skips them"],
    ] as const) {
      const r = await skillrig(["eval", "csv-total", "--out", join(out, "eval"), ...args], dir);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(text);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    expect(existsSync(join(out, "eval"))).toBe(false);
    rmSync(out, { recursive: true, force: true });
  });

  it("a real eval: progress lines, the table with the delta, exit 0; below --min-pass-rate exit 1 with --json the benchmark", async () => {
    const first = await skillrig(["eval", "csv-total", "--no-triggers", "--jobs", "2"], dir);
    expect(first.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/\[eval\] eval-1 with_skill run 1: 2\/3 passed/);
    expect(first.stderr).toMatch(/\[eval\] eval-1 without_skill run 1: 0\/3 passed/);
    expect(first.stderr).toContain("plain-string assertions need a judge");
    expect(first.stdout).toMatch(/^case\s+with_skill\s+without_skill$/m);
    expect(first.stdout).toMatch(/^eval-1\s+67%\s+0%$/m);
    expect(first.stdout).toContain(
      "delta with_skill vs without_skill: pass rate 67% vs 0% (+66.67 pts; 95% CI 66.7 to 66.7 pts, p = 1, 1 pair)",
    );
    expect(first.stdout).toContain(join("runs", "eval-csv-total", "iteration-1"));
    expect(first.stdout).toContain("no earlier iteration to compare with");
    // No gate: the iteration finished, it did not pass.
    expect(first.stderr).toContain("finished (no gate");
    const iteration1 = JSON.parse(readFileSync(join(dir, "runs", "eval-csv-total", "iteration-1", "iteration.json"), "utf8"));
    expect(iteration1.status).toBe("finished");

    const second = await skillrig(["--json", "eval", "csv-total", "--no-triggers", "--jobs", "2", "--min-pass-rate", "0.9"], dir);
    expect(second.code, second.stderr).toBe(1);
    const out = JSON.parse(second.stdout);
    expect(out).toMatchObject({ iteration: 2, passed: false, status: "failed" });
    // Compared with iteration 1: the same numbers, nothing fell.
    expect(out.comparison).toMatchObject({ before: 1, after: 2, regression: false });
    expect(out.comparison.configurations[0]).toMatchObject({
      configuration: "with_skill",
      pass_rate: { before: 0.6667, after: 0.6667, delta: 0, ci95: [0, 0], p_value: 1, pairs: 1 },
    });
    expect(out.benchmark.by_eval).toEqual([
      { eval_id: 1, configuration: "with_skill", pass_rate: 0.6667 },
      { eval_id: 1, configuration: "without_skill", pass_rate: 0 },
    ]);
  });

  it("--max-tokens: the first run is capped to the budget and stopped, the next never starts; error cost_limit, exit 1, files kept", async () => {
    const r = await skillrig(
      ["eval", "csv-total", "--no-triggers", "--out", "budget-eval", "--min-pass-rate", "0", "--max-tokens", "1"],
      dir,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("error[cost_limit]: eval iteration 1 stopped: the invocation's token budget is spent");
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    // The results so far are printed: the table is there.
    expect(r.stdout).toMatch(/^case\s+with_skill\s+without_skill$/m);
    const iteration = join(dir, "budget-eval", "iteration-1");
    const record = JSON.parse(readFileSync(join(iteration, "iteration.json"), "utf8"));
    expect(record).toMatchObject({ status: "error", stopped: { code: "cost_limit" } });
    const answer = (c: string) => JSON.parse(readFileSync(join(iteration, "eval-1", c, "answer.json"), "utf8"));
    expect(answer("with_skill")).toMatchObject({ status: "failed", error: { code: "cost_limit" } });
    expect(answer("without_skill")).toMatchObject({ status: "canceled", error: { code: "cost_limit" } });
  });

  it("a worse agent: --fail-on regression compares with the iteration before, exit 1; junit and markdown reports", async () => {
    const worse = join(dir, "worse.scenario.json");
    const scenario = JSON.parse(readFileSync(join(fixture, "scenario.json"), "utf8"));
    // With the skill the agent now writes a wrong total: every with_skill assertion fails.
    scenario.branches[0].turns[1].write_file.content = "41\n";
    scenario.branches[0].turns[2].text = "The total amount is 41.";
    writeFileSync(worse, JSON.stringify(scenario));
    const config = join(dir, "worse.config.json");
    const base = JSON.parse(readFileSync(join(dir, "skillrig.config.json"), "utf8"));
    base.plugins[0][1].mock_scenario = worse;
    writeFileSync(config, JSON.stringify(base));
    const r = await skillrig(
      [
        "--config",
        config,
        "eval",
        "csv-total",
        "--no-triggers",
        "--jobs",
        "2",
        "--fail-on",
        "regression",
        "--reporter",
        "junit",
        "--reporter",
        "markdown",
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("against iteration 2:");
    expect(r.stdout).toMatch(/^ {2}with_skill 66\.7% -> 0% \(-66\.7 pts, 95% CI -66\.7 to -66\.7 pts, p = 1, 1 pair\)$/m);
    expect(r.stdout).toContain("  eval-1 with_skill fell: 66.7% -> 0%");
    expect(r.stdout).toContain("REGRESSION: a case's with_skill pass rate fell (not significant)");
    expect(r.stderr).toContain("failed: a case's with_skill pass rate fell against iteration 2 (--fail-on regression)");
    const iteration = join(dir, "runs", "eval-csv-total", "iteration-3");
    expect(JSON.parse(readFileSync(join(iteration, "iteration.json"), "utf8"))).toMatchObject({
      status: "failed",
      fail_on: "regression",
      compared_with: 2,
    });
    expect(JSON.parse(readFileSync(join(iteration, "comparison.json"), "utf8"))).toMatchObject({ before: 2, after: 3, regression: true });
    const junit = readFileSync(join(iteration, "junit.xml"), "utf8");
    expect(junit).toContain('<testsuites name="skillrig eval csv-total iteration 3" tests="2" failures="2" errors="0">');
    expect(junit).toMatch(
      /<testcase classname="csv-total.with_skill" name="eval-1 with_skill gemini" time="[0-9.]+"><failure message="3 assertion\(s\) failed">/,
    );
    expect(junit).toContain("total.txt holds 42.5 (file_contains)");
    const markdown = readFileSync(join(iteration, "summary.md"), "utf8");
    expect(markdown).toContain("**REGRESSION against iteration 2: a case's with_skill pass rate fell**");
    expect(markdown).toContain("| with_skill | 66.7% | 0% | -66.7 pts | -66.7 to -66.7 pts | 1 | 1 |");

    // --against names another iteration; one that does not exist is exit 2 before anything runs.
    const missing = await skillrig(["eval", "csv-total", "--no-triggers", "--against", "9"], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--against 9:");
    expect(missing.stderr).toContain("has no iteration-9 with a benchmark.json (it has 1, 2, 3)");
  });

  it("Ctrl-C: the running jobs are canceled, the run's files still written, iteration.json says error, exit 130", async () => {
    const hang = mkdtempSync(join(tmpdir(), "skillrig-eval-cancel-"));
    try {
      cpSync(join(fixture, "csv-total"), join(hang, "skills", "csv-total"), { recursive: true });
      writeFileSync(
        join(hang, "skillrig.config.json"),
        JSON.stringify({
          plugins: [
            [join(REPO, "plugins/engine-gemini/dist/index.js"), { mock_scenario: { turns: [{ hang: true }] }, timeout_ms: 300000 }],
          ],
          skills: { roots: ["skills"] },
          runs_dir: "runs",
        }),
      );
      const child = spawn(process.execPath, [bin, "eval", "csv-total", "--jobs", "2"], { cwd: hang, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
      const iteration = join(hang, "runs", "eval-csv-total", "iteration-1");
      // Wait until both engines are running (each job's event log has the CLI's status line), then press Ctrl-C.
      const started = () => {
        const jobs = existsSync(join(iteration, "jobs")) ? readdirSync(join(iteration, "jobs")) : [];
        return jobs.filter((j) => {
          const events = join(iteration, "jobs", j, "logs", "events.jsonl");
          return existsSync(events) && /Gemini CLI \d/.test(readFileSync(events, "utf8"));
        }).length;
      };
      for (let i = 0; started() < 2; i++) {
        if (i > 1200 || child.exitCode !== null) throw new Error(`the engines did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill("SIGINT");
      expect(await exited, stderr).toBe(130);
      expect(stderr).toContain("SIGINT: canceling the eval's jobs");
      expect(JSON.parse(readFileSync(join(iteration, "iteration.json"), "utf8"))).toMatchObject({ status: "error" });
      for (const configuration of ["with_skill", "without_skill"]) {
        const answer = JSON.parse(readFileSync(join(iteration, "eval-1", configuration, "answer.json"), "utf8"));
        expect(answer.status, configuration).toBe("canceled");
        const grading = JSON.parse(readFileSync(join(iteration, "eval-1", configuration, "grading.json"), "utf8"));
        expect(grading.summary.pass_rate).toBe(0);
        expect(grading.assertion_results[0].evidence).toMatch(/^the run canceled/);
      }
      // No trigger run started after the cancel.
      expect(existsSync(join(iteration, "triggers.json"))).toBe(false);
    } finally {
      rmSync(hang, { recursive: true, force: true });
    }
  });
});
