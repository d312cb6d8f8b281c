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
import type { Readable } from "node:stream";
import { execa } from "execa";
import { OutputBudget, type OutputLimitHit, readBoundedLines } from "./bounded-lines.js";
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
  /**
   * What the run's stdout and stderr may print: the longest line and all bytes together. Past either (or once the
   * caller passes a bound of its own on the budget, such as the events it keeps) the process tree is stopped and the
   * run ends "output_limit". Default: lines of 64 MiB, no total.
   */
  outputBudget?: OutputBudget;
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
   * after `graceMs` (default `killGraceMs`). The run ends as Node reports it (`exited` with its code, or `killed` by
   * the stop's signal), not as a stop of ours.
   */
  finish(graceMs?: number): void;
}

export interface ProcessRunResult {
  /**
   * How the run ended, in the one vocabulary of the process layer (`ProcessEnding`): exited with its code, killed by
   * a signal, or stopped by us and why (timeout with its limit, idle, canceled, stopped with its reason, output
   * bound passed, or never started). `exitCode` and `signal` are what Node reported, whatever the ending.
   */
  ending: ProcessEnding;
  exitCode: number | null;
  signal: string | null;
  /** The last `keepBytes` of each stream. */
  stdoutTail: string;
  stderrTail: string;
  durationMs: number;
  /** The command line, for messages. */
  command: string;
  /** Pids still alive after the run that were killed by the final sweep. */
  sweptPids: number[];
}

/** The longest line a run without a budget of its own may print (far below V8's string limit). */
export const DEFAULT_LINE_BYTES = 64 * 1024 * 1024;

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

/** The command line, for messages: an argument with blanks or quotes is quoted, and a long one is cut at 200 characters. */
function commandLine(file: string, args: string[]): string {
  return [file, ...args].map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a.length > 200 ? `${a.slice(0, 200)}…` : a) : a)).join(" ");
}

/**
 * The process tree while it runs: whether (and why) we stopped it, the pids it was seen with, the kills still pending,
 * and when it last printed. Every way a run is ended early goes through `stop` (once) or `finish`.
 */
class ProcessTree {
  /** Why we stopped the run, once we have (a run we never stop ends as Node reports it). */
  stoppedFor: StopCause | undefined;
  /** Once the process is reaped its pid may be reused: a late finish() or stop must not signal anything. */
  reaped = false;
  lastOutput = Date.now();
  readonly known = new Set<number>();
  #cancelKill: (() => void) | undefined;
  #finishTimer: NodeJS.Timeout | undefined;
  #finishKill: (() => void) | undefined;

  constructor(
    readonly pid: number | undefined,
    readonly killGraceMs: number,
    readonly stdin: NodeJS.WritableStream | null | undefined,
  ) {}

  stop(why: StopCause): void {
    if (this.stoppedFor !== undefined || this.pid === undefined) return;
    this.stoppedFor = why;
    this.#cancelKill = terminateTree(this.pid, this.known, this.killGraceMs);
  }

  /** The caller is done: close stdin, and stop the tree if it has not exited after `graceMs`. */
  finish(graceMs = this.killGraceMs): void {
    const pid = this.pid;
    if (this.reaped || this.#finishTimer !== undefined || this.stoppedFor !== undefined || pid === undefined) return;
    this.stdin?.end();
    this.#finishTimer = setTimeout(() => {
      if (this.stoppedFor === undefined) this.#finishKill = terminateTree(pid, this.known, this.killGraceMs);
    }, graceMs);
  }

  /** The process was reaped: no finish() may start a kill any more. */
  markReaped(): void {
    this.reaped = true;
    clearTimeout(this.#finishTimer);
  }

  /** The run is over and swept: the kills still waiting on their grace are called off. */
  cancelPendingKills(): void {
    this.#cancelKill?.();
    this.#finishKill?.();
  }
}

