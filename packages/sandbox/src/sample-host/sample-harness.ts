/**
 * The runner's side of one long-lived `sample_harness.py`: starts it through the sandbox, waits for it to load
 * the deliverable, then sends cases as JSON lines and reads reply frames by id, so any number of cases can be in
 * flight at once: a sample's cases go in as one batch (writes queued in one tick go out as one write), the harness
 * runs `spares` of them at a time and says when each starts (`{"started":N}`), and their ends stream back.
 *
 * Each case's deadline is its own: it runs from when the case starts, not from when it was sent. The runner keeps
 * its own count of the cases that may run (`spares`, in the order they were sent) and starts a case's deadline when
 * a slot is free for it in that count; the harness's "started" line, which comes once the fork got its case, starts
 * it again from there (once). So a case that hangs eats only its own time, a case queued behind it is not charged
 * for the wait, and a harness that never says "started" still meets a deadline. A "started" line for a case the
 * runner's count has not let start (the harness running more than `spares` at once), for an unknown case, or twice
 * is the harness misbehaving.
 *
 * The harness runs inside the sandbox and is not trusted: every frame is read within byte caps (a flood never grows
 * this process past them), checked field by field (`reply-frame.ts`), and a frame that is malformed, oversized,
 * a duplicate or for an unknown case is the harness misbehaving: it is killed and every case in flight gets an
 * error. The runner keeps its own deadline per case; the harness's timer is only a courtesy. If the harness dies or
 * stops answering, every case waiting on it is rejected, never left hanging.
 */
import { basename, join } from "node:path";
import { stopProcess } from "./stop-process.js";
import type { ResourceLimits, Sandbox, SandboxProcess, SandboxResult } from "@skillrig/core";
import type { CaseReply, CaseRequest, LoadErrorMessage, ReadyMessage } from "./protocol.js";
import { FRAME_HEADER_BYTES, type FrameError, readFirstLine, readFrameHeader, readStartedFrame, type FrameHeader } from "./reply-frame.js";
import { describeProcessEnding, endingOfExit } from "@skillrig/process";

export interface HarnessStartOptions {
  sandbox: Sandbox;
  /** The Python interpreter, e.g. "python3". */
  python: string;
  harnessFile: string;
  entryFile: string;
  /** The function each case calls; absent or empty: a main program (the entry file run as `__main__` per case). */
  functionName?: string;
  /** Children the harness keeps forked ahead of need (about the number of cases run at once). */
  spares: number;
  /**
   * Cases the runner means to send (the task's tests), when known: each request then says how many still come,
   * so the harness forks no spare for a case that never comes. A hint only: fewer or more cases still run.
   */
  cases?: number;
  /** Writable working folder of the harness; each case runs in a sub-folder of it. */
  workDir: string;
  readOnlyPaths: string[];
  /** Limits of the harness process as a whole (each case gets its own, tighter ones from the harness). */
  limits: ResourceLimits;
  /** How long the import may take. */
  loadTimeoutMs: number;
  /** Extra time a case may take past its own wall limit before the harness counts as stuck. */
  stuckGraceMs: number;
  signal?: AbortSignal;
  /** A process already started for this harness (a pair of the shared host) instead of a sandbox spawn of its own. */
  process?: SandboxProcess;
}

export type HarnessLoad = { ok: true; ready: ReadyMessage } | { ok: false; error: LoadErrorMessage };

/** The harness itself ended, misbehaved or stopped answering while a case waited on it. */
export class HarnessDiedError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
    this.name = "HarnessDiedError";
  }
}

/** This case ran past the runner's own deadline (its wall limit plus the grace) without an answer. */
export class CaseOverranError extends HarnessDiedError {
  constructor(
    message: string,
    details: Record<string, unknown>,
    readonly wallMs: number,
  ) {
    super(message, details);
    this.name = "CaseOverranError";
  }
}

