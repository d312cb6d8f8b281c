/**
 * `skillrig eval` through the CLI binary: bad evals are exit 2 with the file and the JSON pointer before anything
 * runs; a real eval (the real Gemini CLI against the mock model, packages/evals' e2e fixture) prints the table and
 * exits 0, and 1 with a --min-pass-rate the with-skill runs do not meet (then --json is the benchmark).
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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

/** The binary, asynchronously (a spawnSync would hold the test worker for minutes). */
function skillrig(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("skillrig eval", () => {
  it("bad evals: exit 2, every problem with the file and the pointer, no job run", () => {
    const bad = mkdtempSync(join(tmpdir(), "skillrig-eval-bad-"));
    try {
      cpSync(join(fixture, "csv-total"), join(bad, "csv-total"), { recursive: true });
      const file = join(bad, "csv-total", "evals", "evals.json");
      writeFileSync(
        file,
        JSON.stringify({ skill_name: "other", evals: [{ id: 1, prompt: "p", files: ["../x.csv"], assertions: [{ kind: "nope" }] }] }),
      );
      const r = spawnSync(
        process.execPath,
        [bin, "eval", "./csv-total", "--engine", "gemini", "--config", join(dir, "skillrig.config.json")],
        {
          cwd: bad,
          encoding: "utf8",
        },
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`error[invalid_skill]: evals/evals.json of skill "csv-total" has 3 problems`);
      expect(r.stderr).toContain('/skill_name: is "other" but the skill is "csv-total"');
      expect(r.stderr).toContain('/evals/0/files/0: "../x.csv" must not contain ".."');
      expect(r.stderr).toContain('/evals/0/assertions/0/kind: unknown assertion kind "nope"');
      expect(r.stderr).toContain(file);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
      expect(existsSync(join(bad, "runs"))).toBe(false);
      // A skill with no evals at all: where it looked.
      rmSync(file);
      const none = spawnSync(process.execPath, [bin, "eval", "./csv-total", "--config", join(dir, "skillrig.config.json")], {
        cwd: bad,
        encoding: "utf8",
      });
      expect(none.status).toBe(2);
      expect(none.stderr).toContain(`${file} does not exist`);
      expect(none.stderr).toContain("docs/evals.md");
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it("a skill with assets/runner.json: exit 2, eval runs plain Agent Skills (its jobs would refuse the case's prompt)", () => {
    const other = mkdtempSync(join(tmpdir(), "skillrig-eval-runner-"));
    try {
      cpSync(join(REPO, "examples/hello-skill/skills/word-stats"), join(other, "word-stats"), { recursive: true });
      cpSync(join(fixture, "csv-total", "evals"), join(other, "word-stats", "evals"), { recursive: true });
      const r = spawnSync(process.execPath, [bin, "eval", "./word-stats", "--config", join(dir, "skillrig.config.json")], {
        cwd: other,
        encoding: "utf8",
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('skill "word-stats" has assets/runner.json: skillrig eval runs plain Agent Skills');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("--help lists its options and exit codes", () => {
    const r = spawnSync(process.execPath, [bin, "eval", "--help"], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(0);
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
    ])
      expect(r.stdout).toContain(option);
    expect(r.stdout).toContain("1 one is below, 2 invalid input");
  });

  it("bad options: exit 2 naming the option", () => {
    for (const [args, text] of [
      [["--trigger-runs", "2"], "--trigger-runs 2: expected a whole number of at least 3"],
      [["--min-pass-rate", "1.5"], "--min-pass-rate 1.5: expected a number from 0 to 1"],
      [["--engine", "nope"], '"nope"'],
    ] as const) {
      const r = spawnSync(process.execPath, [bin, "eval", "csv-total", ...args], { cwd: dir, encoding: "utf8" });
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(text);
    }
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
    expect(first.stdout).toContain("delta with_skill vs without_skill: pass rate 67% vs 0% (+66.67 pts)");
    expect(first.stdout).toContain(join("runs", "eval-csv-total", "iteration-1"));

    const second = await skillrig(["--json", "eval", "csv-total", "--no-triggers", "--jobs", "2", "--min-pass-rate", "0.9"], dir);
    expect(second.code, second.stderr).toBe(1);
    const out = JSON.parse(second.stdout);
    expect(out).toMatchObject({ iteration: 2, passed: false });
    expect(out.benchmark.by_eval).toEqual([
      { eval_id: 1, configuration: "with_skill", pass_rate: 0.6667 },
      { eval_id: 1, configuration: "without_skill", pass_rate: 0 },
    ]);
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
