/**
 * Live progress while cases run (one line per verdict as it lands), then a summary table with the diffs of
 * failed cases. Progress goes to `progress` (stderr in the CLI); the summary to `summary`.
 */
import type { CaseStatus, CaseVerdict, Runner, SkillrigPlugin, TaskReport } from "@skillrig/core";

export interface ConsoleReporterOptions {
  progress?: NodeJS.WritableStream;
  summary?: NodeJS.WritableStream;
}

const MARK: Record<CaseStatus, string> = {
  passed: "✓",
  failed: "✗",
  error: "!",
  timeout: "⏱",
  memory_limit: "M",
  output_limit: "O",
  invalid_test_format: "?",
};

/** Longest message shown in the table; the JSON and JUnit reports keep the full text. */
const MESSAGE_WIDTH = 80;
/** Longest message on a live progress line. */
const PROGRESS_MESSAGE_WIDTH = 160;

export class ConsoleReporter implements SkillrigPlugin {
  readonly name = "@skillrig/oracle:console-reporter";
  readonly #progress: NodeJS.WritableStream;
  readonly #summary: NodeJS.WritableStream;

  constructor(options: ConsoleReporterOptions = {}) {
    this.#progress = options.progress ?? process.stderr;
    this.#summary = options.summary ?? process.stdout;
  }

  apply(runner: Runner): void {
    runner.claim("reporter", "console", this.name);
    let total = 0;
    let done = 0;
    runner.hooks.taskStart.tap(this.name, (run) => {
      total = run.loaded.task.tests.length;
      done = 0;
      const t = run.loaded.task;
      this.#progress.write(
        `task ${t.task_id} (${t.deliverable_type}, ${total} case(s), ${run.jobs} at once, isolation ${run.sandbox.isolation})\n`,
      );
    });
    runner.hooks.caseResult.tap(this.name, (verdict) => {
      done += 1;
      // Contract messages already start with their status ("invalid_test_format: ..."); don't say it twice.
      const message = oneLine(verdict.message ?? "");
      const text = message.startsWith(`${verdict.status}:`) ? message : `${verdict.status}: ${message}`;
      const why = verdict.status === "passed" ? "" : `  ${truncate(text, PROGRESS_MESSAGE_WIDTH)}`;
      this.#progress.write(`  [${done}/${total}] ${MARK[verdict.status]} ${verdict.name} (${verdict.duration_ms} ms)${why}\n`);
    });
    runner.hooks.runEnd.tap(this.name, (info) => {
      if (info.kind === "task" && info.report) this.#summary.write(formatSummary(info.report));
    });
  }
}

export function formatSummary(report: TaskReport): string {
  const rows: string[][] = [["#", "case", "status", "ms", "message"]];
  const byIndex = [...report.cases].sort((a, b) => a.index - b.index);
  for (const v of byIndex)
    rows.push([String(v.index), v.name, v.status, String(v.duration_ms), truncate(oneLine(v.message ?? ""), MESSAGE_WIDTH)]);
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => [...r[col]!].length)));
  const lines = rows.map((r) =>
    r
      .map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]!)))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const s = report.summary;
  const out = [
    "",
    ...lines,
    "",
    `${report.task_id}: ${s.total} case(s): ${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.invalid} invalid` +
      (report.duration_ms !== undefined ? ` in ${report.duration_ms} ms` : ""),
  ];
  for (const v of byIndex.filter((c: CaseVerdict) => c.status === "failed" && c.diff)) {
    out.push("", `--- ${v.name}`, v.diff!);
  }
  for (const w of report.warnings ?? []) out.push(`warning: ${w}`);
  return `${out.join("\n")}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ");
}

function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}
