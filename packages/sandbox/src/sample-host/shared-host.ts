/**
 * The runner's side of `sample_host.py`: one sandboxed Python parent, started once and kept for the Runner's life,
 * that serves many (task, sample) pairs at once. Each pair is a process of its own inside the runtime, under a uid
 * leased for that pair alone; `openPair` returns it as a SandboxProcess, so `SampleHarness` speaks to it exactly as
 * to a harness it started alone.
 *
 * The runtime is untrusted like everything in the sandbox: its stream is read within byte caps, a frame for a pair
 * that is not open or a malformed header is the runtime misbehaving (it is killed). When the runtime dies or stalls
 * (no heartbeat), every open pair ends with `runtimeLost`, so the plugin can re-run what was affected elsewhere
 * rather than blame a sample for another's doing.
 */
import { harnessProgramArgs } from "./sample-harness.js";
import { stopProcess } from "./stop-process.js";
import { lchownSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { PassThrough, Writable } from "node:stream";
import type { ResourceLimits, SampleUidSupport, SandboxProcess, SandboxResult } from "@skillrig/core";
import { describeProcessEnding, endingOfExit } from "@skillrig/process";

/** Part of core's sandbox contract (`Sandbox.sampleUids`): re-exported where the host's modules always found them. */
export type { SampleUidLease, SampleUidSupport } from "@skillrig/core";

export interface SharedHostOptions {
  support: SampleUidSupport;
  python: string;
  runtimeFile: string;
  harnessFile: string;
  /** The runtime's writable folder (each pair gets a sub-folder owned by its uid). */
  workDir: string;
  /** Read-only inside: the code folder and the samples folder (snapshots copied in by the runner). */
  readOnlyPaths: string[];
  limits: ResourceLimits;
  /** How long the runtime may stay silent (no heartbeat) before it counts as stalled. Default 30 000 ms. */
  stallMs?: number;
}

export interface PairRequest {
  uid: number;
  entryFile: string;
  /** Absent: a main program (see FunctionHarness). */
  functionName?: string;
  spares: number;
  /** The pair's working folder (owned by its uid) and its private temp folder. */
  cwd: string;
  tmp: string;
  /** The pair's own limits: wall for the pair as a whole (runner-side), the rest as rlimits of its processes. */
  limits: ResourceLimits;
  /**
   * The runner's end of the pair's own channel: a path in a folder only the pair's uid may enter (0700), where this
   * listens for the pair's one connection. The pair process connects after its uid switch and removes the path
   * before anything of the sample runs; its stdin and stdout then go straight between the runner and its harness,
   * not through the host's relay. Without it (a path too long for a Unix socket), the host relays them.
   */
  channel?: { path: string; uid: number };
}

/** A pair's end, as a SandboxResult plus whether the runtime (not the pair) was what ended it. */
export type PairResult = SandboxResult & { runtimeLost?: true };

/** Bytes a runtime frame header may hold, and a chunk it may carry (it sends 64 KiB at most). */
const HEADER_BYTES = 512;
const CHUNK_BYTES = 256 * 1024;
const STDERR_TAIL = 4000;

interface OpenPair {
  stdout: PassThrough;
  stderr: PassThrough;
  settle(result: Partial<PairResult>): void;
  killedByUs: boolean;
}

export class SharedHost {
  readonly #process: SandboxProcess;
  readonly #pairs = new Map<number, OpenPair>();
  readonly #stallMs: number;
  #nextPair = 1;
  #line: Buffer[] = [];
  #lineBytes = 0;
  #body: { pair: number; stream: "o" | "e"; left: number } | undefined;
  #lost: string | undefined;
  #lastHeard = Date.now();
  #stderrTail = "";
  readonly #watchdog: NodeJS.Timeout;
  readonly ready: Promise<void>;
  readonly exited: Promise<SandboxResult>;

  constructor(options: SharedHostOptions) {
    this.#stallMs = options.stallMs ?? 30_000;
    this.#process = options.support.spawnSampleHost({
      // -S: the runtime adds site's paths itself, without site's start-up code (sample_harness.add_site_paths).
      command: [options.python, "-S", options.runtimeFile, options.harnessFile],
      cwd: options.workDir,
      readOnlyPaths: options.readOnlyPaths,
      env: { PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" },
      limits: options.limits,
    });
    this.#process.stdin.on("error", () => {});
    this.#process.stderr.setEncoding("utf8");
    this.#process.stderr.on("data", (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL);
    });
    let markReady!: () => void;
    let failReady!: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined);
    this.#onReady = markReady;
    this.#process.stdout.on("data", (chunk: Buffer) => this.#onData(chunk));
    this.exited = this.#process.exited;
    this.exited.then(
      (result) => {
        const how = describeProcessEnding(endingOfExit(result.exitCode, result.signal));
        const why = result.memoryLimited
          ? " (the runtime's tree passed its memory cap)"
          : result.diskLimited
            ? " (the runtime's working folder passed its disk cap)"
            : "";
        this.#lose(`the sample host ended (${how}${why})${this.#tail()}`);
        failReady(new Error(this.#lost));
      },
      (error: unknown) => {
        this.#lose(`the sample host failed: ${(error as Error)?.message ?? error}`);
        failReady(new Error(this.#lost));
      },
    );
    this.#watchdog = setInterval(() => {
      if (Date.now() - this.#lastHeard > this.#stallMs) {
        this.#lose(`the sample host sent nothing for ${this.#stallMs} ms (stalled); it was stopped`);
        this.#process.kill();
      }
    }, 1000);
    this.#watchdog.unref();
  }

  #onReady: (() => void) | undefined;

  get alive(): boolean {
    return this.#lost === undefined;
  }

  get isolation(): string {
    return this.#process.isolation;
  }

  get openPairs(): number {
    return this.#pairs.size;
  }

  /** Starts a pair process inside the runtime; its pipes and end look like a sandboxed process of its own. */
  openPair(request: PairRequest): SandboxProcess {
    const id = this.#nextPair++;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const started = performance.now();
    let stderrText = "";
    stderr.on("data", (chunk: Buffer) => {
      stderrText = (stderrText + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    let resolveExit!: (result: PairResult) => void;
    const exited = new Promise<PairResult>((resolve) => {
      resolveExit = resolve;
    });
    let wallTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const channel = request.channel && !this.#lost ? openChannel(request.channel, stdout) : undefined;
    const pair: OpenPair = {
      stdout,
      stderr,
      killedByUs: false,
      settle: (end) => {
        if (!this.#pairs.delete(id) && end.runtimeLost === undefined) return;
        clearTimeout(wallTimer);
        clearTimeout(killTimer);
        // The pair's last replies may still be on its channel: the pair is gone, so it reaches its end soon.
        const finish = () => {
          stdout.end();
          stderr.end();
          resolveEnd(end);
        };
        if (channel && end.runtimeLost !== true) channel.drain(finish);
        else {
          channel?.destroy();
          finish();
        }
      },
    };
    const resolveEnd = (end: Partial<PairResult>) =>
      resolveExit({
        command: ["sample-host", "pair", String(id)],
        exitCode: null,
        signal: null,
        stdout: "",
        stderr: stderrText,
        durationMs: performance.now() - started,
        timedOut,
        outputLimited: false,
        memoryLimited: false,
        cpuLimited: false,
        fileSizeLimited: false,
        isolation: this.#process.isolation,
        ...end,
      });
    const kill = () => {
      if (!this.#pairs.has(id)) return;
      pair.killedByUs = true;
      this.#send({ op: "kill", pair: id });
      // A runtime that does not report the pair's end soon after a kill is not doing its job.
      killTimer ??= setTimeout(() => {
        this.#lose("the sample host did not end a pair it was told to kill; it was stopped");
        this.#process.kill();
      }, 10_000);
      killTimer.unref();
    };
    const stdin = channel
      ? channel.input
      : new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            if (this.#pairs.has(id)) this.#send({ op: "in", pair: id, len: chunk.length }, chunk);
            done();
          },
          final: (done) => {
            if (this.#pairs.has(id)) this.#send({ op: "close", pair: id });
            done();
          },
        });
    if (this.#lost) {
      queueMicrotask(() => pair.settle({ runtimeLost: true, stderr: this.#lost }));
      this.#pairs.set(id, pair);
    } else {
      this.#pairs.set(id, pair);
      this.#send({
        op: "open",
        pair: id,
        uid: request.uid,
        argv: [...harnessProgramArgs(request), String(request.spares)],
        // One case at a time: the pair's whole tree stays on one core (see "One core per pair" in the README).
        pin: request.spares === 1,
        cwd: request.cwd,
        tmp: request.tmp,
        ...(channel ? { channel: request.channel?.path } : {}),
        rlimits: {
          nproc: request.limits.maxProcesses,
          as: request.limits.memoryBytes,
          cpu: request.limits.cpuMs ? Math.max(1, Math.ceil(request.limits.cpuMs / 1000)) : undefined,
          fsize: request.limits.fileSizeBytes,
        },
      });
      if (Number.isFinite(request.limits.wallMs) && request.limits.wallMs < 2 ** 31) {
        wallTimer = setTimeout(() => {
          timedOut = true;
          kill();
        }, request.limits.wallMs);
        wallTimer.unref();
      }
    }
    return {
      stdin,
      stdout,
      stderr,
      pid: undefined,
      isolation: this.#process.isolation,
      kill,
      exited,
    };
  }

  /** Closes the runtime's input (it kills every pair and exits); kills its whole tree if it lingers. */
  async stop(graceMs = 2000): Promise<void> {
    clearInterval(this.#watchdog);
    await stopProcess(this.#process, graceMs);
  }

  /** Kills the runtime at once (tests use it to see what a runtime crash does to the pairs in flight). */
  kill(): void {
    this.#process.kill();
  }

  #send(header: Record<string, unknown>, body?: Buffer): void {
    if (this.#lost) return;
    const line = Buffer.from(`${JSON.stringify(header)}\n`);
    this.#process.stdin.write(body ? Buffer.concat([line, body]) : line);
  }

  #onData(chunk: Buffer): void {
    this.#lastHeard = Date.now();
    let at = 0;
    while (at < chunk.length && !this.#lost) {
      if (this.#body) {
        const take = Math.min(this.#body.left, chunk.length - at);
        const pair = this.#pairs.get(this.#body.pair);
        // A pair that was settled meanwhile (killed, runner gave up) has no reader left: its bytes are dropped.
        if (pair && take > 0) (this.#body.stream === "o" ? pair.stdout : pair.stderr).write(chunk.subarray(at, at + take));
        this.#body.left -= take;
        at += take;
        if (this.#body.left === 0) this.#body = undefined;
        continue;
      }
      const newline = chunk.indexOf(10, at);
      const end = newline < 0 ? chunk.length : newline;
      if (this.#lineBytes + (end - at) > HEADER_BYTES) {
        this.#misbehaved("a header line longer than its cap");
        return;
      }
      this.#line.push(chunk.subarray(at, end));
      this.#lineBytes += end - at;
      if (newline < 0) return;
      at = newline + 1;
      const text = Buffer.concat(this.#line).toString("utf8");
      this.#line = [];
      this.#lineBytes = 0;
      this.#onHeader(text);
    }
  }

  #onHeader(text: string): void {
    let header: Record<string, unknown>;
    try {
      header = JSON.parse(text);
    } catch {
      this.#misbehaved("a header that is not JSON");
      return;
    }
    if (header === null || typeof header !== "object") {
      this.#misbehaved("a header that is not an object");
      return;
    }
    if (header.op === "beat") return;
    if (header.op === "ready") {
      this.#onReady?.();
      this.#onReady = undefined;
      return;
    }
    const id = header.pair;
    if (typeof id !== "number" || !Number.isInteger(id) || id <= 0 || id >= this.#nextPair) {
      this.#misbehaved("a frame for a pair that was never opened");
      return;
    }
    if (header.op === "exit") {
      const code = header.code;
      const signal = header.signal;
      if ((code !== null && !Number.isInteger(code)) || (signal !== null && typeof signal !== "string")) {
        this.#misbehaved("a malformed pair end");
        return;
      }
      this.#pairs.get(id)?.settle({ exitCode: code as number | null, signal: signal as string | null });
      return;
    }
    const len = header.len;
    if ((header.s !== "o" && header.s !== "e") || typeof len !== "number" || !Number.isInteger(len) || len < 0 || len > CHUNK_BYTES) {
      this.#misbehaved("a malformed output frame");
      return;
    }
    if (len > 0) this.#body = { pair: id, stream: header.s, left: len };
  }

  #misbehaved(why: string): void {
    this.#lose(`the sample host misbehaved and was stopped: it sent ${why}`);
    this.#process.kill();
  }

  #lose(message: string): void {
    if (this.#lost) return;
    this.#lost = message;
    clearInterval(this.#watchdog);
    for (const pair of [...this.#pairs.values()]) pair.settle({ runtimeLost: true, stderr: message });
    this.#pairs.clear();
  }

  #tail(): string {
    const tail = this.#stderrTail.trim().split("\n").slice(-3).join(" | ");
    return tail ? `; stderr: ${tail}` : "";
  }
}

/** Bytes a Unix socket's path may hold (sun_path, with its terminating zero). */
export const SOCKET_PATH_BYTES = 107;

interface Channel {
  /** What the runner writes to the pair's harness (buffered until the pair connects). */
  input: Writable;
  /** Calls `done` once the pair's end of the channel is closed (the pair ended), or after a grace. */
  drain(done: () => void): void;
  destroy(): void;
}

/**
 * Listens at `path` for the pair's one connection (the socket is made the pair uid's alone, 0600, in its 0700
 * folder); what the pair writes goes to `output`. A second connection is never served: the listener closes on the
 * first one, and the pair removed the path before anything of the sample ran. Undefined when it cannot listen there
 * (the host then relays the pair's stdin and stdout, as without a channel). Exported for its tests only.
 */
export function openChannel(spec: { path: string; uid: number }, output: PassThrough): Channel | undefined {
  const server = createServer({ allowHalfOpen: true });
  let socket: Socket | undefined;
  let ended = false;
  let closed = false;
  let onClosed: (() => void) | undefined;
  const pending: { chunk: Buffer; done: (error?: Error | null) => void }[] = [];
  const stopListening = () => {
    if (server.listening) server.close();
    rmSync(spec.path, { force: true });
  };
  server.on("error", () => stopListening()); // the pair cannot connect: it says so on stderr and ends
  server.on("connection", (connection) => {
    if (socket) {
      connection.destroy();
      return;
    }
    socket = connection;
    stopListening();
    connection.on("error", () => {}); // the pair died mid-write; its end comes from the host
    connection.on("data", (chunk: Buffer) => output.write(chunk));
    connection.on("close", () => {
      closed = true;
      onClosed?.();
    });
    for (const { chunk, done } of pending.splice(0)) connection.write(chunk, done);
    if (ended) connection.end();
  });
  // Whatever is at the path goes first (a restarted pair's folder was its sample's to write in; rm follows no link).
  rmSync(spec.path, { force: true });
  server.listen(spec.path);
  try {
    // Bound now (listen binds at once), then handed to the pair's uid (lchown: never a link's target), before the
    // pair is told to connect. Its mode is the runner's umask's; the 0700 folder keeps every other uid out.
    lchownSync(spec.path, spec.uid, spec.uid);
  } catch {
    stopListening();
    return undefined;
  }
  const input = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      if (socket) socket.write(chunk, () => done());
      else pending.push({ chunk, done: () => done() });
    },
    final: (done) => {
      ended = true;
      socket?.end();
      done();
    },
  });
  input.on("error", () => {});
  const destroy = () => {
    stopListening();
    socket?.destroy();
    closed = true;
    for (const { done } of pending.splice(0)) done();
  };
  return {
    input,
    drain(done) {
      if (closed) {
        destroy();
        done();
        return;
      }
      // No connection yet is not "never connected": the host reports a pair's end on its own channel, and a pair
      // that connected, wrote its last line (a load error) and exited quickly can still be in the accept queue. The
      // listener stays open for it until the grace passes; closing it now would drop the connection and what it
      // holds, and the runner would see a harness that "ended before it loaded" instead of the load error.
      if (socket) stopListening();
      const grace = setTimeout(() => {
        destroy();
        done();
      }, 2000);
      grace.unref();
      onClosed = () => {
        clearTimeout(grace);
        done();
      };
    },
    destroy,
  };
}
