import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CaseVerdict, type SkillrigPlugin, SkillrigError } from "@skillrig/core";
import { runTask, validateTask } from "@skillrig/oracle";
import { makeRunner, runTaskWith, scriptTask } from "./helpers.js";

const ECHO = "import sys\nsys.stdout.write(sys.stdin.read().upper())\n";

describe("runTask statuses (script deliverables through the real sandbox)", () => {
  it("gives passed, failed, error, timeout, memory_limit, output_limit and invalid_test_format", async () => {
    const main = `
import os, sys, time
mode = open("mode.txt").read().strip() if os.path.exists("mode.txt") else sys.stdin.read().strip()
if mode == "ok": print("fine")
elif mode == "wrong": print("not fine")
elif mode == "signal": os.kill(os.getpid(), 15)
elif mode == "sleep": time.sleep(30)
elif mode == "memory": blob = bytearray(2 * 1024 * 1024 * 1024); print(len(blob))
elif mode == "flood":
    for _ in range(100000): sys.stdout.write("x" * 100 + "\\n")
`;
    const { byName, report } = await runTaskWith(
      scriptTask(
        [
          { name: "passes", input: { stdin: "ok" }, expected: { stdout: "fine" } },
          { name: "fails", input: { stdin: "wrong" }, expected: { stdout: "fine" } },
          { name: "killed", input: { stdin: "signal" }, expected: { stdout: "fine" } },
          { name: "sleeps", input: { stdin: "sleep" }, expected: { stdout: "fine" }, timeout_ms: 700 },
          { name: "hogs memory", input: { files: { "mode.txt": "memory" } }, expected: { stdout: "fine" } },
          { name: "floods stdout", input: { files: { "mode.txt": "flood" } }, expected: { stdout: "fine" } },
          { name: "bad input", input: ["ok"], expected: { stdout: "fine" } },
        ],
        { limits: { memory_bytes: 256 * 1024 * 1024, output_bytes: 64 * 1024 } },
      ),
      { "main.py": main },
      { jobs: 4 },
    );
    const status = (name: string) => byName[name]?.status;
    expect(status("passes")).toBe("passed");
    expect(status("fails")).toBe("failed");
    expect(byName.fails?.message).toContain("stdout differs");
    expect(byName.fails?.diff).toContain("-fine");
    expect(byName.fails?.diff).toContain("+not fine");
    expect(status("killed")).toBe("error");
    expect(byName.killed?.message).toMatch(/signal/);
    expect(status("sleeps")).toBe("timeout");
    expect(byName.sleeps?.message).toContain("700 ms");
    expect(status("hogs memory")).toBe("memory_limit");
    expect(status("floods stdout")).toBe("output_limit");
    expect(status("bad input")).toBe("invalid_test_format");
    expect(report.summary).toEqual({ total: 7, passed: 1, failed: 1, errored: 4, invalid: 1 });
    // Verdicts come back in the task's order whatever order they finished in.
    expect(report.cases.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("feeds stdin, writes files, and reports files created, changed and deleted", async () => {
    const main = `
import os, sys
data = sys.stdin.read()
open("out/result.txt".replace("/", os.sep), "w") if os.path.isdir("out") else os.makedirs("out")
with open("out/result.txt", "w") as f: f.write(data.upper())
with open("notes.txt", "a") as f: f.write("more\\n")
os.remove("gone.txt")
print(open("sub/dir/in.txt").read().strip())
`;
    const { byName } = await runTaskWith(
      scriptTask([
        {
          name: "files",
          input: {
            stdin: "abc",
            files: { "notes.txt": "first\n", "gone.txt": "bye", "sub/dir/in.txt": "nested 中文\n", "same.txt": "unchanged" },
          },
          expected: { stdout: "nested 中文", files: { "out/result.txt": "ABC", "notes.txt": "first\nmore\n", "same.txt": "unchanged" } },
        },
      ]),
      { "main.py": main },
    );
    const verdict = byName.files!;
    expect(verdict.message).toBeUndefined();
    expect(verdict.status).toBe("passed");
    const actual = verdict.actual as { files: Record<string, string>; deleted_files: string[]; exit_code: number };
    expect(actual.files).toEqual({ "notes.txt": "first\nmore\n", "out/result.txt": "ABC" });
    expect(actual.deleted_files).toEqual(["gone.txt"]);
    expect(actual.exit_code).toBe(0);
  });

  it("checks exit_code 0 unless given, quotes stderr, and fails when an expected file is not produced", async () => {
    const main = `import sys\nprint("boom", file=sys.stderr)\nsys.exit(3)\n`;
    const { byName } = await runTaskWith(
      scriptTask([
        { name: "exit 0 assumed", input: {}, expected: {} },
        { name: "exit 3 expected", input: {}, expected: { exit_code: 3, stderr: "boom" } },
        { name: "file missing", input: {}, expected: { exit_code: 3, files: { "out.txt": "x" } } },
      ]),
      { "main.py": main },
    );
    expect(byName["exit 0 assumed"]?.status).toBe("failed");
    expect(byName["exit 0 assumed"]?.message).toContain("exited with code 3 (expected 0): boom");
    expect(byName["exit 3 expected"]?.status).toBe("passed");
    expect(byName["file missing"]?.status).toBe("failed");
    expect(byName["file missing"]?.message).toBe("files/out.txt was not produced");
  });

  it("gives each case a fresh folder and never touches the user's copy of the deliverable", async () => {
    const main = `
import os, sys
seen = sorted(os.listdir("."))
with open("left-behind.txt", "w") as f: f.write("x")
try:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "main.py"), "a") as f: f.write("# tampered")
except OSError:
    pass
print(",".join(seen))
`;
    const { byName, dir } = await runTaskWith(
      scriptTask([
        { name: "first", input: { files: { "a.txt": "1" } }, expected: { stdout: "a.txt" } },
        { name: "second", input: {}, expected: { stdout: "" } },
      ]),
      { "main.py": main },
      { jobs: 1 },
    );
    expect(byName.first?.status).toBe("passed");
    expect(byName.second?.status).toBe("passed");
    expect(readFileSync(join(dir, "deliverable/main.py"), "utf8")).toBe(main);
  });

  it("runs cli deliverables with argv", async () => {
    const { byName } = await runTaskWith(
      {
        contract_version: "1.0",
        task_id: "c",
        deliverable_type: "cli",
        entrypoint: "tool.py",
        tests: [{ name: "args", input: { argv: ["a b", "--x", ""] }, expected: { stdout: `["a b", "--x", ""]` } }],
      },
      { "tool.py": "import sys, json\nprint(json.dumps(sys.argv[1:]))\n" },
    );
    expect(byName.args?.status).toBe("passed");
  });
});

describe("runTask flow", () => {
  function recorder(events: string[]): SkillrigPlugin {
    return {
      name: "recorder",
      apply(runner) {
        const { task } = runner.hooks;
        task.setUp.for("script").tap("recorder", () => void events.push("setUp"));
        task.start.tap("recorder", () => void events.push("start"));
        task.resolveInput.for("script").tap("recorder", (r, work) => {
          events.push(`resolveInput:${work.index}`);
          return r;
        });
        // An interceptor sees every call of the script type's execute hook without claiming the type.
        task.execute.for("script").intercept({ call: ({ work }) => void events.push(`execute:${work.index}`) });
        task.caseResult.tap("recorder", (v: CaseVerdict) => void events.push(`caseResult:${v.index}:${v.status}`));
        task.tearDown.for("script").tap("recorder", () => void events.push("tearDown"));
        runner.hooks.runEnd.tap("recorder", (info) => void events.push(`runEnd:${info.ok}:${info.report ? "report" : "none"}`));
      },
    };
  }

  it("sets up, resolves every input before any case runs, then ends with tearDown and runEnd", async () => {
    const events: string[] = [];
    await runTaskWith(
      scriptTask([
        { name: "a", input: { stdin: "x" }, expected: { stdout: "X" } },
        { name: "b", input: 1, expected: {} },
        { name: "c", input: { stdin: "y" }, expected: { stdout: "Y" } },
      ]),
      { "main.py": ECHO },
      { runner: makeRunner([recorder(events)]), jobs: 1 },
    );
    expect(events.slice(0, 5)).toEqual(["setUp", "start", "resolveInput:0", "resolveInput:1", "resolveInput:2"]);
    expect(events).toContain("caseResult:1:invalid_test_format");
    expect(events).not.toContain("execute:1");
    expect(events.indexOf("execute:0")).toBeGreaterThan(events.indexOf("resolveInput:2"));
    expect(events.slice(-2)).toEqual(["tearDown", "runEnd:true:report"]);
  });

  it("puts warnings from input resolution in the report, once each", async () => {
    const warner: SkillrigPlugin = {
      name: "warner",
      apply(runner) {
        runner.hooks.task.resolveInput
          .for("script")
          .tap("warner", (r) => ({ ...r, warnings: [...(r.warnings ?? []), "signature of f() could not be read"] }));
      },
    };
    const result = await runTaskWith(
      scriptTask([
        { name: "a", input: { stdin: "x" }, expected: { stdout: "X" } },
        { name: "b", input: { stdin: "y" }, expected: { stdout: "Y" } },
      ]),
      { "main.py": ECHO },
      { runner: makeRunner([warner]), jobs: 1 },
    );
    expect(result.report.warnings?.filter((w) => w.includes("could not be read"))).toEqual(["signature of f() could not be read"]);
  });

  it("--strict refuses the whole task before anything runs, still ending with tearDown and runEnd", async () => {
    const events: string[] = [];
    const run = runTaskWith(
      scriptTask([
        { name: "good", input: { stdin: "x" }, expected: { stdout: "X" } },
        { name: "bad", input: { stdin: 5 }, expected: {} },
      ]),
      { "main.py": ECHO },
      { runner: makeRunner([recorder(events)]), strict: true },
    );
    await expect(run).rejects.toMatchObject({ code: "invalid_test_format", pointer: "/tests/1/input/stdin" });
    await expect(run).rejects.toThrow(/\/tests\/1 \("bad"\): invalid_test_format: stdin must be a string/);
    expect(events.some((e) => e.startsWith("execute"))).toBe(false);
    expect(events.slice(-2)).toEqual(["tearDown", "runEnd:false:none"]);
  });

  it("runs at most `jobs` cases at once", async () => {
    let inFlight = 0;
    let most = 0;
    const counter: SkillrigPlugin = {
      name: "counter",
      apply(runner) {
        runner.hooks.task.execute.for("script").intercept({
          call: () => {
            inFlight += 1;
            most = Math.max(most, inFlight);
          },
        });
        runner.hooks.task.caseResult.tap("counter", () => void (inFlight -= 1));
      },
    };
    const tests = Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, input: {}, expected: {} }));
    const { report } = await runTaskWith(
      scriptTask(tests),
      { "main.py": "import time\ntime.sleep(0.3)\n" },
      { runner: makeRunner([counter]), jobs: 2 },
    );
    expect(report.summary.passed).toBe(6);
    expect(most).toBe(2);
  });

  it("reports cases not yet started as canceled once the signal aborts", async () => {
    const abort = new AbortController();
    const stopper: SkillrigPlugin = {
      name: "stopper",
      apply(runner) {
        runner.hooks.task.caseResult.tap("stopper", () => abort.abort());
      },
    };
    const tests = Array.from({ length: 3 }, (_, i) => ({ name: `c${i}`, input: {}, expected: {} }));
    const { report } = await runTaskWith(
      scriptTask(tests),
      { "main.py": "" },
      { runner: makeRunner([stopper]), jobs: 1, signal: abort.signal },
    );
    expect(report.cases.map((c) => [c.status, c.message])).toEqual([
      ["passed", undefined],
      ["error", "canceled before it ran"],
      ["error", "canceled before it ran"],
    ]);
  });

  it("hands a type that queues its cases in a host all of them at once (casesInFlight), not with --bail; their wait is not their duration", async () => {
    let inFlight = 0;
    let most = 0;
    const queued: SkillrigPlugin = {
      name: "queued",
      apply(runner) {
        runner.hooks.task.setUp.for("queued").tap("queued", (run) => void (run.casesInFlight = 10));
        runner.hooks.task.execute.for("queued").tapPromise("queued", async () => {
          inFlight += 1;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 50));
          inFlight -= 1;
          // As a host reports it: the case waited far longer behind others than the whole call took.
          return { actual: null, comparisons: [], queuedMs: 60_000 };
        });
      },
    };
    const loaded = validateTask({
      contract_version: "1.0",
      task_id: "q",
      deliverable_type: "queued",
      entrypoint: "x",
      tests: [0, 1, 2, 3].map((i) => ({ name: `c${i}`, input: null, expected: null })),
    });
    const deliverable = { dir: "/nonexistent", entryFile: "/nonexistent/x" };
    const report = await runTask(makeRunner([queued]), { loaded, deliverable, jobs: 1 });
    expect(most).toBe(4);
    expect(report.cases.map((c) => [c.status, c.duration_ms])).toEqual([0, 1, 2, 3].map(() => ["passed", 0]));

    most = 0;
    const bail = { stopped: false, reason: "bail", failed() {} };
    await runTask(makeRunner([queued]), { loaded, deliverable, jobs: 1, bail } as never);
    expect(most).toBe(1);
  });

  it("still runs tearDown when setup fails, and stops at a fatal execute error after the running cases finish", async () => {
    const events: string[] = [];
    const flaky = (failIn: "setUp" | "execute"): SkillrigPlugin => ({
      name: "flaky",
      apply(runner) {
        runner.hooks.task.setUp.for("flaky").tap("flaky", () => {
          if (failIn === "setUp") throw new SkillrigError("sandbox_unavailable", "setup failed");
        });
        runner.hooks.task.execute.for("flaky").tapPromise("flaky", async ({ work }) => {
          events.push(`execute:${work.index}`);
          if (work.index === 0) throw new SkillrigError("sandbox_unavailable", "sandbox went away");
          await new Promise((r) => setTimeout(r, 200));
          events.push(`finished:${work.index}`);
          return { actual: null, comparisons: [] };
        });
        runner.hooks.task.tearDown.for("flaky").tap("flaky", () => void events.push("tearDown"));
      },
    });
    const loaded = validateTask({
      contract_version: "1.0",
      task_id: "f",
      deliverable_type: "flaky",
      entrypoint: "x",
      tests: [0, 1, 2, 3].map((i) => ({ name: `c${i}`, input: null, expected: null })),
    });
    const deliverable = { dir: "/nonexistent", entryFile: "/nonexistent/x" };

    await expect(runTask(makeRunner([flaky("setUp")]), { loaded, deliverable })).rejects.toThrow("setup failed");
    expect(events).toEqual(["tearDown"]);

    events.length = 0;
    await expect(runTask(makeRunner([flaky("execute")]), { loaded, deliverable, jobs: 2 })).rejects.toThrow("sandbox went away");
    // Case 1 was already running with case 0: it finishes before tearDown; cases 2 and 3 never start.
    expect(events).toEqual(["execute:0", "execute:1", "finished:1", "tearDown"]);
  });

  it("names the deliverable type no plugin handles", async () => {
    const run = runTaskWith({ ...scriptTask([{ name: "a", input: {}, expected: {} }]), deliverable_type: "rust" }, { "main.py": "" });
    await expect(run).rejects.toMatchObject({ code: "invalid_task", pointer: "/deliverable_type" });
    await expect(run).rejects.toThrow(/no plugin handles deliverable type "rust"; available: "script", "cli"/);
  });

  it("names an unknown compare mode and where it was given, before anything runs", async () => {
    const events: string[] = [];
    const run = runTaskWith(
      scriptTask([
        { name: "a", input: {}, expected: {} },
        { name: "b", input: {}, expected: {}, compare: "fuzzy" },
      ]),
      { "main.py": "" },
      {
        runner: makeRunner([recorder(events)]),
      },
    );
    await expect(run).rejects.toMatchObject({ code: "invalid_task", pointer: "/tests/1/compare" });
    await expect(run).rejects.toThrow(/unknown compare mode "fuzzy" at \/tests\/1\/compare/);
    expect(events).toEqual([]);
    await expect(
      runTaskWith(scriptTask([{ name: "a", input: {}, expected: {} }], { compare: { mode: "nope" } }), { "main.py": "" }),
    ).rejects.toThrow(/unknown compare mode "nope" at \/compare/);
  });

  it("picks the case's compare over the task's over the field default, and keeps exit codes exact", async () => {
    const main = `print("Total: 10.004   ")\n`;
    const { byName } = await runTaskWith(
      scriptTask(
        [
          { name: "task mode (exact) applies", input: {}, expected: { stdout: "Total: 10.004" } },
          { name: "case mode (number) wins", input: {}, expected: { stdout: "Total: 10" }, compare: { mode: "number", abs_tol: 0.01 } },
          { name: "case mode (trim) wins", input: {}, expected: { stdout: "Total: 10.004" }, compare: "trim" },
          { name: "exit code stays exact under regex", input: {}, expected: { stdout: "Total", exit_code: 0 }, compare: "regex" },
        ],
        { compare: "exact" },
      ),
      { "main.py": main },
    );
    expect(byName["task mode (exact) applies"]?.status).toBe("failed");
    expect(byName["case mode (number) wins"]?.status).toBe("passed");
    expect(byName["case mode (trim) wins"]?.status).toBe("passed");
    expect(byName["exit code stays exact under regex"]?.status).toBe("passed");
  });

  it("lets a third-party plugin add a compare mode by tapping task.compare for it", async () => {
    const caseInsensitive: SkillrigPlugin = {
      name: "case-insensitive-mode",
      apply(runner) {
        runner.hooks.task.compare.for("ci").tap("case-insensitive-mode", (req) => {
          const equal = String(req.expected).trim().toLowerCase() === String(req.actual).trim().toLowerCase();
          return equal ? { equal } : { equal, message: `${req.field} differs ignoring case` };
        });
      },
    };
    const { byName } = await runTaskWith(
      scriptTask([
        { name: "same ignoring case", input: { stdin: "Hello" }, expected: { stdout: "hello" }, compare: "ci" },
        { name: "different", input: { stdin: "Hello" }, expected: { stdout: "bye" }, compare: "ci" },
      ]),
      { "main.py": "import sys\nprint(sys.stdin.read())\n" },
      { runner: makeRunner([caseInsensitive]) },
    );
    expect(byName["same ignoring case"]?.status).toBe("passed");
    expect(byName.different?.status).toBe("failed");
    expect(byName.different?.message).toBe("stdout differs ignoring case");
  });
});
