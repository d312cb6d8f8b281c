/**
 * A solve report as `solve()` produces it, with hostile text in every place an agent or a task author controls,
 * for the reporter tests (the reporters are pure functions of the report).
 */
import type { AttemptResult, SolveReport, TaskResult } from "@skillrig/solve";
import { summarizeEngines } from "@skillrig/solve";

export const HOSTILE = `</pre><script>window.__pwned = 1; console.error("pwned")</script><img src=x onerror="window.__pwned=2">"'&`;

function attempt(
  task_id: string,
  engine: string,
  n: number,
  status: AttemptResult["status"],
  passed: number,
  total: number,
): AttemptResult {
  return {
    task_id,
    engine,
    attempt: n,
    status,
    message: status === "passed" ? undefined : `not passed ${HOSTILE}`,
    score: { passed, total },
    job: { job_id: `job-${engine}-${n}`, status: status === "engine_failed" ? "failed" : "succeeded", run_dir: `/runs/${engine}/${n}` },
    prompt: `Solve ${task_id} ${HOSTILE}`,
    transcript: [
      { type: "message", role: "assistant", text: `I will write it ${HOSTILE}` },
      { type: "tool_call", tool: "write_file", args: { file_path: "solution.py", content: HOSTILE } },
      { type: "file_change", path: "solution.py", kind: "add" },
      { type: "usage", inputTokens: 120, outputTokens: 30 },
    ],
    ...(status === "artifact_missing"
      ? {}
      : { deliverable: { file: "solution.py", path: "/runs/x/solution.py", content: `def encode(t):\n    return "${HOSTILE}"\n` } }),
    cases:
      status === "artifact_missing"
        ? []
        : [
            { name: "ok case", index: 0, status: "passed", duration_ms: 3, expected: "a1", actual: "a1" },
            ...(passed < total
              ? [
                  {
                    name: `bad case ${HOSTILE}`,
                    index: 1,
                    status: "failed" as const,
                    duration_ms: 4,
                    input: [`in ${HOSTILE}`],
                    expected: "x",
                    actual: HOSTILE,
                    message: "return value differs",
                    diff: `- x\n+ ${HOSTILE}`,
                  },
                ]
              : []),
          ],
    usage: { inputTokens: 120, outputTokens: 30, engineMs: 1500, durationMs: 2100 },
  };
}

export function hostileReport(): SolveReport {
  const tasks: TaskResult[] = [
    {
      task_id: "rle",
      file: "tasks/rle.json",
      deliverable_type: "function",
      entrypoint: "encode",
      description: `Encode runs. ${HOSTILE}`,
      total_cases: 3,
      scored_cases: 2,
      reference: {
        file: "ref/solution.py",
        status: "flagged",
        flagged: [{ name: `flaky ${HOSTILE}`, index: 2, status: "failed", message: HOSTILE }],
        report: {
          task_id: "rle",
          deliverable_type: "function",
          summary: { total: 3, passed: 2, failed: 1, errored: 0, invalid: 0 },
          cases: [],
        },
      },
      attempts: [
        attempt("rle", "gemini", 1, "passed", 2, 2),
        attempt("rle", "gemini", 2, "failed", 1, 2),
        attempt("rle", "codex", 1, "artifact_missing", 0, 2),
        attempt("rle", "codex", 2, "passed", 2, 2),
      ],
    },
    {
      task_id: "t<2>",
      file: "tasks/t2.json",
      deliverable_type: "cli",
      entrypoint: "tool.py",
      total_cases: 2,
      scored_cases: 2,
      attempts: [
        attempt("t<2>", "gemini", 1, "failed", 1, 2),
        attempt("t<2>", "gemini", 2, "failed", 1, 2),
        attempt("t<2>", "codex", 1, "engine_failed", 0, 2),
        attempt("t<2>", "codex", 2, "passed", 2, 2),
      ],
    },
  ];
  const all = tasks.flatMap((t) => t.attempts);
  const passed = all.filter((a) => a.status === "passed").length;
  return {
    kind: "skillrig-solve-report",
    version: 1,
    started_at: "2026-11-23T09:00:00.000Z",
    duration_ms: 12_000,
    attempts_per_task: 2,
    engines: summarizeEngines(
      [
        { engine: "gemini", engine_name: "gemini" },
        { engine: "codex", engine_name: "codex" },
      ],
      tasks,
      2,
    ),
    tasks,
    summary: { tasks: 2, attempts: all.length, passed, not_passed: all.length - passed },
  };
}
