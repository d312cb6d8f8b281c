/**
 * The runner's side of one long-lived `function_harness.py`: starts it through the sandbox, waits for it to load
 * the deliverable, then sends cases as JSON lines and matches replies by id, so any number of cases can be in
 * flight at once. Writes queued in one tick go out as one write. If the harness dies or stops answering, every
 * case waiting on it is rejected with a `HarnessDiedError`, never left hanging.
 */
import type { ResourceLimits, Sandbox, SandboxProcess, SandboxResult } from "@skillrig/core";
import type { CaseReply, CaseRequest, LoadErrorMessage, ReadyMessage } from "./harness-protocol.js";

export interface HarnessStartOptions {
  sandbox: Sandbox;
  /** The Python interpreter, e.g. "python3". */
  python: string;
  harnessFile: string;
  entryFile: string;
  functionName: string;
  /** Children the harness keeps forked ahead of need (about the number of cases run at once). */
  spares: number;
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
}

export type HarnessLoad = { ok: true; ready: ReadyMessage } | { ok: false; error: LoadErrorMessage };

/** The harness itself ended or stopped answering while a case waited on it. */
export class HarnessDiedError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
    this.name = "HarnessDiedError";
  }
}

interface Pending {
  resolve(reply: CaseReply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

const STDERR_TAIL_CHARS = 4000;

export class FunctionHarness {
  readonly #process: SandboxProcess;
  readonly #options: HarnessStartOptions;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #outbox: string[] = [];
  #flushScheduled = false;
  #stdoutBuffer = "";
  #stderrTail = "";
  #dead: HarnessDiedError | undefined;
  #onFirstLine: ((line: string) => void) | undefined;
  #stopping = false;
  readonly exited: Promise<SandboxResult>;

  private constructor(options: HarnessStartOptions) {
    this.#options = options;
    this.#process = options.sandbox.spawn({
      command: [options.python, options.harnessFile, options.entryFile, options.functionName, String(options.spares)],
      cwd: options.workDir,
      readOnlyPaths: options.readOnlyPaths,
      // Bytecode caches would be written next to the deliverable; UTF-8 I/O keeps non-ASCII prints stable on any locale.
      env: { PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" },
      limits: options.limits,
      signal: options.signal,
    });
    const { stdin, stdout, stderr } = this.#process;
    stdin.on("error", () => {}); // EPIPE when the harness died; the exit handler reports it.
    stdout.setEncoding("utf8");
    stdout.on("data", (chunk: string) => this.#onStdout(chunk));
    stderr.setEncoding("utf8");
    stderr.on("data", (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    this.exited = this.#process.exited;
    this.exited.then(
      (result) => this.#die(this.#describeExit(result), { exit_code: result.exitCode, signal: result.signal, stderr: this.#stderrTail }),
      (error: unknown) => this.#die(`the function harness failed: ${(error as Error)?.message ?? error}`, { stderr: this.#stderrTail }),
    );
  }

  /** Starts a harness and waits until it has imported the deliverable (or failed to). */
  static async start(options: HarnessStartOptions): Promise<{ harness: FunctionHarness; load: HarnessLoad }> {
    const harness = new FunctionHarness(options);
    const load = await harness.#waitForLoad();
    return { harness, load };
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  get isolation(): string {
    return this.#process.isolation;
  }

  /** Runs one case; resolves with the harness's reply, rejects with HarnessDiedError. */
  run(request: Omit<CaseRequest, "id">): Promise<CaseReply> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<CaseReply>((resolve, reject) => {
      // The harness enforces the wall limit itself; this only catches a harness that stopped answering.
      const timer = setTimeout(() => {
        this.#die(
          `the function harness did not answer within ${request.wall_ms + this.#options.stuckGraceMs} ms (case limit ${request.wall_ms} ms); it was stopped`,
          {
            stderr: this.#stderrTail,
          },
        );
        this.#process.kill();
      }, request.wall_ms + this.#options.stuckGraceMs);
      timer.unref?.();
      this.#pending.set(id, { resolve, reject, timer });
      this.#send(JSON.stringify({ id, ...request }));
    });
  }

  /** Closes the harness's input (it kills running cases and exits); kills the whole tree if it lingers. */
  async stop(graceMs = 2000): Promise<void> {
    this.#stopping = true;
    this.#flush();
    this.#process.stdin.end();
    const timer = setTimeout(() => this.#process.kill(), graceMs);
    try {
      await this.exited.catch(() => undefined);
    } finally {
      clearTimeout(timer);
      // The sandbox kills what is left of the tree (cases' lingering children) once the harness is gone.
      this.#process.kill();
    }
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

  #onStdout(chunk: string): void {
    this.#stdoutBuffer += chunk;
    let newline = this.#stdoutBuffer.indexOf("\n");
    if (newline < 0) return;
    const text = this.#stdoutBuffer;
    let start = 0;
    while (newline >= 0) {
      const line = text.slice(start, newline);
      start = newline + 1;
      if (line.length > 0) this.#onLine(line);
      newline = text.indexOf("\n", start);
    }
    this.#stdoutBuffer = text.slice(start);
  }

  #onLine(line: string): void {
    if (this.#onFirstLine) {
      const first = this.#onFirstLine;
      this.#onFirstLine = undefined;
      first(line);
      return;
    }
    let reply: CaseReply;
    try {
      reply = JSON.parse(line) as CaseReply;
    } catch {
      this.#die(`the function harness sent a line that is not JSON: ${line.slice(0, 200)}`, { stderr: this.#stderrTail });
      this.#process.kill();
      return;
    }
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    clearTimeout(pending.timer);
    pending.resolve(reply);
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
          const message = JSON.parse(line) as ReadyMessage | LoadErrorMessage;
          settle(message.op === "ready" ? { ok: true, ready: message } : { ok: false, error: message });
        } catch {
          settle({
            ok: false,
            error: {
              op: "load_error",
              kind: "import_error",
              message: `the function harness answered with something that is not JSON: ${line.slice(0, 200)}`,
            },
          });
        }
      };
      this.exited.then(
        (result) =>
          settle({
            ok: false,
            error: {
              op: "load_error",
              kind: "import_error",
              message: `the function harness ended before it loaded ${baseName(entryFile)}: ${this.#describeExit(result)}`,
              stderr: this.#stderrTail,
            },
          }),
        (error: unknown) =>
          settle({
            ok: false,
            error: {
              op: "load_error",
              kind: "import_error",
              message: `the function harness could not start: ${(error as Error)?.message ?? error}`,
            },
          }),
      );
    });
  }

  #describeExit(result: SandboxResult): string {
    const how = result.signal ? `it was killed by signal ${result.signal}` : `it exited with code ${result.exitCode}`;
    const why = result.timedOut ? " (the harness's own time limit passed)" : result.memoryLimited ? " (memory limit)" : "";
    const tail = this.#stderrTail.trim().split("\n").slice(-3).join(" | ");
    return `the function harness died: ${how}${why}${tail ? `; stderr: ${tail}` : ""}`;
  }

  #die(message: string, details: Record<string, unknown>): void {
    if (this.#dead) return;
    this.#dead = new HarnessDiedError(this.#stopping ? "the function harness was stopped (the task run ended)" : message, details);
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(this.#dead);
      this.#pending.delete(id);
    }
  }
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
