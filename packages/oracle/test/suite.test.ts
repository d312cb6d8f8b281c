import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSkillrigError, type SkillrigError } from "@skillrig/core";
import {
  createSuiteProgress,
  deliverablesFromFolder,
  deliverablesFromSamples,
  findTaskFiles,
  formatSuiteSummary,
  loadSuite,
  runSuite,
  toSuiteJson,
  toSuiteJunitXml,
  type SuiteProgress,
} from "@skillrig/oracle";
import { makeRunner, scriptTask, tempDir, writeTree } from "./helpers.js";

/** A script task: prints stdin doubled (as a number); `id` names it. */
function doublerTask(id: string, cases = 3) {
  return JSON.stringify(
    scriptTask(
      Array.from({ length: cases }, (_, i) => ({ name: `x=${i}`, input: { stdin: String(i) }, expected: { stdout: `${i * 2}\n` } })),
      { task_id: id },
    ),
  );
}
/** Reads deliverable paths and writes solutions through the real plugins' hooks (script: the entrypoint rule). */
const paths = makeRunner();
const DOUBLE = "import sys\nprint(int(sys.stdin.read()) * 2)\n";
const WRONG = "import sys\nprint(int(sys.stdin.read()) * 3)\n";

async function rejection(promise: Promise<unknown>): Promise<SkillrigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isSkillrigError(error)) throw new Error(`expected a SkillrigError, got ${String(error)}`);
  return error;
}

describe("finding a suite's task files", () => {
  it("takes task.json files below a folder (not in node_modules or hidden folders), else the folder's *.json", async () => {
    const nested = writeTree({
      "a/task.json": doublerTask("a"),
      "b/c/task.json": doublerTask("c"),
      "node_modules/x/task.json": "{}",
      ".hidden/task.json": "{}",
      "notes.json": "{}",
    });
    expect((await findTaskFiles([nested])).map((f) => f.slice(nested.length + 1))).toEqual(["a/task.json", "b/c/task.json"]);
    const flat = writeTree({ "HumanEval_1.json": doublerTask("1"), "HumanEval_0.json": doublerTask("0"), "sub/x.json": "{}" });
    expect((await findTaskFiles([flat])).map((f) => f.slice(flat.length + 1))).toEqual(["HumanEval_0.json", "HumanEval_1.json"]);
  });

  it("names every path that does not exist or holds no task file, at once", async () => {
    const empty = tempDir();
    const error = await rejection(findTaskFiles([join(empty, "nope"), empty]));
    expect(error.code).toBe("usage");
    expect(error.violations.map((v) => v.message)).toEqual([
      `${join(empty, "nope")} does not exist`,
      `folder ${empty} holds no task file (no task.json below it, no *.json directly in it)`,
    ]);
  });

  it("lists every broken task file and every task_id used twice", async () => {
    const dir = writeTree({ "a.json": doublerTask("same"), "b.json": doublerTask("same"), "c.json": "{ nope", "d.json": '{"tests": 1}' });
    const error = await rejection(loadSuite([dir]));
    expect(error.code).toBe("invalid_task");
    const text = error.violations.map((v) => `${v.file?.split("/").pop()} ${v.pointer ?? ""} ${v.message}`).join("\n");
    expect(text).toMatch(/b\.json \/task_id task_id "same" is also the task_id of .*a\.json/);
    expect(text).toMatch(/c\.json is not valid JSON: line 1, column \d+: /);
    expect(text).toMatch(/d\.json/);
  });
});

