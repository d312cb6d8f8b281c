/**
 * Recorded runs written as the CLI writes them (writeRunRecord / recordExistingFolder), one of each shape the view
 * renders: a single-task test report, a multi-task suite (tasks[].samples[].cases[], pass_at_k), a solve batch,
 * and a skill job's run folder with artifacts (Markdown, text, an image) and its events.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { recordExistingFolder, writeRunRecord } from "@skillrig/view";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");

export const TRACEBACK = `Traceback (most recent call last):
  File "solution.py", line 4, in parse
    return int(text)
ValueError: invalid literal for int() with base 10: 'x'`;

export const testReport = {
  task_id: "parse-numbers",
  deliverable_type: "function",
  summary: { total: 3, passed: 1, failed: 1, errored: 1, invalid: 0 },
  isolation: "bubblewrap",
  duration_ms: 412,
  cases: [
    { name: "plain", index: 0, status: "passed", duration_ms: 11, input: { args: ["12"] }, expected: 12, actual: 12, message: null },
    {
      name: "sentence",
      index: 1,
      status: "failed",
      duration_ms: 14,
      input: { args: ["the quick brown fox"] },
      expected: "the quick brown fox jumps",
      actual: "the quick red fox jumps",
      message: "return value differs (exact)",
      diff: "--- expected\n+++ actual\n-the quick brown fox jumps\n+the quick red fox jumps",
      details: { stdout: "parsing the quick brown fox\n" },
    },
    {
      name: "bad digit",
      index: 2,
      status: "error",
      duration_ms: 9,
      input: { args: ["x"] },
      expected: 0,
      actual: null,
      message: "ValueError: invalid literal for int() with base 10: 'x'",
      details: { traceback: TRACEBACK, stderr: "warning: x is not a digit\n" },
    },
  ],
};

/** A suite in a shape no oracle writes (pass@k keyed and valued as a solve report's): the view must name it, not render NaN. */
export const suiteReport = {
  kind: "skillrig-suite-report",
  version: 1,
  summary: { tasks: 2, samples: 4, passed: 3 },
  pass_at_k: { "1": 0.75, "2": 1 },
  tasks: [
    {
      task_id: "add",
      pass_at_k: { "1": 1, "2": 1 },
      samples: [
        {
          sample: 1,
          cases: [{ name: "one plus one", index: 0, status: "passed", duration_ms: 3, input: { args: [1, 1] }, expected: 2, actual: 2 }],
        },
        {
          sample: 2,
          cases: [{ name: "one plus one", index: 0, status: "passed", duration_ms: 3, input: { args: [1, 1] }, expected: 2, actual: 2 }],
        },
      ],
    },
    {
      task_id: "greet",
      pass_at_k: { "1": 0.5, "2": 1 },
      samples: [
        {
          sample: 1,
          cases: [
            {
              name: "hello",
              index: 0,
              status: "passed",
              duration_ms: 4,
              input: { args: ["Ann"] },
              expected: "hello Ann",
              actual: "hello Ann",
            },
          ],
        },
        {
          sample: 2,
          cases: [
            {
              name: "hello",
              index: 0,
              status: "failed",
              duration_ms: 4,
              input: { args: ["Ann"] },
              expected: "hello Ann",
              actual: "hi Ann",
              message: "return value differs",
            },
          ],
        },
      ],
    },
  ],
};

const attempt = (engine: string, status: string, passed: number, content: string | undefined) => ({
  task_id: "run-length-encode",
  engine,
  attempt: 1,
  status,
  message: status === "passed" ? undefined : "2 of 3 cases did not pass",
  score: { passed, total: 3 },
  prompt: "Write solution.py with encode(text) for the task below.",
  transcript: [
    { type: "message", role: "assistant", text: "I will write solution.py." },
    { type: "tool_call", id: "t1", tool: "write_file", args: { file_path: "solution.py" }, status: "success" },
    { type: "file_change", path: "solution.py", kind: "add" },
    { type: "usage", inputTokens: 1200, outputTokens: 80, model: "gemini-2.5-flash" },
  ],
  ...(content ? { deliverable: { file: "solution.py", path: "/tmp/ws/solution.py", content } } : {}),
  cases: [
    { name: "empty", index: 0, status: "passed", duration_ms: 2, input: { args: [""] }, expected: "", actual: "" },
    {
      name: "case matters",
      index: 1,
      status: passed === 3 ? "passed" : "failed",
      duration_ms: 2,
      input: { args: ["aAa"] },
      expected: "1a1A1a",
      actual: passed === 3 ? "1a1A1a" : "3a",
      message: passed === 3 ? undefined : "return value differs (exact)",
    },
  ],
  usage: { inputTokens: 1200, outputTokens: 80, engineMs: 2100, durationMs: 2600 },
});

