/**
 * Runs an engine CLI with execa and owns its whole process tree: the CLI starts in its own process group
 * (detached), and a wall-clock timeout, an idle-output watchdog or a cancel kills the group and every
 * descendant found in /proc (a CLI's tool may start its own session, which leaves the group). After a
 * normal exit the group is swept too, so a tool's background child never outlives the job. While it runs, the
 * group is killed if skillrig itself exits or is interrupted (exit-handlers.ts): being detached, a Ctrl-C would
 * miss it.
 *
 * Its own module (`@skillrig/process/run-process`) because it loads execa, which the sandbox keeps off its start-up.
 */
import { createInterface } from "node:readline";
import { execa } from "execa";
import { cleanUpOnExit } from "./exit-handlers.js";
import { type ProcessEnding, endingOfExit } from "./process-end.js";
import { signalQuietly, sweepTree, terminateTree } from "./stop.js";

export interface ProcessRunOptions {
  file: string;
  args: string[];
  cwd: string;
  /** The complete environment (nothing is inherited). */
  env: Record<string, string>;
  /** Wall-clock limit. */
  timeoutMs: number;
  /** Kill when neither stdout nor stderr printed a line for this long. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  onStdoutLine?(line: string): void;
  onStderrLine?(line: string): void;
  /** Asked after every output line: a reason ends the run early as "gave_up" (a CLI stuck in a retry loop). */
  shouldStop?(): string | undefined;
  /** How long SIGTERM gets before SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Bytes of stdout/stderr kept for the result (the tail). Default 64 KiB each. */
  keepBytes?: number;
  /**
   * "ignore" (default): stdin is /dev/null. "pipe": the caller talks to the process on stdin (a protocol such as
   * ACP's JSON-RPC); `onSpawn` hands it the stream.
   */
  stdin?: "ignore" | "pipe";
  /** Called once the process started, with its stdin (when piped) and `finish`, which ends the run on purpose. */
  onSpawn?(io: ProcessIO): void;
}

/** What a caller driving the process interactively gets. */
export interface ProcessIO {
  /** The process's stdin (`stdin: "pipe"`), else null. */
  stdin: NodeJS.WritableStream | null;
  /**
   * The caller is done with the process: its stdin is closed, and the process tree is stopped if it has not exited
   * after `graceMs` (default `killGraceMs`). The run still ends as "exited" (with the exit code or signal it got).
   */
  finish(graceMs?: number): void;
}

/** How the run ended, as engine-kit has always said it; `ending` says the same as a typed value. */
export type ProcessEnd = "exited" | "timeout" | "idle_timeout" | "canceled" | "gave_up" | "spawn_failed";

export interface ProcessRunResult {
  end: ProcessEnd;
  exitCode: number | null;
  signal: string | null;
  /** The last `keepBytes` of each stream. */
  stdoutTail: string;
  stderrTail: string;
  durationMs: number;
  /** The command line, for messages. */
  command: string;
  /** Set when the binary could not be started (ENOENT, EACCES). */
  spawnError?: string;
  /** The timeout came from the caller's signal (the job's own time limit), not from `timeoutMs`. */
  timedOutBySignal?: boolean;
  /** Why the run was stopped early (`end: "gave_up"`). */
  stopReason?: string;
  /** Pids still alive after the run that were killed by the final sweep. */
  sweptPids: number[];
  /** How the run ended, as the process layer says it everywhere (`end` with its code, signal, limit or reason). */
  ending: ProcessEnding;
}