describe("a suite's deliverables", () => {
  it("--deliverable DIR: <task_id>.py or <task_id>/ per task; a missing one is named and the others still resolve", async () => {
    const tasks = await loadSuite([
      writeTree({ "1.json": doublerTask("HumanEval/1"), "2.json": doublerTask("two"), "3.json": doublerTask("three") }),
    ]);
    const dir = writeTree({ "HumanEval/1.py": DOUBLE, "two/main.py": DOUBLE });
    const entries = await deliverablesFromFolder(paths, tasks, dir);
    expect(entries.map((e) => [e.loaded.task.task_id, e.samples.length, e.problem ?? null])).toEqual([
      ["HumanEval/1", 1, null],
      ["two", 1, null],
      ["three", 0, expect.stringMatching(/^no deliverable for task three: neither .*three\.py nor .*three\/ exists$/)],
    ]);
    expect(entries[0]!.samples[0]!.deliverable!.entryFile).toBe(join(dir, "HumanEval/1.py"));
  });

  it("--deliverable DIR refuses a task_id that would point outside DIR, and a task with both forms", async () => {
    const tasks = await loadSuite([writeTree({ "1.json": doublerTask("../escape"), "2.json": doublerTask("both") })]);
    const dir = writeTree({ "both.py": DOUBLE, "both/main.py": DOUBLE });
    writeTree({ "escape.py": DOUBLE }, join(dir, ".."));
    const entries = await deliverablesFromFolder(paths, tasks, dir);
    const problems = Object.fromEntries(entries.map((e) => [e.loaded.task.task_id, e.problem]));
    expect(problems["../escape"]).toMatch(/does not name a path inside/);
    expect(problems.both).toMatch(/both .*both\.py and .*both\/ exist/);
  });

  it("--samples: solution and path lines; several lines are several samples, in file order", async () => {
    const tasks = await loadSuite([writeTree({ "a.json": doublerTask("a"), "b.json": doublerTask("b") })]);
    const dir = writeTree({ "sols/b.py": DOUBLE });
    const lines = [{ task_id: "a", solution: DOUBLE, extra: "ignored" }, { task_id: "b", path: "sols/b.py" }, {}].slice(0, 2);
    writeTree(
      { "samples.jsonl": `${lines.map((l) => JSON.stringify(l)).join("\n")}\n\n${JSON.stringify({ task_id: "a", solution: WRONG })}\n` },
      dir,
    );
    const workDir = tempDir();
    const entries = await deliverablesFromSamples(paths, tasks, join(dir, "samples.jsonl"), { workDir });
    const a = entries.find((e) => e.loaded.task.task_id === "a")!;
    expect(a.samples.map((s) => s.source.split("/").pop())).toEqual(["samples.jsonl:1", "samples.jsonl:4"]);
    expect(readFileSync(a.samples[1]!.deliverable!.entryFile, "utf8")).toBe(WRONG);
    expect(a.samples[0]!.deliverable!.entryFile.startsWith(workDir)).toBe(true);
    const b = entries.find((e) => e.loaded.task.task_id === "b")!;
    expect(b.samples[0]!.deliverable!.entryFile).toBe(join(dir, "sols/b.py"));
  });

  it("--samples: every malformed line, unknown task_id and missing path is named by its line number, at once", async () => {
    const tasks = await loadSuite([writeTree({ "a.json": doublerTask("a") })]);
    const file = join(
      writeTree({
        "s.jsonl": [
          JSON.stringify({ task_id: "a", solution: DOUBLE }),
          "{not json",
          JSON.stringify({ task_id: "zzz", solution: DOUBLE }),
          JSON.stringify({ task_id: "a", completion: "    return 1" }),
          JSON.stringify({ task_id: "a", path: "missing.py" }),
          JSON.stringify(["a"]),
          JSON.stringify({ task_id: "a", solution: 5 }),
        ].join("\n"),
      }),
      "s.jsonl",
    );
    const error = await rejection(deliverablesFromSamples(paths, tasks, file, { workDir: tempDir() }));
    expect(error.code).toBe("usage");
    expect(error.line).toBe(2);
    expect(error.violations.map((v) => v.message)).toEqual([
      expect.stringMatching(/^line 2: not valid JSON/),
      'line 3: unknown task_id "zzz": no task of the suite has it',
      expect.stringMatching(/^line 4: needs exactly one of "solution" .* \("completion" is human-eval's/),
      expect.stringMatching(/^line 5: deliverable missing\.py does not exist \(paths are relative to the samples file's folder\)$/),
      "line 6: must be a JSON object {task_id, solution} or {task_id, path}",
      'line 7: "solution" must be a string (the whole Python source)',
    ]);
  });

  it("--samples: a solution is written inside its own folder even when the entrypoint tries to climb out", async () => {
    const task = JSON.parse(doublerTask("climb")) as Record<string, unknown>;
    task.entrypoint = "../../outside.py";
    const tasks = await loadSuite([writeTree({ "t.json": JSON.stringify(task) })]);
    const file = join(writeTree({ "s.jsonl": JSON.stringify({ task_id: "climb", solution: DOUBLE }) }), "s.jsonl");
    const error = await rejection(deliverablesFromSamples(paths, tasks, file, { workDir: tempDir() }));
    expect(error.code).toBe("invalid_task");
    expect(error.pointer).toBe("/entrypoint");
  });
});

describe("runSuite (script deliverables through the real sandbox)", () => {
  it("grades every (task, sample) pair, counts passing samples and gives pass@k per task and over the suite", async () => {
    const tasks = await loadSuite([writeTree({ "a.json": doublerTask("a"), "b.json": doublerTask("b", 2), "c.json": doublerTask("c") })]);
    const samples = [
      ...[DOUBLE, WRONG, DOUBLE, WRONG].map((solution) => ({ task_id: "a", solution })),
      ...[WRONG, WRONG].map((solution) => ({ task_id: "b", solution })),
    ];
    const file = join(writeTree({ "s.jsonl": samples.map((s) => JSON.stringify(s)).join("\n") }), "s.jsonl");
    const entries = await deliverablesFromSamples(paths, tasks, file, { workDir: tempDir() });
    const seen: SuiteProgress[] = [];
    const report = await runSuite(makeRunner(), { entries, jobs: 3, ks: [2], onProgress: (p) => seen.push(p) });

    expect(report.summary).toMatchObject({
      tasks: 3,
      tasks_not_graded: 1,
      samples: 6,
      samples_passed: 2,
      samples_failed: 4,
      cases: 16,
      // WRONG triples, which is right for x=0 only.
      cases_passed: 10,
    });
    const a = report.tasks.find((t) => t.task_id === "a")!;
    expect(a.samples.map((s) => s.status)).toEqual(["passed", "failed", "passed", "failed"]);
    expect(a.samples.map((s) => s.sample)).toEqual([0, 1, 2, 3]);
    expect(a.samples[1]!.report!.cases.map((c) => c.status)).toEqual(["passed", "failed", "failed"]);
    // a: n=4, c=2 -> pass@1 = .5, pass@2 = 1 - C(2,2)/C(4,2) = 5/6; b: n=2, c=0.
    expect(a.pass_at_k["pass@1"]).toBeCloseTo(0.5, 12);
    expect(a.pass_at_k["pass@2"]).toBeCloseTo(5 / 6, 12);
    expect(report.pass_at_k["pass@1"]).toEqual({ value: 0.25, tasks: 2 });
    expect(report.pass_at_k["pass@2"]!.value).toBeCloseTo(5 / 12, 12);
    expect(report.tasks.find((t) => t.task_id === "c")!.problem).toMatch(/no sample .* has task_id "c"/);

    expect(seen.map((p) => p.done)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.at(-1)).toMatchObject({ total: 6, samplesPassed: 2 });

    const json = toSuiteJson(report) as { tasks: Array<{ samples: Array<{ cases: Array<Record<string, unknown>> }> }> };
    expect(Object.keys(json.tasks[0]!.samples[1]!.cases[1]!)).toEqual(
      expect.arrayContaining(["name", "status", "duration_ms", "expected", "actual", "message"]),
    );
    const xml = toSuiteJunitXml(report);
    expect(xml.match(/<testsuite /g)).toHaveLength(3);
    expect(xml).toContain('name="sample 2: x=1"');
    expect(xml).toMatch(/<testsuite name="c" tests="1" failures="0" errors="1"/);
    const text = formatSuiteSummary(report);
    expect(text).toContain("3 task(s), 1 not graded, 3 not passing; 6 sample(s): 2 passed every case");
    // Failing tasks first, the worst first (b passed none, c was not graded, a passed half), with per-task pass@k.
    const rows = text.split("\n").filter((l) => /^[abc] /.test(l));
    expect(rows.map((l) => l[0])).toEqual(["b", "c", "a"]);
    expect(rows[2]).toMatch(/^a\s+2\/4\s+50\.0%\s+83\.3%\s+sample 2: /);
    expect(text).toContain("pass@1 25.0% (2 tasks)  pass@2 41.7% (2 tasks)");
  });
});

describe("suite progress when the stream is not a terminal", () => {
  it("writes plain lines no more often than the interval, and the last state at the end", async () => {
    const lines: string[] = [];
    const stream = { write: (s: string) => lines.push(s) !== 0, isTTY: false } as unknown as NodeJS.WritableStream;
    const progress = await createSuiteProgress({ stream, intervalMs: 60_000 });
    const at = (done: number): SuiteProgress => ({
      done,
      total: 4,
      samplesPassed: done - 1,
      elapsedMs: done * 1000,
      last: { task_id: "t", sample: 0, status: "passed", result: { sample: 0, source: "s", status: "passed", duration_ms: 1 } },
    });
    for (const done of [1, 2, 3, 4]) progress.update(at(done));
    progress.done();
    expect(lines).toEqual([
      "graded 1/4 samples (25%), 0.0% passed, 1s elapsed, ETA 3s\n",
      "graded 4/4 samples (100%), 75.0% passed, 4s elapsed\n",
    ]);
  });

  it("does not count a sample that ended without a grade (canceled, --bail) as graded, nor in the pass rate", async () => {
    const lines: string[] = [];
    const stream = { write: (s: string) => lines.push(s) !== 0, isTTY: false } as unknown as NodeJS.WritableStream;
    const progress = await createSuiteProgress({ stream, intervalMs: 0 });
    const canceled: SuiteProgress["last"] = {
      task_id: "t",
      sample: 2,
      status: "error",
      result: { sample: 2, source: "s", status: "error", error: { code: "interrupted", message: "canceled" }, duration_ms: 1 },
    };
    progress.update({ done: 3, total: 3, samplesPassed: 1, notGraded: 1, elapsedMs: 3000, last: canceled });
    expect(lines).toEqual(["graded 2/3 samples (66%), 1 not graded, 50.0% passed, 3s elapsed\n"]);
  });
});
