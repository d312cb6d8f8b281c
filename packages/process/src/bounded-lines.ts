/**
 * Splits a process's output into lines without ever holding more than one bounded line: readline (what runProcess
 * used) keeps a line without a newline in one growing string, so a CLI that printed 600 MiB without one took the
 * runner past V8's string limit (`RangeError: Invalid string length`) and every other run of its process with it.
 *
 * Here a partial line is kept as raw chunks up to `maxLineBytes`; past that the line is dropped and `onLimit` says
 * so once. Every byte read counts against a budget shared by the streams of one run (`OutputBudget`); past it
 * nothing more is handed on. The caller stops the process; this only reads (and discards) until the pipe closes, so
 * a killed process's pipe still drains.
 */
import type { Readable } from "node:stream";

/**
 * Which bound a run passed: its longest line, all it printed, or one its runner keeps (the events it emitted, what it
 * wrote to its folders).
 */
export type OutputBound = "line_bytes" | "output_bytes" | "events" | "workspace_bytes";

export interface OutputLimitHit {
  bound: OutputBound;
  /** The bound's value (bytes, or events). */
  limit: number;
}

/** The bytes a run's streams may print together, and the longest line. */
export interface OutputBounds {
  /** Longest line (bytes, newline excluded). */
  lineBytes: number;
  /** All bytes of stdout and stderr together. */
  totalBytes: number;
}

/** The budget the streams of one run share. */
export class OutputBudget {
  #used = 0;
  #hit: OutputLimitHit | undefined;
  readonly #listeners: Array<(hit: OutputLimitHit) => void> = [];
  constructor(readonly bounds: OutputBounds) {}
  /** Calls `listener` once a bound is passed (at once when one was); runProcess stops the process tree with it. */
  onPass(listener: (hit: OutputLimitHit) => void): void {
    if (this.#hit) listener(this.#hit);
    else this.#listeners.push(listener);
  }
  get used(): number {
    return this.#used;
  }
  /** The first bound passed, once one was. */
  get hit(): OutputLimitHit | undefined {
    return this.#hit;
  }
  /** Notes a passed bound (the first one counts); returns true when it is the first. */
  pass(hit: OutputLimitHit): boolean {
    if (this.#hit) return false;
    this.#hit = hit;
    for (const listener of this.#listeners.splice(0)) listener(hit);
    return true;
  }
  /** Counts `bytes` read; false once the total is past its bound (and from then on). */
  take(bytes: number): boolean {
    this.#used += bytes;
    if (this.#used > this.bounds.totalBytes) this.pass({ bound: "output_bytes", limit: this.bounds.totalBytes });
    return this.#hit === undefined;
  }
}

/**
 * Reads `stream` to its end, handing each complete line (decoded as UTF-8, without its `\n` or `\r\n`) to `onLine`
 * while the budget holds. Resolves when the stream ends or fails. A last line without a newline is handed on at the end.
 */
export function readBoundedLines(
  stream: Readable,
  budget: OutputBudget,
  onLine: (line: string) => void,
  onLimit: (hit: OutputLimitHit) => void,
): Promise<void> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let dropping = false;
  const flushLine = (tail: Buffer) => {
    const whole = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    parts = [];
    partBytes = 0;
    const end = whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length;
    if (budget.hit === undefined) onLine(whole.toString("utf8", 0, end));
  };
  const onData = (chunk: Buffer) => {
    const passedBefore = budget.hit !== undefined;
    if (!budget.take(chunk.length)) {
      parts = [];
      partBytes = 0;
      // Said once, by the stream that passed it; what comes after is read and dropped.
      if (!passedBefore) onLimit(budget.hit!);
      return;
    }
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      if (dropping) dropping = false;
      else if (partBytes + (nl - start) > budget.bounds.lineBytes) overlong();
      else flushLine(chunk.subarray(start, nl));
      parts = [];
      partBytes = 0;
      start = nl + 1;
      if (budget.hit !== undefined) return;
    }
    if (start < chunk.length && !dropping) {
      const rest = chunk.subarray(start);
      if (partBytes + rest.length > budget.bounds.lineBytes) {
        overlong();
        dropping = true;
        return;
      }
      // A copy: the chunk's memory is the stream's, and a subarray would keep the whole chunk alive.
      parts.push(Buffer.from(rest));
      partBytes += rest.length;
    }
  };
  const overlong = () => {
    parts = [];
    partBytes = 0;
    if (budget.pass({ bound: "line_bytes", limit: budget.bounds.lineBytes })) onLimit(budget.hit!);
  };
  return new Promise((resolve) => {
    stream.on("data", onData);
    const done = () => {
      if (partBytes > 0 && !dropping) flushLine(Buffer.alloc(0));
      parts = [];
      resolve();
    };
    stream.once("end", done);
    stream.once("error", done);
    stream.once("close", done);
  });
}
