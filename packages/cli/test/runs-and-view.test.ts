/**
 * Recording runs and looking at them: `skillrig test` records its report (and what the console shows of a
 * failing case: input, diff, traceback), `skillrig runs list|show|clean`, `skillrig view`, and the heartbeat.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startHeartbeat } from "../src/heartbeat.js";

const bin = resolve(__dirname, "../dist/bin.js");

/** The built CLI as a child process; asynchronous, so a slow run does not block the test worker's event loop. */
function skillrig(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("error", fail);
    child.on("close", (code) => ok({ code, stdout, stderr }));
  });
}

/** A project with a function task: one case passes, one returns a wrong value, one raises. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-runs-cli-"));
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({}));
  writeFileSync(
    join(dir, "task.json"),
    JSON.stringify({
      contract_version: "1.0",
      task_id: "parse-int",
      deliverable_type: "function",
      entrypoint: "parse",
      tests: [
        { name: "plain", input: ["12"], expected: 12 },
        { name: "wrong answer", input: ["7"], expected: 7 },
        { name: "raises", input: ["x"], expected: 0 },
      ],
    }),
  );
  mkdirSync(join(dir, "solution"));
  writeFileSync(
    join(dir, "solution", "solution.py"),
    "def helper(text):\n    return int(text)\n\ndef parse(text):\n    if text == '7':\n        return 8\n    return helper(text)\n",
  );
  return dir;
}

describe("recorded runs", () => {
  it("skillrig test prints a failing case's input, diff and traceback, and records the run with each case's input", async () => {
    const dir = project();
    const r = await skillrig(["test", "task.json", "--deliverable", "solution"], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('--- wrong answer (failed)\ninput: ["7"]');
    expect(r.stdout).toMatch(/-7\n\+8/);
    expect(r.stdout).toContain('--- raises (error)\ninput: ["x"]');
    expect(r.stdout).toMatch(/Traceback \(most recent call last\):[\s\S]*in helper[\s\S]*ValueError: invalid literal for int\(\)/);
    // NO_COLOR (and no terminal): no escape codes.
    expect(r.stdout).not.toContain("\u001b[");
    expect(r.stderr).toMatch(/recorded in .*\.skillrig\/runs\/\d{8}T\d{6}Z-test-parse-int-[0-9a-f]{6} /);

    const list = await skillrig(["runs", "list", "--json"], dir);
    expect(list.code).toBe(0);
    const runs = JSON.parse(list.stdout).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ kind: "test", name: "parse-int", status: "failed", passed: 1, total: 3, pass_rate: 0.3333 });
    expect((await skillrig(["runs", "list"], dir)).stdout).toMatch(/test\s+parse-int\s+-\s+failed\s+33\.3% \(1\/3\)/);

    const show = await skillrig(["runs", "show", runs[0].id, "--json"], dir);
    expect(show.code).toBe(0);
    const report = JSON.parse(show.stdout).report;
    expect(report.cases.map((c: { input: unknown }) => c.input)).toEqual([["12"], ["7"], ["x"]]);
    expect(report.cases[2].details.traceback).toContain("ValueError");
  });

  it("--no-record leaves the runs folder alone", async () => {
    const dir = project();
    expect((await skillrig(["test", "task.json", "--deliverable", "solution", "--no-record"], dir)).code).toBe(1);
    expect(existsSync(join(dir, ".skillrig", "runs"))).toBe(false);
    expect((await skillrig(["runs", "list"], dir)).stdout).toContain("no recorded runs");
  });

  it("a runs folder that cannot be written costs the record, not the report or the exit code", async () => {
    const dir = project();
    // A path under a regular file: mkdir fails (ENOTDIR) for root too, as EACCES does for another user.
    const r = await skillrig(["test", "task.json", "--deliverable", "solution", "--json"], dir, {
      SKILLRIG_RUNS_DIR: join(dir, "task.json", "runs"),
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ passed: 1, total: 3 });
    expect(r.stderr).toContain(`the run was not recorded: ${join(dir, "task.json", "runs")} cannot be written (ENOTDIR)`);
    expect(r.stderr).not.toMatch(/unhandled|unexpected error|\n\s+at /);
  });

  it("runs show and runs clean refuse what they cannot use, naming the option", async () => {
    const dir = project();
    const show = await skillrig(["runs", "show", "../../etc"], dir);
    expect(show.code).toBe(2);
    expect(show.stderr).toContain('no recorded run "../../etc"');
    const clean = await skillrig(["runs", "clean", "--older-than", "soon"], dir);
    expect(clean.code).toBe(2);
    expect(clean.stderr).toContain('--older-than "soon": expected a number and a unit');
    expect((await skillrig(["runs", "list", "--kind", "bench"], dir)).stderr).toContain('--kind "bench"');
  });

  it("runs clean --older-than removes old runs and Python environments, and --dry-run only lists them", async () => {
    const dir = project();
    const env = { SKILLRIG_RUNS_DIR: join(dir, "elsewhere") };
    expect((await skillrig(["test", "task.json", "--deliverable", "solution"], dir, env)).code).toBe(1);
    expect(readdirSync(join(dir, "elsewhere"))).toHaveLength(1);
    mkdirSync(join(dir, ".skillrig", "python-envs", "py3.11-abc"), { recursive: true });
    const kept = await skillrig(["runs", "clean", "--older-than", "1d"], dir, env);
    expect(kept.stdout).toContain("removed 0 run(s) and 0 Python environment(s) older than 1d");
    const dry = await skillrig(["runs", "clean", "--older-than", "0s", "--dry-run", "--json"], dir, env);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      dry_run: true,
      runs: [expect.stringContaining("-test-parse-int-")],
      python_envs: [expect.stringContaining("py3.11-abc")],
    });
    expect(readdirSync(join(dir, "elsewhere"))).toHaveLength(1);
    const gone = await skillrig(["runs", "clean", "--older-than", "0s"], dir, env);
    expect(gone.code).toBe(0);
    expect(readdirSync(join(dir, "elsewhere"))).toHaveLength(0);
    expect(existsSync(join(dir, ".skillrig", "python-envs", "py3.11-abc"))).toBe(false);
  });
});

describe("skillrig view", () => {
  it("prints its 127.0.0.1 URL as JSON, serves the recorded runs, and stops on SIGTERM", async () => {
    const dir = project();
    await skillrig(["test", "task.json", "--deliverable", "solution"], dir);
    const child = spawn(process.execPath, [bin, "view", "--port", "0", "--json"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    const info = await new Promise<{ url: string; runs_dir: string; server: null }>((ok, fail) => {
      child.once("exit", (code) => fail(new Error(`view exited with ${code}`)));
      child.stdout.on("data", (c: Buffer) => {
        stdout += c;
        try {
          ok(JSON.parse(stdout));
        } catch {
          // not complete yet
        }
      });
    });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(info.runs_dir).toBe(join(dir, ".skillrig", "runs"));
    expect(info.server).toBeNull();
    const runs = await (await fetch(`${info.url}api/runs`)).json();
    expect(runs.runs[0].name).toBe("parse-int");
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("refuses a bad port or server URL with exit code 2", async () => {
    const dir = project();
    const port = await skillrig(["view", "--port", "eighty"], dir);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be a whole number from 0 to 65535, not "eighty"');
    const server = await skillrig(["view", "--port", "0", "--server", "ftp://x"], dir);
    expect(server.code).toBe(2);
    expect(server.stderr).toContain("expected an http or https URL");
  });
});

describe("the heartbeat", () => {
  it("says the engine is still running after a quiet interval, and not while events arrive", async () => {
    const lines: string[] = [];
    const beat = startHeartbeat(
      (l) => lines.push(l),
      (elapsed, quiet) => `still running ${elapsed >= quiet}`,
      2_000,
    );
    try {
      // While something is printed more often than the interval, no heartbeat.
      const until = Date.now() + 2_500;
      while (Date.now() < until) {
        beat.touch();
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(lines).toEqual([]);
      await expect.poll(() => lines.length, { timeout: 5_000 }).toBeGreaterThan(0);
      expect(lines[0]).toBe("still running true");
    } finally {
      beat.stop();
    }
  });
});
