/**
 * Runs an engine CLI with execa and owns its whole process tree: the CLI starts in its own process group
 * (detached), and a wall-clock timeout, an idle-output watchdog or a cancel kills the group and every
 * descendant found in /proc (a CLI's tool may start its own session, which leaves the group). After a
 * normal exit the group is swept too, so a tool's background child never outlives the job.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { execa } from "execa";

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
}

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

/** Child pids of every process, from /proc (Linux); empty elsewhere. */
function childrenMap(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return map;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces; fields after it are fixed.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      const list = map.get(ppid) ?? [];
      list.push(Number(name));
      map.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  return map;
}

/** `pid` and all its descendants. */
export function processTree(pid: number): number[] {
  const children = childrenMap();
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    out.push(p);
    queue.push(...(children.get(p) ?? []));
  }
  return out;
}

/** Members of process group `pgid`, from /proc. */
export function processGroupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[0] state, [1] ppid, [2] pgrp; zombies are already dead.
      if (Number(fields[2]) === pgid && fields[0] !== "Z") out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone (ESRCH) or not ours: nothing to do.
  }
}

/** Signals the group and each known descendant. */
function killTree(pgid: number, known: Set<number>, signal: NodeJS.Signals): void {
  kill(-pgid, signal);
  for (const pid of known) kill(pid, signal);
}

/**
 * Engine process groups still running. The CLIs run detached, so a Ctrl-C on skillrig (which signals
 * skillrig's own group) would not reach them: on exit or SIGINT/SIGTERM skillrig kills them itself.
 */
const activeGroups = new Set<number>();

function killActiveGroups(): void {
  for (const pgid of activeGroups) kill(-pgid, "SIGKILL");
}

function onTerminatingSignal(signal: NodeJS.Signals): void {
  killActiveGroups();
  process.off("SIGINT", onTerminatingSignal);
  process.off("SIGTERM", onTerminatingSignal);
  // With no other handler, keep the signal's default meaning: end the process.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function track(pgid: number): void {
  if (activeGroups.size === 0) {
    process.on("exit", killActiveGroups);
    process.on("SIGINT", onTerminatingSignal);
    process.on("SIGTERM", onTerminatingSignal);
  }
  activeGroups.add(pgid);
}

function untrack(pgid: number): void {
  activeGroups.delete(pgid);
  if (activeGroups.size === 0) {
    process.off("exit", killActiveGroups);
    process.off("SIGINT", onTerminatingSignal);
    process.off("SIGTERM", onTerminatingSignal);
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
    stdin: "ignore",
    detached: true,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
  });

  let end: ProcessEnd = "exited";
  let stopReason: string | undefined;
  let timedOutBySignal = false;
  const known = new Set<number>();
  let killTimer: NodeJS.Timeout | undefined;
  const pid = child.pid;
  if (pid !== undefined) track(pid);

  const stop = (why: ProcessEnd) => {
    if (end !== "exited" || pid === undefined) return;
    end = why;
    for (const p of processTree(pid)) known.add(p);
    killTree(pid, known, "SIGTERM");
    killTimer = setTimeout(() => {
      for (const p of processTree(pid)) known.add(p);
      killTree(pid, known, "SIGKILL");
    }, options.killGraceMs ?? 2000);
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
  // runJob aborts with AbortSignal.timeout() for a job's time limit: that is a timeout, not a cancel.
  const onAbort = () => {
    if ((options.signal?.reason as { name?: string } | undefined)?.name !== "TimeoutError") return stop("canceled");
    timedOutBySignal = true;
    stop("timeout");
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });

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
  // stdout/stderr may still hold lines when the process is reaped; a descendant that keeps the pipe open
  // is swept below, which closes it.
  clearTimeout(wall);
  if (idle) clearInterval(idle);
  options.signal?.removeEventListener("abort", onAbort);

  // Sweep: anything left in the CLI's process group or below it (a tool's background child) is killed.
  const swept: number[] = [];
  if (pid !== undefined) {
    const leftovers = new Set([...processGroupMembers(pid), ...[...known].filter(isAlive)]);
    for (const p of processTree(pid)) if (p !== pid) leftovers.add(p);
    leftovers.delete(process.pid);
    for (const p of leftovers) {
      if (isAlive(p)) {
        swept.push(p);
        kill(p, "SIGKILL");
      }
    }
    kill(-pid, "SIGKILL");
    untrack(pid);
  }
  await Promise.race([Promise.all(readers), new Promise((r) => setTimeout(r, 2000))]);
  if (killTimer) clearTimeout(killTimer);

  const spawnFailed = result.failed && result.exitCode === undefined && result.signal === undefined && !result.isTerminated;
  const spawnError = spawnFailed ? ((result as { originalMessage?: string }).originalMessage ?? result.shortMessage) : undefined;
  return {
    end: spawnFailed && end === "exited" ? "spawn_failed" : end,
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdoutTail: stdoutTail.text,
    stderrTail: stderrTail.text,
    durationMs: Date.now() - started,
    command,
    spawnError,
    stopReason,
    timedOutBySignal,
    sweptPids: swept,
  };
}
