/**
 * The console of `skillrig test`, run as a user runs it (the built CLI, real Python in the real sandbox): selecting
 * cases (-k, --limit, --last-failed), stopping (--bail), the suite's per-task pass@k table and live failure lines,
 * tracebacks that name the user's file, and usage errors that leave nothing recorded.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { skillrig as run, writeTree as tree } from "./cli-process.js";

const REPO = resolve(__dirname, "../../..");
const NO_COLOR = { NO_COLOR: "1" };
const skillrig = (args: string[], cwd: string, env: Record<string, string> = {}) => run(args, cwd, { ...NO_COLOR, ...env });
const writeTree = (files: Record<string, string>) => tree(files, "skillrig-console-");

/** `scale(x)` returns x * factor; three cases, "big" last. */
function scaleTask(id: string, factor: number): string {
  const cases = [
    ["small one", 1],
    ["small two", 2],
    ["big", 100],
  ] as const;
  return JSON.stringify({
    contract_version: "1.0",
    task_id: id,
    deliverable_type: "function",
    entrypoint: "scale",
    tests: cases.map(([name, x]) => ({ name, input: [x], expected: x * factor })),
  });
}
const solution = (factor: number) => `def scale(x):\n    return x * ${factor}\n`;
/** Right for small inputs only: fails "big". */
const wrongWhenBig = "def scale(x):\n    return x * 2 if x < 50 else 0\n";

