/**
 * Whether a file an agent's tool writes is new ("add") or changed ("update"), for the `file_change` events stream
 * parsers emit. "Does it exist now?" is no answer: the CLI may have written the file by the time its tool-call line
 * is read (on a loaded machine the stream is read late). A file counts as new when it does not exist, or was born
 * after the tracker was made (the turn's start) and has not been reported yet.
 */
import { statSync } from "node:fs";

/** File timestamps come from the kernel's coarse clock, which can lag the wall clock by a tick (up to 10 ms). */
const COARSE_CLOCK_MS = 10;

export interface FileChangeTracker {
  /** At the tool call: whether `path` existed before this turn wrote it. */
  existedBefore(path: string): boolean;
  /** At the tool's success: the event's kind, and the path remembered (a second write to it is an update). */
  kind(path: string, existed: boolean | undefined): "add" | "update";
}

export function fileChangeTracker(startedAt = Date.now()): FileChangeTracker {
  const reported = new Set<string>();
  return {
    existedBefore(path) {
      if (reported.has(path)) return true;
      try {
        const born = statSync(path).birthtimeMs;
        return !(born > 0 && born >= startedAt - COARSE_CLOCK_MS);
      } catch {
        return false;
      }
    },
    kind(path, existed) {
      const kind = existed || reported.has(path) ? "update" : "add";
      reported.add(path);
      return kind;
    },
  };
}