export const solveReport = {
  kind: "skillrig-solve-report",
  version: 1,
  started_at: "2026-11-20T10:00:00.000Z",
  duration_ms: 5400,
  attempts_per_task: 1,
  engines: [
    {
      engine: "gemini-correct",
      engine_name: "gemini",
      attempts: 1,
      passed: 1,
      pass_rate: 1,
      pass_at_k: { "1": 1 },
      tasks_solved: 1,
      statuses: { passed: 1 },
      usage: { inputTokens: 1200, outputTokens: 80, totalTokens: 1280, engineMs: 2100, durationMs: 2600, reported: true },
    },
    {
      engine: "gemini-buggy",
      engine_name: "gemini",
      attempts: 1,
      passed: 0,
      pass_rate: 0,
      pass_at_k: { "1": 0 },
      tasks_solved: 0,
      statuses: { failed: 1 },
      usage: { inputTokens: 1200, outputTokens: 80, totalTokens: 1280, engineMs: 2100, durationMs: 2600, reported: true },
    },
  ],
  tasks: [
    {
      task_id: "run-length-encode",
      file: "task.json",
      deliverable_type: "function",
      entrypoint: "encode",
      total_cases: 3,
      scored_cases: 3,
      attempts: [
        attempt("gemini-correct", "passed", 3, "def encode(text):\n    out = []\n    return ''.join(out)\n"),
        attempt("gemini-buggy", "failed", 1, "def encode(text):\n    return text.lower()\n"),
      ],
    },
  ],
  summary: { tasks: 1, attempts: 2, passed: 1, not_passed: 1 },
};

/** Writes the four runs into `runsDir`; returns their ids by shape. */
export async function writeFixtureRuns(runsDir: string): Promise<{ test: string; suite: string; solve: string; job: string }> {
  const id = (dir: string) => dir.split("/").pop()!;
  const test = await writeRunRecord(
    runsDir,
    {
      kind: "test",
      name: "parse-numbers",
      startedAt: new Date("2026-11-21T09:00:00Z"),
      durationMs: 412,
      status: "failed",
      passed: 1,
      total: 3,
    },
    testReport,
  );
  const suite = await writeRunRecord(
    runsDir,
    {
      kind: "test",
      name: "add,greet",
      startedAt: new Date("2026-11-21T08:00:00Z"),
      durationMs: 900,
      status: "failed",
      passed: 3,
      total: 4,
    },
    suiteReport,
  );
  const solve = await writeRunRecord(
    runsDir,
    {
      kind: "solve",
      name: "run-length-encode",
      engines: ["gemini-correct", "gemini-buggy"],
      startedAt: new Date("2026-11-20T10:00:00Z"),
      durationMs: 5400,
      status: "failed",
      passed: 1,
      total: 2,
    },
    solveReport,
  );
  // A skill job's run folder, as packages/skills writes it.
  const jobDir = join(runsDir, "20261119T120000Z-word-report-abc123");
  for (const sub of ["artifacts", "logs", "workspace"]) mkdirSync(join(jobDir, sub), { recursive: true });
  writeFileSync(join(jobDir, "artifacts", "summary.md"), "# Word report\n\nThe text has **42** words.\n\n- most common: *the*\n");
  writeFileSync(join(jobDir, "artifacts", "counts.txt"), "the 7\nfox 2\n");
  copyFileSync(join(FIXTURES, "chart.png"), join(jobDir, "artifacts", "chart.png"));
  writeFileSync(
    join(jobDir, "run.json"),
    JSON.stringify({
      job_id: "20261119T120000Z-word-report-abc123",
      request: {
        skill_id: "word-report",
        engine: "gemini",
        input: { text_file: "uploads/text_file", label: "notes" },
        parameter: { top: 3 },
      },
    }),
  );
  writeFileSync(
    join(jobDir, "logs", "events.jsonl"),
    [
      { at: "2026-11-19T12:00:01.000Z", type: "status", status: "started" },
      { at: "2026-11-19T12:00:02.000Z", type: "message", role: "assistant", text: "Counting words now." },
      { at: "2026-11-19T12:00:03.000Z", type: "tool_call", tool: "run_shell_command", args: { command: "wc -w notes.txt" } },
      { at: "2026-11-19T12:00:04.000Z", type: "usage", inputTokens: 900, outputTokens: 40 },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n"),
  );
  const art = (field: string, filename: string) => ({
    field,
    role: "report",
    filename,
    path: join(jobDir, "artifacts", filename),
    relativePath: `artifacts/${filename}`,
    bytes: 10,
  });
  writeFileSync(
    join(jobDir, "result.json"),
    JSON.stringify({
      job_id: "20261119T120000Z-word-report-abc123",
      skill_id: "word-report",
      engine: "gemini",
      status: "succeeded",
      output: { words: 42, summary: "summary.md" },
      artifacts: [art("summary", "summary.md"), art("counts", "counts.txt"), art("chart", "chart.png")],
      run_dir: jobDir,
      prompt: "Count the words of uploads/text_file and write summary.md.",
      timings: { started_at: "2026-11-19T12:00:00.000Z", duration_ms: 4200 },
    }),
  );
  await recordExistingFolder(jobDir, {
    kind: "run",
    name: "word-report",
    engines: ["gemini"],
    startedAt: new Date("2026-11-19T12:00:00Z"),
    durationMs: 4200,
    status: "passed",
    passed: 1,
    total: 1,
  });
  return { test: id(test), suite: id(suite), solve: id(solve), job: id(jobDir) };
}
