/**
 * Live progress while cases run (one line per verdict as it lands), then a summary table and, for every case that
 * did not pass, what a person needs to act on it: its input, the message, a compact diff and the Python traceback.
 * Progress goes to `progress` (stderr in the CLI); the summary to `summary`. Colours only on a terminal, never
 * with NO_COLOR set (https://no-color.org), always with FORCE_COLOR set (not "0").
 */
import { incompleteLine } from "../report-completeness.js";
import pc from "picocolors";
import type { CaseStatus, CaseVerdict, Runner, SkillrigPlugin, TaskReport } from "@skillrig/core";
import { oneLine, truncate } from "./text-table.js";
import { tracebackOf } from "./traceback.js";

export interface ConsoleReporterOptions {
  progress?: NodeJS.WritableStream;
  summary?: NodeJS.WritableStream;
  /** Force colours on or off; default: on when the summary stream is a terminal (see the header). */
  color?: boolean;
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
/** Longest input shown for a case that did not pass (one line of JSON). */
const INPUT_WIDTH = 240;
/** Last lines of a traceback shown; the reports keep it whole. */
const TRACEBACK_LINES = 20;
/** Cases that did not pass shown in full; the rest are counted. */
const DETAILED_CASES = 10;

type Colors = ReturnType<typeof pc.createColors>;

/** Whether to colour output written to `stream`, by the NO_COLOR / FORCE_COLOR conventions and the terminal. */
export function useColor(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return (stream as NodeJS.WriteStream).isTTY === true && env.TERM !== "dumb";
}

function statusColor(c: Colors, status: CaseStatus): (s: string) => string {
  if (status === "passed") return c.green;
  if (status === "failed") return c.red;
  if (status === "invalid_test_format") return c.yellow;
  return c.magenta;
}

export class ConsoleReporter implements SkillrigPlugin {
  readonly name = "@skillrig/oracle:console-reporter";
  readonly #progress: NodeJS.WritableStream;
  readonly #summary: NodeJS.WritableStream;
  readonly #colors: { progress: Colors; summary: Colors };

