/**
 * Progress a person can follow while a suite runs. On a terminal: one live line (redrawn by log-update, which
 * handles wrapping and clearing) with done/total, pass rate, elapsed time and ETA. Elsewhere (CI logs, a pipe): a
 * plain line every `intervalMs` (5 s by default) and one at the end, so a log shows steady progress, not 1,000 lines.
 * Either way, each sample that did not pass is written as it lands (above the live line on a terminal): its task,
 * sample, first failing case and a one-line reason.
 */
import type { SampleResult, SuiteProgress } from "../run-suite.js";
import { oneLine, truncate } from "./text-table.js";
import { sampleNumber } from "../sample-number.js";

export interface SuiteProgressOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Between plain lines when the stream is not a terminal (default 5000 ms). */
  intervalMs?: number;
  /** Force the live line on or off (default: the stream is a terminal). */
  live?: boolean;
}

export interface SuiteProgressDisplay {
  update(progress: SuiteProgress): void;
  /** The last state, left on screen (terminal) or written as a final line. */
  done(): void;
}

/** Least time between two redraws of the live line. */
const REDRAW_MS = 80;
/** Longest failure line (a terminal's width when narrower). */
const FAILURE_WIDTH = 200;

export async function createSuiteProgress(options: SuiteProgressOptions): Promise<SuiteProgressDisplay> {
  const live = options.live ?? options.stream.isTTY === true;
  const intervalMs = options.intervalMs ?? 5000;
  let last: SuiteProgress | undefined;
  let lastShown = Number.NEGATIVE_INFINITY;
  if (live) {
    const { createLogUpdate } = await import("log-update");
    const render = createLogUpdate(options.stream as NodeJS.WriteStream, { showCursor: true });
    return {
      update(progress) {
        last = progress;
        const failure = formatFailure(progress.last, options.stream.columns);
        if (failure) {
          // Above the live line: clear it, write the failure (it stays), draw the line again below it.
          render.clear();
          options.stream.write(`${failure}\n`);
          lastShown = Number.NEGATIVE_INFINITY;
        }
        const now = performance.now();
        if (now - lastShown < REDRAW_MS && progress.done < progress.total) return;
        lastShown = now;
        render(formatProgress(progress));
      },
      done() {
        if (last) render(formatProgress(last));
        render.done();
      },
    };
  }
  let lastWritten: SuiteProgress | undefined;
  return {
    update(progress) {
      last = progress;
      const failure = formatFailure(progress.last);
      if (failure) options.stream.write(`${failure}\n`);
      const now = performance.now();
      if (now - lastShown < intervalMs) return;
      lastShown = now;
      lastWritten = progress;
      options.stream.write(`${formatProgress(progress)}\n`);
    },
    done() {
      if (last && last !== lastWritten) options.stream.write(`${formatProgress(last)}\n`);
      lastWritten = last;
    },
  };
}

/**
 * `graded <n>/<total> samples (<%>)[, <m> not graded], <rate> passed, ...`: a sample that ended without a grade
 * (canceled by Ctrl-C or SIGTERM, stopped by --bail) is not counted as graded, and the pass rate is of those graded.
 */
export function formatProgress(p: SuiteProgress): string {
  const notGraded = p.notGraded ?? 0;
  const graded = p.done - notGraded;
  const percent = p.total > 0 ? Math.floor((graded / p.total) * 100) : 100;
  const skipped = notGraded > 0 ? `, ${notGraded} not graded` : "";
  const rate = graded > 0 ? `${((p.samplesPassed / graded) * 100).toFixed(1)}% passed` : "none graded yet";
  const remaining = p.done > 0 && p.done < p.total ? `, ETA ${seconds((p.elapsedMs / p.done) * (p.total - p.done))}` : "";
  return `graded ${graded}/${p.total} samples (${percent}%)${skipped}, ${rate}, ${seconds(p.elapsedMs)} elapsed${remaining}`;
}

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/**
 * One line for a sample that did not pass: `✗ <task> sample <n> <case>: <status>: <reason> (+N more)`; nothing for
 * one that passed, or was not run (canceled, `--bail`), which the summary counts.
 */
export function formatFailure(last: SuiteProgress["last"], columns?: number): string | undefined {
  const result: SampleResult = last.result;
  if (result.status === "passed") return undefined;
  const width = Math.min(FAILURE_WIDTH, columns && columns > 20 ? columns - 1 : FAILURE_WIDTH);
  const where = `✗ ${last.task_id} sample ${sampleNumber(last.sample)}`;
  if (result.error) {
    if (result.error.code === "interrupted") return undefined;
    return truncate(`${where}: ${result.error.code}: ${oneLine(result.error.message)}`, width);
  }
  const bad = result.report?.cases.filter((c) => c.status !== "passed") ?? [];
  const first = bad[0];
  if (!first) return undefined;
  const message = oneLine(first.message ?? "");
  const reason = message.startsWith(`${first.status}:`) ? message : `${first.status}${message ? `: ${message}` : ""}`;
  const more = bad.length > 1 ? ` (+${bad.length - 1} more failing case(s))` : "";
  // The count goes first when the reason is cut, so the line always says how many cases failed.
  return `${truncate(`${where} ${first.name}: ${reason}`, Math.max(20, width - more.length))}${more}`;
}
