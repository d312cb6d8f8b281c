/**
 * Ctrl-C (SIGINT) and SIGTERM, handled once for every command that runs for a while (test, run, solve, eval,
 * serve, view). A command opens an `Interrupts` for its work and registers what it must clean up:
 *
 *   first signal    says on stderr what is being stopped, aborts `signal` (the work cancels: engines killed,
 *                   cases not started reported as canceled), runs the registered cleanups once; the command
 *                   then prints what it can (the report, result.json) and ends as it would have
 *   second signal   exits at once with 128 + the signal's number (130 for Ctrl-C)
 *
 * `release()` (the command's work is done) stops listening, so a later Ctrl-C has its default meaning.
 */

export type StopSignal = "SIGINT" | "SIGTERM";

const STOP_SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];
const SIGNAL_NUMBER: Record<StopSignal, number> = { SIGINT: 2, SIGTERM: 15 };

/** The exit code of a process that a second signal ended at once. */
export function interruptedExitCode(signal: StopSignal): number {
  return 128 + SIGNAL_NUMBER[signal];
}

export type Cleanup = (signal: StopSignal) => void | Promise<void>;

export interface Interrupts {
  /** Aborted at the first signal (its reason an Error "canceled by SIGINT"); hand it to the work. */
  readonly signal: AbortSignal;
  /** Resolves with the first signal's name (a server waits on it). */
  readonly stopped: Promise<StopSignal>;
  /** What to clean up at the first signal (after `signal` is aborted); each runs once, a failure is only warned of. */
  onStop(cleanup: Cleanup): void;
  /** The work is done: stop listening. */
  release(): void;
}

export interface InterruptOptions {
  /** What the first signal stops, for the line on stderr: "the job" -> "SIGINT: canceling the job (...)". */
  stopping?: string;
  /** Where that line goes. */
  warn?: (line: string) => void;
}

export function catchInterrupts(options: InterruptOptions = {}): Interrupts {
  const abort = new AbortController();
  const cleanups: Cleanup[] = [];
  let first: (signal: StopSignal) => void = () => undefined;
  const stopped = new Promise<StopSignal>((resolve) => {
    first = resolve;
  });
  const onSignal = (signal: StopSignal) => {
    if (abort.signal.aborted) process.exit(interruptedExitCode(signal));
    if (options.stopping !== undefined) options.warn?.(`${signal}: canceling ${options.stopping} (again to quit at once)`);
    abort.abort(new Error(`canceled by ${signal}`));
    first(signal);
    for (const cleanup of cleanups.splice(0)) {
      void Promise.resolve()
        .then(() => cleanup(signal))
        .catch((error: unknown) => options.warn?.(`while stopping: ${error instanceof Error ? error.message : String(error)}`));
    }
  };
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  return {
    signal: abort.signal,
    stopped,
    onStop(cleanup) {
      cleanups.push(cleanup);
    },
    release() {
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
    },
  };
}

/** Runs `work` with interrupts caught, and releases them when it settles. */
export async function withInterrupts<T>(options: InterruptOptions, work: (interrupts: Interrupts) => Promise<T>): Promise<T> {
  const interrupts = catchInterrupts(options);
  try {
    return await work(interrupts);
  } finally {
    interrupts.release();
  }
}