/** The wall clock, the idle watchdog and the caller's signal, each stopping the tree; returns what removes them. */
function watchLimits(options: ProcessRunOptions, tree: ProcessTree): () => void {
  const wall = setTimeout(() => tree.stop({ kind: "timeout", limitMs: options.timeoutMs }), options.timeoutMs);
  const idleMs = options.idleTimeoutMs;
  const idle =
    idleMs === undefined
      ? undefined
      : setInterval(
          () => {
            if (Date.now() - tree.lastOutput >= idleMs) tree.stop({ kind: "idle_timeout", idleMs });
          },
          Math.min(1000, Math.max(50, Math.floor(idleMs / 4))),
        );
  // runJob aborts with a TimeoutError (as AbortSignal.timeout() does) for a job's time limit: that is a timeout, not a cancel.
  const onAbort = () => {
    // The caller's own signal carries its limit (the job's), which the caller knows: no `limitMs` here.
    if ((options.signal?.reason as { name?: string } | undefined)?.name !== "TimeoutError") return tree.stop({ kind: "canceled" });
    tree.stop({ kind: "timeout" });
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  return () => {
    clearTimeout(wall);
    if (idle) clearInterval(idle);
    options.signal?.removeEventListener("abort", onAbort);
  };
}

/**
 * Reads one stream line by line within the budget: each line goes to the tail and the caller, then the caller's
 * bounds and `shouldStop` are asked. Resolves when the stream ends.
 */
function readLines(
  stream: Readable | null | undefined,
  tail: Tail,
  onLine: ((line: string) => void) | undefined,
  { options, budget, tree }: { options: ProcessRunOptions; budget: OutputBudget; tree: ProcessTree },
): Promise<void> | undefined {
  if (!stream) return undefined;
  const onLimit = () => tree.stop(outputLimitEnding(budget.hit));
  const handle = (line: string) => {
    tree.lastOutput = Date.now();
    tail.push(line);
    try {
      onLine?.(line);
      // A bound the caller keeps on the budget (the events it emitted) ends the run like the byte bounds.
      if (budget.hit !== undefined) return onLimit();
      const reason = tree.stoppedFor === undefined ? options.shouldStop?.() : undefined;
      if (reason !== undefined) tree.stop({ kind: "stopped", reason });
    } catch {
      // A parser bug must not take the run down; the line is still in the log tail.
    }
  };
  return readBoundedLines(stream, budget, handle, onLimit);
}

export async function runProcess(options: ProcessRunOptions): Promise<ProcessRunResult> {
  const started = Date.now();
  const keep = options.keepBytes ?? 64 * 1024;
  const stdoutTail = new Tail(keep);
  const stderrTail = new Tail(keep);
  const command = commandLine(options.file, options.args);

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
  const budget = options.outputBudget ?? new OutputBudget({ lineBytes: DEFAULT_LINE_BYTES, totalBytes: Number.POSITIVE_INFINITY });
  const pid = child.pid;
  const tree = new ProcessTree(pid, options.killGraceMs ?? 2000, child.stdin);
  const forget = pid === undefined ? undefined : cleanUpOnExit(() => signalQuietly(-pid, "SIGKILL"));
  const unwatch = watchLimits(options, tree);

  // A caller that stops writing must not see EPIPE as an uncaught error when the process already went.
  child.stdin?.on("error", () => {});
  options.onSpawn?.({ stdin: child.stdin ?? null, finish: (graceMs) => tree.finish(graceMs) });
  // Whoever passes a bound (a line, the total, the caller's events or folder watch) stops the tree, while it is ours.
  budget.onPass(() => {
    if (!tree.reaped) tree.stop(outputLimitEnding(budget.hit));
  });
  const reading = { options, budget, tree };
  const readers = [
    readLines(child.stdout, stdoutTail, options.onStdoutLine, reading),
    readLines(child.stderr, stderrTail, options.onStderrLine, reading),
  ];

  const result = await child;
  tree.markReaped();
  // stdout/stderr may still hold lines when the process is reaped; a descendant that keeps the pipe open
  // is swept below, which closes it.
  unwatch();

  // Sweep: anything left in the CLI's process group or below it (a tool's background child) is killed.
  const swept = pid === undefined ? [] : sweepTree(pid, tree.known);
  forget?.();
  await Promise.race([Promise.all(readers), new Promise((r) => setTimeout(r, 2000))]);
  tree.cancelPendingKills();

  const spawnFailed = result.failed && result.exitCode === undefined && result.signal === undefined && !result.isTerminated;
  const exitCode = result.exitCode ?? null;
  const signal = result.signal ?? null;
  return {
    ending: tree.stoppedFor ?? (spawnFailed ? { kind: "spawn_failed", message: spawnMessage(result) } : endingOfExit(exitCode, signal)),
    exitCode,
    signal,
    stdoutTail: stdoutTail.text,
    stderrTail: stderrTail.text,
    durationMs: Date.now() - started,
    command,
    sweptPids: swept,
  };
}

/** The endings we cause by stopping a run (the others are Node's to report). */
type StopCause = Extract<ProcessEnding, { kind: "timeout" | "idle_timeout" | "canceled" | "stopped" | "output_limit" }>;

/** The bound that was passed (the whole output's when the budget does not say). */
function outputLimitEnding(hit: OutputLimitHit | undefined): StopCause {
  return { kind: "output_limit", bound: hit?.bound ?? "output_bytes", limit: hit?.limit ?? 0 };
}

/** Why the program could not be started (ENOENT, EACCES), as execa reports it. */
function spawnMessage(result: { shortMessage?: string; originalMessage?: string }): string {
  return result.originalMessage ?? result.shortMessage ?? "unknown error";
}

export { describeProcessEnding, endingOfExit, type ProcessEnding } from "./process-end.js";
export { OutputBudget, type OutputBound, type OutputBounds, type OutputLimitHit } from "./bounded-lines.js";
