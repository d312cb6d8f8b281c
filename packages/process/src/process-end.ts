import type { OutputBound } from "./bounded-lines.js";

/**
 * How a process ended, said one way everywhere (execa's result is the model: one record for success and failure).
 * A run that ended on its own `exited` with a code or was `killed` by a signal; one that we ended says why.
 */
export type ProcessEnding =
  | { kind: "exited"; code: number }
  | { kind: "killed"; signal: string }
  /** Its wall-clock limit passed (`limitMs` when known). */
  | { kind: "timeout"; limitMs?: number }
  /** It printed nothing for `idleMs`. */
  | { kind: "idle_timeout"; idleMs?: number }
  | { kind: "canceled" }
  /** The program could not be started at all (ENOENT, EACCES). */
  | { kind: "spawn_failed"; message: string }
  /** Stopped early by its runner, for `reason` (e.g. a CLI stuck in a retry loop). */
  | { kind: "stopped"; reason: string }
  /** Its output passed a bound (`bound`: "line_bytes", "output_bytes", "events" or "workspace_bytes"; `limit` in bytes or events). */
  | { kind: "output_limit"; bound: OutputBound; limit: number };

/**
 * What a run that ended badly says on stderr when it ran out of memory (Python's MemoryError, C's ENOMEM) or wrote
 * past the file-size limit (EFBIG): read by the sandbox for a process and by the sample host's callers for a fork.
 */
export const MEMORY_EVIDENCE = /\bMemoryError\b|Cannot allocate memory|\bENOMEM\b|std::bad_alloc|out of memory/;
export const FILE_SIZE_EVIDENCE = /File too large|\bEFBIG\b|\[Errno 27\]/;

/** The ending of a process that ended on its own, from the exit code and signal Node reports (one of them is set). */
export function endingOfExit(code: number | null, signal: string | null): ProcessEnding {
  return code === null ? { kind: "killed", signal: signal ?? "(unknown)" } : { kind: "exited", code };
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The ending in words, to follow a subject: "it exited with code 3", "the CLI timed out after 60 s". */
export function describeProcessEnding(ending: ProcessEnding): string {
  switch (ending.kind) {
    case "exited":
      return `exited with code ${ending.code}`;
    case "killed":
      return `was killed by signal ${ending.signal}`;
    case "timeout":
      return ending.limitMs === undefined ? "timed out" : `timed out after ${seconds(ending.limitMs)}`;
    case "idle_timeout":
      return ending.idleMs === undefined ? "printed nothing for too long" : `printed nothing for ${seconds(ending.idleMs)}`;
    case "canceled":
      return "was canceled";
    case "spawn_failed":
      return `could not be started (${ending.message})`;
    case "stopped":
      return `was stopped: ${ending.reason}`;
    case "output_limit":
      return `was stopped: its output passed the ${ending.bound} bound (${ending.limit})`;
  }
}