  constructor(options: ConsoleReporterOptions = {}) {
    this.#progress = options.progress ?? process.stderr;
    this.#summary = options.summary ?? process.stdout;
    this.#colors = {
      progress: pc.createColors(options.color ?? useColor(this.#progress)),
      summary: pc.createColors(options.color ?? useColor(this.#summary)),
    };
  }

  apply(runner: Runner): void {
    let total = 0;
    let done = 0;
    const c = this.#colors.progress;
    runner.hooks.task.start.tap(this.name, (run) => {
      total = run.selectedCases ?? run.loaded.task.tests.length;
      done = 0;
      const t = run.loaded.task;
      this.#progress.write(
        `${c.bold(`task ${t.task_id}`)} (${t.deliverable_type}, ${total} case(s)${run.selectedCases !== undefined ? ` selected of ${t.tests.length}` : ""}, ${run.jobs} at once, isolation ${run.sandbox.isolation})\n`,
      );
    });
    runner.hooks.task.caseResult.tap(this.name, (verdict) => {
      done += 1;
      // Contract messages already start with their status ("invalid_test_format: ..."); don't say it twice.
      const message = oneLine(verdict.message ?? "");
      const text = message.startsWith(`${verdict.status}:`) ? message : `${verdict.status}: ${message}`;
      const why = verdict.status === "passed" ? "" : `  ${truncate(text, PROGRESS_MESSAGE_WIDTH)}`;
      const mark = statusColor(c, verdict.status)(MARK[verdict.status]);
      this.#progress.write(`  [${done}/${total}] ${mark} ${verdict.name} ${c.dim(`(${verdict.duration_ms} ms)`)}${why}\n`);
    });
    runner.hooks.runEnd.tap(this.name, (info) => {
      if (info.kind === "task" && info.report)
        this.#summary.write(formatSummary(info.report, { color: this.#colors.summary.isColorSupported }));
    });
  }
}

export function formatSummary(report: TaskReport, options: { color?: boolean } = {}): string {
  const c = pc.createColors(options.color ?? false);
  const rows: string[][] = [["#", "case", "status", "ms", "message"]];
  const byIndex = [...report.cases].sort((a, b) => a.index - b.index);
  for (const v of byIndex)
    rows.push([String(v.index), v.name, v.status, String(v.duration_ms), truncate(oneLine(v.message ?? ""), MESSAGE_WIDTH)]);
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => [...r[col]!].length)));
  const lines = rows.map((r, i) =>
    r
      .map((cell, col) => {
        const padded = col === r.length - 1 ? cell : cell.padEnd(widths[col]!);
        // Colour after padding, so escape codes do not upset the column widths.
        return i > 0 && col === 2 ? statusColor(c, cell as CaseStatus)(padded) : i === 0 ? c.bold(padded) : padded;
      })
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const s = report.summary;
  const counts = `${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.invalid} invalid${s.not_run ? `, ${s.not_run} not run` : ""}`;
  const out = [
    "",
    ...lines,
    "",
    `${c.bold(report.task_id)}: ${s.total} case(s): ${s.passed === s.total ? c.green(counts) : c.red(counts)}` +
      (report.duration_ms !== undefined ? ` in ${report.duration_ms} ms` : ""),
  ];
  const incomplete = incompleteLine(report);
  if (incomplete) out.push(c.red(incomplete));
  const notPassed = byIndex.filter((v) => v.status !== "passed");
  for (const v of notPassed.slice(0, DETAILED_CASES)) out.push("", ...caseDetail(v, c));
  if (notPassed.length > DETAILED_CASES)
    out.push("", `... and ${notPassed.length - DETAILED_CASES} more case(s) that did not pass (the JSON report has them all)`);
  if (report.not_run?.length)
    out.push("", `${report.not_run[0]!.reason}: ${truncate(report.not_run.map((n) => n.name).join(", "), MESSAGE_WIDTH)}`);
  for (const w of report.warnings ?? []) out.push(c.yellow(`warning: ${w}`));
  return `${out.join("\n")}\n`;
}

/** One case that did not pass: header, input, message, diff, traceback. */
function caseDetail(v: CaseVerdict, c: Colors): string[] {
  const lines = [`${c.bold(`--- ${v.name}`)} ${statusColor(c, v.status)(`(${v.status})`)}`];
  if (v.input !== undefined) lines.push(`${c.dim("input:")} ${truncate(inlineJson(v.input), INPUT_WIDTH)}`);
  // A failed case's message says what differs; its diff shows how. Other statuses' message is the whole story.
  if (v.message && !(v.status === "failed" && v.diff)) lines.push(v.message);
  if (v.diff) lines.push(...v.diff.split("\n").map((l) => colorDiffLine(l, c)));
  const traceback = tracebackOf(v);
  if (traceback) {
    const tb = traceback.trimEnd().split("\n");
    if (tb.length > TRACEBACK_LINES) lines.push(c.dim(`  ... ${tb.length - TRACEBACK_LINES} earlier traceback lines`));
    lines.push(...tb.slice(-TRACEBACK_LINES).map((l) => c.red(l)));
  } else if (v.status !== "failed" && typeof v.details?.stderr === "string" && v.details.stderr.trim() !== "") {
    const err = v.details.stderr.trimEnd().split("\n");
    lines.push(c.dim("stderr:"), ...err.slice(-TRACEBACK_LINES));
  }
  return lines;
}

function colorDiffLine(line: string, c: Colors): string {
  if (line.startsWith("+++") || line.startsWith("---")) return c.bold(line);
  if (line.startsWith("+")) return c.green(line);
  if (line.startsWith("-")) return c.red(line);
  if (line.startsWith("@@")) return c.cyan(line);
  return line;
}

function inlineJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