function suiteProject() {
  return writeTree({
    "tasks/alpha.json": scaleTask("alpha", 2),
    "tasks/beta.json": scaleTask("beta", 3),
    "samples.jsonl": [
      { task_id: "alpha", solution: solution(2) },
      { task_id: "alpha", solution: wrongWhenBig },
      { task_id: "beta", solution: solution(3) },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n"),
    "wrong.py": "def scale(x):\n    return 0\n",
    "raises.py": 'def helper(x):\n    raise ValueError(f"bad value {x}")\n\ndef scale(x):\n    return helper(x)\n',
    "syntax.py": "def scale(x)\n    return x\n",
  });
}

type SuiteJson = {
  summary: Record<string, number>;
  pass_at_k: Record<string, { value: number; tasks: number }>;
  tasks: Array<{
    task_id: string;
    pass_at_k: Record<string, number>;
    samples: Array<{ status: string; error?: { code: string; message: string }; cases: Array<{ name: string; status: string }> }>;
  }>;
};
const caseNames = (report: SuiteJson) =>
  Object.fromEntries(report.tasks.map((t) => [t.task_id, t.samples.map((s) => s.cases.map((c) => c.name))]));

describe("skillrig test: selecting cases", () => {
  const dir = suiteProject();
  const runs = join(dir, "runs");
  const env = { SKILLRIG_RUNS_DIR: runs };

  it("-k selects cases by task id and case name with and/not, in every sample; a task with none selected is left out", async () => {
    const r = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "-k", "small and not two", "--json", "--no-record"], dir, env);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as SuiteJson;
    expect(caseNames(report)).toEqual({ alpha: [["small one"], ["small one"]], beta: [["small one"]] });
    expect(report.summary).toMatchObject({ cases: 3, cases_passed: 3, samples_passed: 3 });

    const byTask = JSON.parse(
      (await skillrig(["test", "tasks", "--samples", "samples.jsonl", "-k", "beta or (alpha and big)", "--json", "--no-record"], dir, env))
        .stdout,
    ) as SuiteJson;
    expect(caseNames(byTask)).toEqual({ alpha: [["big"], ["big"]], beta: [["small one", "small two", "big"]] });
    const quoted = JSON.parse(
      (await skillrig(["test", "tasks", "--samples", "samples.jsonl", "-k", '"one" and beta', "--json", "--no-record"], dir, env)).stdout,
    ) as SuiteJson;
    expect(caseNames(quoted)).toEqual({ beta: [["small one"]] });
  });

  it("a pattern that selects nothing, or does not parse, is a usage error naming it, and nothing is recorded", async () => {
    const none = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "-k", "zzz"], dir, env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('error[usage]: -k "zzz" selects no case of the 2 task(s) given');
    const one = await skillrig(["test", "tasks/alpha.json", "--deliverable", "wrong.py", "--filter", "zzz"], dir, env);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('-k "zzz" selects no case of the 1 task(s) given');
    const broken = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "-k", "small and (big"], dir, env);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('-k "small and (big": expected ) at its end');
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  });

  it("--limit n grades the first n cases of each task, after -k", async () => {
    const r = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "--limit", "1", "--json", "--no-record"], dir, env);
    expect(caseNames(JSON.parse(r.stdout) as SuiteJson)).toEqual({ alpha: [["small one"], ["small one"]], beta: [["small one"]] });
    const after = await skillrig(
      ["test", "tasks", "--samples", "samples.jsonl", "-k", "not one", "--limit", "1", "--json", "--no-record"],
      dir,
      env,
    );
    expect(caseNames(JSON.parse(after.stdout) as SuiteJson)).toEqual({ alpha: [["small two"], ["small two"]], beta: [["small two"]] });
  });

  it("--last-failed re-runs only what did not pass in the newest recorded run of the same tasks; with none, says so and runs all", async () => {
    const own = join(dir, "lf-runs");
    const lf = { SKILLRIG_RUNS_DIR: own };
    // Without --json: the notice is an info line on stderr, which --json keeps quiet.
    const first = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "--last-failed"], dir, lf);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`--last-failed: no recorded run of these tasks in ${own}; running every case`);
    expect(first.stdout).toContain("8/9 cases passed");

    const again = await skillrig(
      ["test", "tasks", "--samples", "samples.jsonl", "--last-failed", "--reporter", "json", "--out", "lf-out"],
      dir,
      lf,
    );
    expect(again.stderr).toMatch(/--last-failed: re-running 1 case\(s\) of 1 task\(s\) that did not pass in \S+-test-alpha-beta-/);
    const report = JSON.parse(readFileSync(join(dir, "lf-out", "suite.json"), "utf8")) as SuiteJson;
    expect(caseNames(report)).toEqual({ alpha: [["big"], ["big"]] });
    expect(report.tasks[0]!.samples.map((s) => s.status)).toEqual(["passed", "failed"]);

    // One task whose last run passed: nothing to narrow to, so every case runs (as pytest does).
    writeFileSync(join(dir, "beta.py"), solution(3));
    expect((await skillrig(["test", "tasks/beta.json", "--deliverable", "beta.py"], dir, lf)).code).toBe(0);
    const passed = await skillrig(["test", "tasks/beta.json", "--deliverable", "beta.py", "--last-failed"], dir, lf);
    expect(passed.stderr).toMatch(/--last-failed: nothing failed in the last run of these tasks \(\S+-test-beta-\w+\); running every case/);
    expect(passed.stdout).toContain("beta: 3 case(s): 3 passed");
  });
});