class Tail {
  #text = "";
  constructor(readonly limit: number) {}
  push(line: string): void {
    this.#text += `${line}\n`;
    if (this.#text.length > this.limit * 2) this.#text = this.#text.slice(-this.limit);
  }
  get text(): string {
    return this.#text.length > this.limit ? this.#text.slice(-this.limit) : this.#text;
  }
}

export async function runProcess(options: ProcessRunOptions): Promise<ProcessRunResult> {
  const started = Date.now();
  const keep = options.keepBytes ?? 64 * 1024;
  const stdoutTail = new Tail(keep);
  const stderrTail = new Tail(keep);
  const command = [options.file, ...options.args]
    .map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a.length > 200 ? `${a.slice(0, 200)}…` : a) : a))
    .join(" ");

  const child = execa(options.file, options.args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    // codex blocks reading stdin until EOF when it is not a terminal; /dev/null ends it at once.
    stdin: options.stdin ?? "ignore",
    detached: true,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
  });

  let end: ProcessEnd = "exited";
  let stopReason: string | undefined;
  let timedOutBySignal = false;
  const known = new Set<number>();
  let cancelKill: (() => void) | undefined;
  const pid = child.pid;
  const forget = pid === undefined ? undefined : cleanUpOnExit(() => signalQuietly(-pid, "SIGKILL"));

  const stop = (why: ProcessEnd) => {
    if (end !== "exited" || pid === undefined) return;
    end = why;
    cancelKill = terminateTree(pid, known, options.killGraceMs ?? 2000);
  };

  const wall = setTimeout(() => stop("timeout"), options.timeoutMs);
  let lastOutput = Date.now();
  const idle =
    options.idleTimeoutMs === undefined
      ? undefined
      : setInterval(
          () => {
            if (Date.now() - lastOutput >= options.idleTimeoutMs!) stop("idle_timeout");
          },
          Math.min(1000, Math.max(50, Math.floor(options.idleTimeoutMs / 4))),
        );
  // runJob aborts with a TimeoutError (as AbortSignal.timeout() does) for a job's time limit: that is a timeout, not a cancel.
  const onAbort = () => {
    if ((options.signal?.reason as { name?: string } | undefined)?.name !== "TimeoutError") return stop("canceled");
    timedOutBySignal = true;
    stop("timeout");
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });

  let finishTimer: NodeJS.Timeout | undefined;
  let finishKill: (() => void) | undefined;
  // Once the process is reaped its pid may be reused: a late finish() must not signal anything.
  let reaped = false;
  const finish = (graceMs = options.killGraceMs ?? 2000) => {
    if (reaped || finishTimer !== undefined || end !== "exited" || pid === undefined) return;
    child.stdin?.end();
    finishTimer = setTimeout(() => {
      if (end === "exited") finishKill = terminateTree(pid, known, options.killGraceMs ?? 2000);
    }, graceMs);
  };
  // A caller that stops writing must not see EPIPE as an uncaught error when the process already went.
  child.stdin?.on("error", () => {});
  options.onSpawn?.({ stdin: child.stdin ?? null, finish });

  const readers: Promise<void>[] = [];
  const read = (stream: NodeJS.ReadableStream | null, tail: Tail, onLine?: (line: string) => void) => {
    if (!stream) return;
    const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    readers.push(
      new Promise((resolve) => {
        rl.on("line", (line) => {
          lastOutput = Date.now();
          tail.push(line);
          try {
            onLine?.(line);
            const reason = end === "exited" ? options.shouldStop?.() : undefined;
            if (reason !== undefined) {
              stopReason = reason;
              stop("gave_up");
            }
          } catch {
            // A parser bug must not take the run down; the line is still in the log tail.
          }
        });
        rl.on("close", () => resolve());
      }),
    );
  };
  read(child.stdout, stdoutTail, options.onStdoutLine);
  read(child.stderr, stderrTail, options.onStderrLine);

  const result = await child;
  reaped = true;
  // stdout/stderr may still hold lines when the process is reaped; a descendant that keeps the pipe open
  // is swept below, which closes it.
  clearTimeout(wall);
  clearTimeout(finishTimer);
  if (idle) clearInterval(idle);
  options.signal?.removeEventListener("abort", onAbort);

  // Sweep: anything left in the CLI's process group or below it (a tool's background child) is killed.
  const swept = pid === undefined ? [] : sweepTree(pid, known);
  forget?.();
  await Promise.race([Promise.all(readers), new Promise((r) => setTimeout(r, 2000))]);
  cancelKill?.();
  finishKill?.();

  const spawnFailed = result.failed && result.exitCode === undefined && result.signal === undefined && !result.isTerminated;
  const spawnError = spawnFailed ? ((result as { originalMessage?: string }).originalMessage ?? result.shortMessage) : undefined;
  const finalEnd: ProcessEnd = spawnFailed && end === "exited" ? "spawn_failed" : end;
  const exitCode = result.exitCode ?? null;
  const signal = result.signal ?? null;
  return {
    end: finalEnd,
    exitCode,
    signal,
    stdoutTail: stdoutTail.text,
    stderrTail: stderrTail.text,
    durationMs: Date.now() - started,
    command,
    spawnError,
    stopReason,
    timedOutBySignal,
    sweptPids: swept,
    ending: endingOf(finalEnd, {
      exitCode,
      signal,
      spawnError,
      stopReason,
      timeoutMs: options.timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      timedOutBySignal,
    }),
  };
}

function endingOf(
  end: ProcessEnd,
  run: {
    exitCode: number | null;
    signal: string | null;
    spawnError: string | undefined;
    stopReason: string | undefined;
    timeoutMs: number;
    idleTimeoutMs: number | undefined;
    timedOutBySignal: boolean;
  },
): ProcessEnding {
  switch (end) {
    case "exited":
      return endingOfExit(run.exitCode, run.signal);
    case "timeout":
      // The caller's own signal carries its limit; ours is `timeoutMs`.
      return run.timedOutBySignal ? { kind: "timeout" } : { kind: "timeout", limitMs: run.timeoutMs };
    case "idle_timeout":
      return run.idleTimeoutMs === undefined ? { kind: "idle_timeout" } : { kind: "idle_timeout", idleMs: run.idleTimeoutMs };
    case "canceled":
      return { kind: "canceled" };
    case "gave_up":
      return { kind: "stopped", reason: run.stopReason ?? "stopped by its runner" };
    case "spawn_failed":
      return { kind: "spawn_failed", message: run.spawnError ?? "unknown error" };
  }
}