interface Pending {
  request: CaseRequest;
  resolve(reply: CaseReply): void;
  reject(error: Error): void;
  /** The case's deadline, armed once a slot is free for it (undefined while it waits behind others). */
  timer: NodeJS.Timeout | undefined;
  sentAt: number;
  /** When its deadline started: a slot was free for it, then the harness's "started" line. */
  startedAt?: number;
  /** The harness said it started. */
  harnessStarted?: boolean;
}

/** A reply being read: its checked header, then its sections, each kept only up to its cap. */
interface FrameInProgress {
  header: FrameHeader;
  pending: Pending;
  section: number;
  left: number;
  kept: Buffer[];
  keptBytes: number;
  cap: number;
  sections: Buffer[];
  overCap?: "value" | "stdout" | "stderr";
}

const STDERR_TAIL_CHARS = 4000;
/** The first line (ready / load_error) carries a signature and the import's prints, each bounded by the harness. */
const FIRST_LINE_BYTES = 1024 * 1024;
const SECTION_NAMES = ["value", "stdout", "stderr"] as const;

export class SampleHarness {
  readonly #process: SandboxProcess;
  readonly #options: HarnessStartOptions;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #sent = 0;
  #outbox: string[] = [];
  #flushScheduled = false;
  /** Bytes of an incomplete line (the first line or a frame header); never more than its cap. */
  #lineParts: Buffer[] = [];
  #lineBytes = 0;
  #frame: FrameInProgress | undefined;
  #answered = new Set<number>();
  /** Cases sent that have no slot yet in the runner's count, in the order they were sent. */
  #queued: number[] = [];
  /** Cases with a slot in the runner's count (at most `spares`) and no reply yet. */
  #running = 0;
  #stderrTail = "";
  #dead: HarnessDiedError | undefined;
  #onFirstLine: ((line: string) => void) | undefined;
  #stopping = false;
  #runtimeLost = false;
  readonly exited: Promise<SandboxResult>;

