/**
 * A regex assertion's search, on a worker thread with a time limit: the pattern is the eval author's, but the text
 * is the agent's, and V8's backtracking engine can take exponential time on a pattern like `^(a+)+$` against text
 * chosen for it. Past the limit the worker is terminated and the assertion fails saying so. (The oracle's compare
 * does the same synchronously; grading is async, so a plain worker per search is enough here.)
 */
import { Worker } from "node:worker_threads";
import { DEFAULT_EVALS_BOUNDS } from "../config-section.js";

/** How long one regex search may take by default (`evals.regex_time_limit_ms`). */
export const REGEX_SEARCH_LIMIT_MS: number = DEFAULT_EVALS_BOUNDS.regex_time_limit_ms;

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { pattern, flags, text } = workerData;
try {
  const m = new RegExp(pattern, flags).exec(text);
  parentPort.postMessage(m ? { matched: true, index: m.index, match: m[0] } : { matched: false });
} catch (error) {
  parentPort.postMessage({ error: String(error && error.message) });
}
`;

export type RegexSearch = { matched: true; index: number; match: string } | { matched: false } | { error: string } | { timedOut: true };

export function searchRegex(pattern: string, flags: string, text: string, limitMs = REGEX_SEARCH_LIMIT_MS): Promise<RegexSearch> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pattern, flags, text } });
    let settled = false;
    const finish = (result: RegexSearch) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    // The limit counts from the moment the worker runs, so a slow start on a loaded machine does not eat into it.
    let timer: NodeJS.Timeout | undefined;
    worker.once("online", () => {
      timer = setTimeout(() => finish({ timedOut: true }), limitMs);
    });
    worker.once("message", (message: RegexSearch) => finish(message));
    worker.once("error", (error) => finish({ error: error.message }));
    worker.once("exit", () => finish({ error: "the regex worker ended without an answer" }));
  });
}