describe("skillrig test: --bail", () => {
  const dir = suiteProject();
  const env = { SKILLRIG_RUNS_DIR: join(dir, "runs") };

  it("one task: stops after the first failure; the cases it did not start are reported not run, not passed", async () => {
    const r = await skillrig(["test", "tasks/alpha.json", "--deliverable", "wrong.py", "--bail", "--jobs", "1", "--json"], dir, env);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.summary).toEqual({ total: 3, passed: 0, failed: 1, errored: 0, invalid: 0, not_run: 2 });
    expect(report.cases.map((c: { name: string }) => c.name)).toEqual(["small one"]);
    expect(report.not_run).toEqual([
      { name: "small two", index: 1, reason: "not run: --bail 1 stopped the run after 1 failure(s)" },
      { name: "big", index: 2, reason: "not run: --bail 1 stopped the run after 1 failure(s)" },
    ]);
    const console = await skillrig(
      ["test", "tasks/alpha.json", "--deliverable", "wrong.py", "--bail", "2", "--jobs", "1", "--no-record"],
      dir,
      env,
    );
    expect(console.stdout).toContain("alpha: 3 case(s): 0 passed, 2 failed, 0 errored, 0 invalid, 1 not run");
    expect(console.stdout).toContain("not run: --bail 2 stopped the run after 2 failure(s): big");
  });

  it("a suite: stops after the first failing case; samples not started are not graded, and pass@k counts only samples that ran", async () => {
    const r = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "--bail", "--jobs", "1", "--json"], dir, env);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as SuiteJson;
    const [alpha, beta] = report.tasks;
    expect(alpha!.samples.map((s) => s.status)).toEqual(["passed", "failed"]);
    expect(beta!.samples[0]).toMatchObject({
      status: "error",
      error: { code: "interrupted", message: "not run: --bail 1 stopped the run after 1 failure(s)" },
      cases: [],
    });
    expect(report.summary).toMatchObject({ samples: 3, samples_passed: 1, samples_failed: 1, samples_errored: 1 });
    expect(beta!.pass_at_k).toEqual({});
    expect(report.pass_at_k["pass@1"]).toEqual({ value: 0.5, tasks: 1 });
  });

  it("is refused with --server, before anything runs or is recorded", async () => {
    const r = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "--bail", "--server", "http://127.0.0.1:9"], dir, env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error[usage]: --bail does not apply with --server");
  });
});

describe("skillrig test: the suite's console", () => {
  const dir = suiteProject();

  it("a table of tasks with per-task pass@k, failing tasks first; each failure on its own line as it lands", async () => {
    const r = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "--jobs", "2", "--no-record", "--k", "2"], dir);
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n");
    const header = lines.findIndex((l) => /^task\s+samples passed\s+pass@1\s+pass@2\s+first failure$/.test(l));
    expect(header, r.stdout).toBeGreaterThanOrEqual(0);
    expect(lines[header + 2]).toMatch(/^alpha\s+1\/2\s+50\.0%\s+100\.0%\s+sample 2: big: failed/);
    expect(lines[header + 3]).toMatch(/^beta\s+1\/1\s+100\.0%\s+-$/);
    expect(r.stdout).toContain("2 task(s), 1 not passing; 3 sample(s): 2 passed every case");
    expect(r.stderr).toMatch(/^✗ alpha sample 2 big: failed: return value differs/m);
    expect(r.stderr).not.toMatch(/✗ beta/);
  });
});

describe("skillrig test: messages name the user's files, not the snapshot", () => {
  const dir = suiteProject();

  for (const [file, expected] of [
    ["raises.py", /File "(\/[^"]+)", line 2, in helper\n\s+raise ValueError/],
    ["syntax.py", /File "(\/[^"]+)", line 1\n\s+def scale\(x\)/],
  ] as const) {
    it(`a deliverable that ${file === "raises.py" ? "raises" : "has a syntax error"}: the traceback names ${file} where the user has it`, async () => {
      const r = await skillrig(["test", "tasks/alpha.json", "--deliverable", file, "--json", "--no-record"], dir);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout) as { cases: Array<{ message: string; details: Record<string, string> }> };
      for (const c of report.cases) {
        const text = JSON.stringify(c);
        expect(text).not.toMatch(/skillrig-(host|sample|function)-|\/deliverable\//);
        expect(expected.exec(c.details.traceback!)?.[1]).toBe(join(dir, file));
      }
      const console = await skillrig(["test", "tasks/alpha.json", "--deliverable", file, "--no-record"], dir);
      expect(console.stdout).toContain(`File "${join(dir, file)}", line`);
    });
  }
});

