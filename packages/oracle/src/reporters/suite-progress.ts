/**
 * Progress a person can follow while a suite runs. On a terminal: one live line (redrawn by log-update, which
 * handles wrapping and clearing) with done/total, pass rate, elapsed time and ETA. Elsewhere (CI logs, a pipe): a
 * plain line every `intervalMs` (5 s by default) and one at the end, so a log shows steady progress, not 1,000 lines.
 */
import type { SuiteProgress } from "../run-suite.js";

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
      const now = performance.now();
      if (now - lastShown < intervalMs) return;
      lastShown = now;
      lastWritten = progress;
      options.stream.write(`${formatProgress(progress)}\n`);
    },
    done() {
      if (last && last !== lastWritten) options.stream.write(`${formatProgress(last)}\n`);
    },
  };
}

export function formatProgress(p: SuiteProgress): string {
  const percent = p.total > 0 ? Math.floor((p.done / p.total) * 100) : 100;
  const rate = p.done > 0 ? `${((p.samplesPassed / p.done) * 100).toFixed(1)}% passed` : "none graded yet";
  const remaining = p.done > 0 && p.done < p.total ? `, ETA ${seconds((p.elapsedMs / p.done) * (p.total - p.done))}` : "";
  return `graded ${p.done}/${p.total} samples (${percent}%), ${rate}, ${seconds(p.elapsedMs)} elapsed${remaining}`;
}

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}
