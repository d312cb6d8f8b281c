/**
 * Regex compares with a time limit. V8's backtracking engine can take exponential time on a pattern like
 * `^(a+)+$` against text a deliverable chose, and the compare hook is synchronous: run on the main thread, one
 * such compare would stall the whole grader. So the search runs on a worker thread while this thread waits on an
 * Atomics cell with a deadline; past it, the worker is terminated (and a fresh one started for the next compare).
 * Measured on the 2-core VM: about 0.2 ms per compare once the worker runs, about 50 ms to start it. The deadline
 * counts from the moment the worker begins the search (it marks the cell), not from the request: starting a worker
 * thread on a loaded machine can take seconds, and that is not the pattern's time.
 *
 * Chosen over V8's linear-time engine (needs a Node flag at start-up, and lacks backreferences and lookarounds
 * that task authors use) and over RE2 ports (a different regex dialect from the JavaScript one the task format
 * documents).
 */
import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";

// node:worker_threads is loaded on the first regex compare, not with the oracle (most runs never compare by regex).
const require = createRequire(import.meta.url);

/** How long one regex search may take before the compare gives up on it. */
export const REGEX_TIME_LIMIT_MS = 2000;

/** How long a worker may take to begin a search (its start-up included) before the compare reports it as an error. */
const WORKER_START_LIMIT_MS = 60_000;

/** The cell's states: the request is sent, the worker began the search, the answer is posted. */
const SENT = 0;
const SEARCHING = 1;
const ANSWERED = 2;

const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", ({ pattern, flags, text, cell, port }) => {
  const done = new Int32Array(cell);
  Atomics.store(done, 0, 1);
  Atomics.notify(done, 0);
  let result;
  try {
    result = { matched: new RegExp(pattern, flags).test(text) };
  } catch (error) {
    result = { error: String(error && error.message) };
  }
  port.postMessage(result);
  port.close();
  Atomics.store(done, 0, 2);
  Atomics.notify(done, 0);
});
`;

let worker: Worker | undefined;

export type RegexSearch = { matched: boolean } | { error: string } | { timedOut: true };

/** `new RegExp(pattern, flags).test(text)`, given at most `limitMs` of a worker thread's time. */
export function searchWithTimeLimit(pattern: string, flags: string, text: string, limitMs = REGEX_TIME_LIMIT_MS): RegexSearch {
  const { MessageChannel, receiveMessageOnPort, Worker } = require("node:worker_threads") as typeof import("node:worker_threads");
  if (!worker) {
    worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref(); // an idle search thread never keeps the process alive
  }
  const cell = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ pattern, flags, text, cell, port: port2 }, [port2]);
  const state = new Int32Array(cell);
  const stop = () => {
    void worker?.terminate();
    worker = undefined;
    port1.close();
  };
  if (Atomics.wait(state, 0, SENT, WORKER_START_LIMIT_MS) === "timed-out" && Atomics.load(state, 0) === SENT) {
    stop();
    return { error: `the regex worker did not begin the search within ${WORKER_START_LIMIT_MS} ms` };
  }
  if (
    Atomics.load(state, 0) === SEARCHING &&
    Atomics.wait(state, 0, SEARCHING, limitMs) === "timed-out" &&
    Atomics.load(state, 0) !== ANSWERED
  ) {
    stop();
    return { timedOut: true };
  }
  const reply = receiveMessageOnPort(port1)?.message as RegexSearch | undefined;
  port1.close();
  return reply ?? { error: "the regex worker ended without an answer" };
}