describe("usage errors are refused before anything is recorded", () => {
  it("five typos of test, solve and run: exit 2 each, and no row in skillrig runs list", async () => {
    const dir = suiteProject();
    const runs = join(dir, "runs");
    const env = { SKILLRIG_RUNS_DIR: runs };
    const hello = join(REPO, "examples/hello-skill");
    const typos: Array<[string[], string]> = [
      [["test", "tasks", "--samples", "samples.jsonl", "--bial"], dir],
      [["test", "tasks", "--samples", "samples.jsonl", "--jobs", "zero"], dir],
      [["solve", "tasks/alpha.json", "--engine", "gemini", "--attempts", "x"], dir],
      [["run", "word-stats", "--engine", "gemini", "--file", "text=notes.txt", "--param", "top=abc"], hello],
      [["run", "word-stats", "--engine", "gemini", "--file", "text=no-such-notes.txt"], hello],
    ];
    for (const [args, cwd] of typos) {
      const r = await skillrig(args, cwd, env);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
    }
    const list = await skillrig(["runs", "list", "--json"], dir, env);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ runs: [] });
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  });
});

describe("skillrig test --reporter html", () => {
  const dir = suiteProject();

  it("one task and a suite: one self-contained file each, failing cases first with input, expected, actual and diff", async () => {
    const one = await skillrig(
      ["test", "tasks/alpha.json", "--deliverable", "wrong.py", "--reporter", "html", "--out", "out", "--no-record"],
      dir,
    );
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(`wrote ${join(dir, "out", "alpha.html")}`);
    const suite = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "--reporter", "html", "--out", "out", "--no-record"], dir);
    expect(suite.code).toBe(1);
    const html = readFileSync(join(dir, "out", "suite.html"), "utf8");
    // Self-contained: no script, nothing loaded from anywhere.
    expect(html).not.toMatch(/<script|<link|src=|url\(/i);
    expect(html.indexOf('data-task="alpha"')).toBeLessThan(html.indexOf('data-task="beta"'));
    expect(html).toMatch(/<div class="case failing" data-case="big" data-status="failed">/);
    expect(html).toMatch(/<pre class="expected">200<\/pre>[\s\S]*<pre class="actual">0<\/pre>/);
    expect(readFileSync(join(dir, "out", "alpha.html"), "utf8")).toMatch(/<h1>skillrig test alpha: 0\/3 cases passed<\/h1>/);
  });

  it("the suite's page renders in Chromium from disk: no request, failing task and case first, numbers as in the report", async () => {
    const suite = await skillrig(
      ["test", "tasks", "--samples", "samples.jsonl", "--reporter", "html", "--out", "browser", "--no-record"],
      dir,
    );
    expect(suite.code).toBe(1);
    // solve's Chromium helper (playwright-core is its dev dependency): every request the page makes is a problem.
    const { withPage } = await import("../../solve/test/browser.js");
    await withPage(join(dir, "browser", "suite.html"), async (page, problems) => {
      expect(
        await page.locator("#tasks tbody tr").evaluateAll((rows) => rows.map((r) => (r as HTMLElement).innerText.split("\t"))),
      ).toEqual([
        ["alpha", "1/2", "50.0%", "failing"],
        ["beta", "1/1", "100.0%", "passing"],
      ]);
      const failing = page.locator(".case.failing").first();
      expect(await failing.getAttribute("data-case")).toBe("big");
      expect(await failing.locator("pre.expected").innerText()).toBe("200");
      expect(await failing.locator("pre.actual").innerText()).toBe("0");
      expect(await page.locator("details.sample[open]").count()).toBe(1);
      expect(problems).toEqual([]);
    });
  }, 120_000);

  it("--reporter html without --out is a usage error", async () => {
    const r = await skillrig(["test", "tasks/alpha.json", "--deliverable", "wrong.py", "--reporter", "html"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--reporter html writes <task_id>.html and needs --out <dir>");
  });
});
