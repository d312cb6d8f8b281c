/**
 * Who held a test process's event loop. vitest gives the main process a fixed 60 s to answer each call a test
 * worker makes (its worker RPC; not configurable in vitest 3), and fails the run with `Timeout calling
 * "onTaskUpdate"` naming no file when a worker's loop, or the main process's, was held that long. This watch ticks
 * once a second in every test process; a tick that comes late by more than SKILLRIG_EVENT_LOOP_WARN_MS (default
 * 20 s) is written to stderr with the test that was running, and every late tick past 2 s is appended as a JSON line
 * to $SKILLRIG_EVENT_LOOP_LOG when that is set. docs/ci.md says how to read it.
 */
import { appendFileSync } from "node:fs";

const TICK_MS = 1000;
const LOG = process.env.SKILLRIG_EVENT_LOOP_LOG;
const WARN_MS = Number(process.env.SKILLRIG_EVENT_LOOP_WARN_MS) || 20_000;
const LOG_MS = 2000;

export interface Watch {
  current: string;
  timer: NodeJS.Timeout;
}

/** Starts the once-a-second tick in this process (once, however often the module is loaded). */
export function watchEventLoop(role: string, initial: string): Watch {
  const holder = globalThis as { __skillrigEventLoopWatch?: Watch };
  if (holder.__skillrigEventLoopWatch) return holder.__skillrigEventLoopWatch;
  let last = performance.now();
  const watch: Watch = {
    current: initial,
    timer: setInterval(() => {
      const now = performance.now();
      const late = now - last - TICK_MS;
      last = now;
      if (late < LOG_MS) return;
      const record = { role, pid: process.pid, at: new Date().toISOString(), late_ms: Math.round(late), during: watch.current };
      if (LOG) appendFileSync(LOG, `${JSON.stringify(record)}\n`);
      if (late >= WARN_MS)
        process.stderr.write(
          `event loop of the ${role} (pid ${process.pid}) was held ${(late / 1000).toFixed(1)} s during ${watch.current}\n`,
        );
    }, TICK_MS),
  };
  watch.timer.unref();
  holder.__skillrigEventLoopWatch = watch;
  return watch;
}