  private constructor(options: HarnessStartOptions) {
    this.#options = options;
    this.#process =
      options.process ??
      options.sandbox.spawn({
        // -S: the harness adds site's paths itself, without site's start-up code (sample_harness.add_site_paths).
        command: [options.python, "-S", options.harnessFile, ...harnessProgramArgs(options), String(options.spares)],
        cwd: options.workDir,
        readOnlyPaths: options.readOnlyPaths,
        // Bytecode caches would be written next to the deliverable; UTF-8 I/O keeps non-ASCII prints stable on any locale.
        env: { PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" },
        limits: options.limits,
        signal: options.signal,
      });
    const { stdin, stdout, stderr } = this.#process;
    stdin.on("error", () => {}); // EPIPE when the harness died; the exit handler reports it.
    stdout.on("data", (chunk: Buffer) => this.#onStdout(chunk));
    stderr.setEncoding("utf8");
    stderr.on("data", (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    this.exited = this.#process.exited;
    this.exited.then(
      (result) => {
        this.#runtimeLost = (result as { runtimeLost?: true }).runtimeLost === true;
        this.#die(this.#describeExit(result), {
          exit_code: result.exitCode,
          signal: result.signal,
          stderr: this.#stderrTail,
          // The shared host itself ended (not this sample's harness): the plugin re-runs what was affected elsewhere.
          ...(this.#runtimeLost ? { runtime_lost: true } : {}),
        });
      },
      (error: unknown) => this.#die(`the sample harness failed: ${(error as Error)?.message ?? error}`, { stderr: this.#stderrTail }),
    );
  }

  /** Starts a harness and waits until it has imported the deliverable (or failed to). */
  static async start(options: HarnessStartOptions): Promise<{ harness: SampleHarness; load: HarnessLoad }> {
    const harness = new SampleHarness(options);
    const load = await harness.#waitForLoad();
    return { harness, load };
  }

  /** The process ended because the shared host it ran in was lost, not through anything this sample did. */
  get runtimeLost(): boolean {
    return this.#runtimeLost;
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  get isolation(): string {
    return this.#process.isolation;
  }

  /**
   * Runs one case; `argsJson` is the JSON text of its args list. Resolves with the checked reply; rejects with
   * CaseOverranError (this case passed the runner's deadline) or HarnessDiedError.
   */
  run(fields: Omit<CaseRequest, "id">, argsJson?: string): Promise<CaseReply> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    const request: CaseRequest = { id, ...fields };
    const { cases } = this.#options;
    if (cases !== undefined) request.more = Math.max(0, cases - (this.#sent += 1));
    return new Promise<CaseReply>((resolve, reject) => {
      this.#pending.set(id, { request, resolve, reject, timer: undefined, sentAt: performance.now() });
      this.#queued.push(id);
      this.#admit();
      // The args go in as the task file's own JSON text, so Python's json reads them as it would read the file.
      this.#send(argsJson === undefined ? JSON.stringify(request) : `${JSON.stringify(request).slice(0, -1)},"args":${argsJson}}`);
    });
  }

  /** Gives the first queued cases the free slots of the runner's count, and starts their deadlines. */
  #admit(): void {
    const slots = Math.max(1, this.#options.spares);
    while (this.#running < slots && this.#queued.length > 0) {
      const id = this.#queued.shift()!;
      const pending = this.#pending.get(id);
      if (!pending) continue;
      this.#running++;
      this.#startDeadline(id, pending);
    }
  }

  /** The runner's own deadline for a case, from now: the harness's timer is a courtesy; past this, the harness is stopped. */
  #startDeadline(id: number, pending: Pending): void {
    clearTimeout(pending.timer);
    pending.startedAt = performance.now();
    const deadline = pending.request.wall_ms + this.#options.stuckGraceMs;
    pending.timer = setTimeout(() => {
      this.#die(
        `the sample harness did not answer within ${deadline} ms of the case's start (case limit ${pending.request.wall_ms} ms); it was stopped`,
        { stderr: this.#stderrTail },
        id,
      );
      this.#process.kill();
    }, deadline);
    pending.timer.unref?.();
  }

  /** The harness's "started" line for case `id`: its deadline runs from now (once). */
  #onStarted(id: number): void {
    const pending = this.#pending.get(id);
    if (!pending) {
      const why = this.#answered.has(id) ? "a start for case" : "a start for unknown case";
      this.#misbehaved(`the sample harness sent ${why} ${id}${this.#answered.has(id) ? ", which was answered already" : ""}`);
      return;
    }
    if (pending.startedAt === undefined) {
      this.#misbehaved(
        `the sample harness started case ${id} while ${this.#running} case(s) ran, more than the ${Math.max(1, this.#options.spares)} it may run at once`,
      );
      return;
    }
    if (pending.harnessStarted) {
      this.#misbehaved(`the sample harness sent a second start for case ${id}`);
      return;
    }
    pending.harnessStarted = true;
    this.#startDeadline(id, pending);
  }

  /** Closes the harness's input (it kills running cases and exits); kills the whole tree if it lingers. */
  async stop(graceMs = 2000): Promise<void> {
    this.#stopping = true;
    this.#flush();
    // The sandbox kills what is left of the tree (cases' lingering children) once the harness is gone.
    await stopProcess(this.#process, graceMs);
  }

  /** Kills the harness at once (tests use it to see what a harness crash looks like). */
  kill(): void {
    this.#process.kill();
  }

  #send(line: string): void {
    this.#outbox.push(line);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#outbox.length === 0 || this.#dead) return;
    const data = `${this.#outbox.join("\n")}\n`;
    this.#outbox = [];
    this.#process.stdin.write(data);
  }

  #onStdout(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.#dead) {
      if (this.#frame) {
        at = this.#readSection(chunk, at);
        continue;
      }
      const newline = chunk.indexOf(10, at);
      const end = newline < 0 ? chunk.length : newline;
      const cap = this.#onFirstLine ? FIRST_LINE_BYTES : FRAME_HEADER_BYTES;
      if (this.#lineBytes + (end - at) > cap) {
        this.#misbehaved(`the sample harness sent a line longer than ${cap} bytes`);
        return;
      }
      this.#lineParts.push(chunk.subarray(at, end));
      this.#lineBytes += end - at;
      if (newline < 0) return;
      at = newline + 1;
      const line = Buffer.concat(this.#lineParts).toString("utf8");
      this.#lineParts = [];
      this.#lineBytes = 0;
      if (line.length > 0) this.#onLine(line);
    }
  }

  #onLine(line: string): void {
    if (this.#onFirstLine) {
      const first = this.#onFirstLine;
      this.#onFirstLine = undefined;
      first(line);
      return;
    }
    const started = readStartedFrame(line);
    if (started !== undefined) {
      this.#onStarted(started);
      return;
    }
    let header: FrameHeader;
    try {
      header = readFrameHeader(line);
    } catch (error) {
      this.#misbehaved((error as FrameError).message);
      return;
    }
    const pending = this.#pending.get(header.id);
    if (header.folder !== undefined && !this.#isCaseFolder(header.folder)) {
      this.#misbehaved(
        `the sample harness named ${JSON.stringify(header.folder.slice(0, 200))} as case ${header.id}'s folder, which is not one of its case folders`,
      );
      return;
    }
    if (!pending) {
      const why = this.#answered.has(header.id) ? "a second reply for case" : "a reply for unknown case";
      this.#misbehaved(`the sample harness sent ${why} ${header.id}`);
      return;
    }
    this.#frame = {
      header,
      pending,
      section: 0,
      left: header.value_len,
      kept: [],
      keptBytes: 0,
      cap: pending.request.value_bytes,
      sections: [Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)],
    };
    this.#advanceSection();
  }

  /** Takes the current section's bytes from `chunk`; what passes the section's cap is counted and dropped. */
  #readSection(chunk: Buffer, at: number): number {
    const frame = this.#frame!;
    const take = Math.min(frame.left, chunk.length - at);
    const keep = Math.min(take, frame.cap - frame.keptBytes);
    if (keep > 0) {
      frame.kept.push(chunk.subarray(at, at + keep));
      frame.keptBytes += keep;
    }
    frame.left -= take;
    if (frame.left === 0) {
      frame.sections[frame.section] = Buffer.concat(frame.kept);
      frame.section++;
      this.#advanceSection();
    }
    return at + take;
  }

  /** Starts the next section that has bytes, or completes the frame when none is left. */
  #advanceSection(): void {
    const frame = this.#frame!;
    const lengths = [frame.header.value_len, frame.header.stdout_len, frame.header.stderr_len];
    const caps = [frame.pending.request.value_bytes, frame.pending.request.output_bytes, frame.pending.request.output_bytes];
    while (frame.section < 3) {
      const index = frame.section;
      if (lengths[index]! > 0) {
        frame.left = lengths[index]!;
        frame.kept = [];
        frame.keptBytes = 0;
        frame.cap = caps[index]!;
        if (frame.left > frame.cap) frame.overCap ??= SECTION_NAMES[index];
        return;
      }
      frame.section++;
    }
    this.#frame = undefined;
    const { header, pending, sections, overCap } = frame;
    this.#pending.delete(header.id);
    this.#answered.add(header.id);
    clearTimeout(pending.timer);
    if (pending.startedAt !== undefined) this.#running--;
    else this.#queued = this.#queued.filter((id) => id !== header.id);
    this.#admit();
    const { value_len: _v, stdout_len: _o, stderr_len: _e, ...call } = header;
    const queuedMs = (pending.startedAt ?? performance.now()) - pending.sentAt;
    pending.resolve({
      ...call,
      queuedMs,
      valueJson: sections[0]!.toString("utf8"),
      stdout: sections[1]!.toString("utf8"),
      stderr: sections[2]!.toString("utf8"),
      ...(overCap ? { overCap } : {}),
    } as CaseReply);
  }

  /**
   * A main case's folder as the harness names it: only a folder the harness makes for a case (`case-<16 hex>`, right
   * in its working folder) is one, so a reply cannot point the runner at anything else to read or remove.
   */
  #isCaseFolder(folder: string): boolean {
    return (
      !this.#options.functionName &&
      folder === join(this.#options.workDir, basename(folder)) &&
      /^case-[0-9a-f]{16}$/.test(basename(folder))
    );
  }

  /** The harness broke the protocol: it is stopped, and every case in flight gets an error. */
  #misbehaved(reason: string): void {
    this.#die(`the sample harness misbehaved and was stopped: ${reason}`, { stderr: this.#stderrTail, harness: "misbehaved" });
    this.#process.kill();
  }

  #waitForLoad(): Promise<HarnessLoad> {
    const { loadTimeoutMs, entryFile } = this.#options;
    return new Promise<HarnessLoad>((resolve) => {
      let settled = false;
      const settle = (load: HarnessLoad) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(load);
      };
      const timer = setTimeout(() => {
        this.#process.kill();
        settle({
          ok: false,
          error: {
            op: "load_error",
            kind: "import_error",
            message: `importing ${baseName(entryFile)} did not finish within ${loadTimeoutMs} ms; the harness was stopped`,
          },
        });
      }, loadTimeoutMs);
      this.#onFirstLine = (line) => {
        try {
          const message = readFirstLine(line);
          settle(message.op === "ready" ? { ok: true, ready: message } : { ok: false, error: message });
        } catch (error) {
          this.#process.kill();
          settle({ ok: false, error: { op: "load_error", kind: "import_error", message: (error as Error).message } });
        }
      };
      this.exited.then(
        (result) =>
          settle({
            ok: false,
            error: {
              op: "load_error",
              kind: "import_error",
              message: `the sample harness ended before it loaded ${baseName(entryFile)}: ${this.#describeExit(result)}`,
              stderr: this.#stderrTail,
            },
          }),
        (error: unknown) =>
          settle({
            ok: false,
            error: {
              op: "load_error",
              kind: "import_error",
              message: `the sample harness could not start: ${(error as Error)?.message ?? error}`,
            },
          }),
      );
    });
  }

  #describeExit(result: SandboxResult): string {
    if ((result as { runtimeLost?: true }).runtimeLost) return result.stderr;
    const how = `it ${describeProcessEnding(endingOfExit(result.exitCode, result.signal))}`;
    const why = result.timedOut
      ? " (the harness's own time limit passed)"
      : result.memoryLimited
        ? " (memory limit)"
        : result.diskLimited
          ? " (its working folder passed the disk cap of its cases together, sandbox.limits.disk_bytes)"
          : "";
    const tail = this.#stderrTail.trim().split("\n").slice(-3).join(" | ");
    return `the sample harness died: ${how}${why}${tail ? `; stderr: ${tail}` : ""}`;
  }

  /** Fails every case in flight; `overran` is the case whose deadline passed (it gets a CaseOverranError). */
  #die(message: string, details: Record<string, unknown>, overran?: number): void {
    if (this.#dead) return;
    this.#dead = new HarnessDiedError(this.#stopping ? "the sample harness was stopped (the task run ended)" : message, details);
    this.#frame = undefined;
    this.#lineParts = [];
    this.#queued = [];
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(id === overran ? new CaseOverranError(message, details, pending.request.wall_ms) : this.#dead);
      this.#pending.delete(id);
    }
  }
}

/** How the harness is told what to load: `<entry> <function>`, or `--main <entry>` for a main program. */
export function harnessProgramArgs(options: { entryFile: string; functionName?: string }): string[] {
  return options.functionName ? [options.entryFile, options.functionName] : ["--main", options.entryFile];
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
