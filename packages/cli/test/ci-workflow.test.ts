/**
 * docs/ci.md's workflow (examples/ci/skill-eval.yml), its steps run here as written: in a git repository whose base
 * branch has the csv-total skill and whose pull request changes the skill's description so the agent no longer
 * uses it (the mock model plays the agent, packages/evals' fixture scenario). `npx skillrig` is this repository's
 * CLI and `gh` a script that keeps the comment it was asked to post; `${{ ... }}` are the values GitHub would give.
 * The baseline iteration finishes, the pull request's eval fails its gate (exit 1), and the comment posted is the
 * summary naming the regression.
 */
import { spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const REPO = resolve(__dirname, "../../..");
const BIN = join(REPO, "packages/cli/dist/bin.js");
const FIXTURE = join(REPO, "packages/evals/test/fixtures/eval-run");

interface Step {
  id?: string;
  name?: string;
  if?: string;
  env?: Record<string, string>;
  run?: string;
}

function sh(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    // GitHub's default shell for `run`: bash -e.
    const child = spawn("bash", ["-e", "-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** `${{ expr }}` replaced by what GitHub would give; an expression the test does not know is a failure. */
function expand(value: string, known: Record<string, string>): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in known)) throw new Error(`the workflow uses \${{ ${expr} }}, which the test does not provide`);
    return known[expr]!;
  });
}

describe("the CI workflow of docs/ci.md", () => {
  it("baseline finished, the pull request's eval fails its gate, the summary is posted as a comment", async () => {
    const workflow = parse(readFileSync(join(REPO, "examples/ci/skill-eval.yml"), "utf8")) as {
      env: Record<string, string>;
      jobs: { eval: { steps: Step[] } };
    };
    const steps = workflow.jobs.eval.steps;
    const step = (id: string) => steps.find((s) => s.id === id)!;
    expect(step("comment").if).toContain("always()");

    const root = mkdtempSync(join(tmpdir(), "skillrig-ci-workflow-"));
    const project = join(root, "project");
    const bin = join(root, "bin");
    const runnerTemp = join(root, "runner-temp");
    mkdirSync(bin);
    mkdirSync(runnerTemp);
    // npx skillrig: this repository's CLI; gh: keeps what it was asked to post.
    writeFileSync(join(bin, "npx"), `#!/bin/sh\n[ "$1" = skillrig ] || exit 127\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    writeFileSync(
      join(bin, "gh"),
      `#!/bin/sh\nprintf '%s\\n' "$@" > "${root}/gh-args"\nwhile [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "${root}/comment.md"; shift; done\n`,
    );
    chmodSync(join(bin, "npx"), 0o755);
    chmodSync(join(bin, "gh"), 0o755);

    cpSync(join(FIXTURE, "csv-total"), join(project, "skills", "csv-total"), { recursive: true });
    writeFileSync(
      join(project, "skillrig.config.json"),
      JSON.stringify({
        plugins: [
          [
            join(REPO, "plugins/engine-gemini/dist/index.js"),
            { approval_mode: "yolo", mock_scenario: join(FIXTURE, "scenario.json"), timeout_ms: 120000 },
          ],
        ],
        skills: { roots: ["skills"] },
      }),
    );
    const git = async (...args: string[]) => {
      const r = await sh(`git ${args.map((a) => `'${a}'`).join(" ")}`, project, {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      });
      expect(r.code, r.stderr).toBe(0);
    };
    await git("init", "-q", "-b", "main");
    await git("add", ".");
    await git("commit", "-q", "-m", "base");
    await git("checkout", "-q", "-b", "pr");
    // The pull request rewords the description: the agent no longer takes the skill for the task.
    const skillMd = join(project, "skills", "csv-total", "SKILL.md");
    writeFileSync(skillMd, readFileSync(skillMd, "utf8").replace("Sum the amount column of an orders CSV", "Tally a ledger"));
    await git("commit", "-q", "-am", "reword the description");

    const known = {
      "github.base_ref": "main",
      "github.token": "token",
      "github.event.pull_request.number": "7",
      "secrets.GEMINI_API_KEY": "",
    };
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, RUNNER_TEMP: runnerTemp, NO_COLOR: "1" };
    for (const [k, v] of Object.entries(workflow.env)) env[k] = expand(v, known);
    // The checked-out base branch is origin/<base> on a runner; here the local branch is all there is.
    const run = (id: string) => {
      const s = step(id);
      const stepEnv = Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, expand(v, known).replace(/^origin\//, "")]));
      return sh(s.run!, project, { ...env, ...stepEnv });
    };

    const baseline = await run("baseline");
    expect(baseline.code, baseline.stderr).toBe(0);
    expect(baseline.stderr).toContain("finished (no gate");
    const evaluated = await run("eval");
    expect(evaluated.code, evaluated.stderr).toBe(1);
    expect(evaluated.stdout).toContain("against iteration 1:");
    expect(evaluated.stdout).toMatch(/^ {2}with_skill 66\.7% -> 0% \(-66\.7 pts, 95% CI -66\.7 to -66\.7 pts, p = 1, 1 pair\)$/m);
    const comment = await run("comment");
    expect(comment.code, comment.stderr).toBe(0);
    const args = readFileSync(join(root, "gh-args"), "utf8").trim().split("\n");
    expect(args.slice(0, 3)).toEqual(["pr", "comment", "7"]);
    expect(args[4]).toBe(".skillrig/ci-eval/iteration-2/summary.md");
    const posted = readFileSync(join(root, "comment.md"), "utf8");
    expect(posted).toContain("### skillrig eval: `csv-total`, iteration 2");
    expect(posted).toContain("**REGRESSION against iteration 1: a case's with_skill pass rate fell**");
    expect(readFileSync(join(project, ".skillrig/ci-eval/iteration-2/junit.xml"), "utf8")).toContain('name="eval-1 with_skill gemini"');
  }, 600_000);
});
