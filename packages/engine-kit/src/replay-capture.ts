/**
 * Replays a recorded CLI run (its stdout and stderr bytes) through an engine's stream parser, so a parser and its
 * failure classification can be tested against real transcripts without running the CLI: tier 1 of an engine's tests.
 */
import type { EngineEvent } from "@skillrig/core";
import { endingOfExit } from "@skillrig/process";
import type { StreamParser } from "./adapter.js";
import type { ProcessRunResult } from "./run-process.js";

export interface RecordedRun {
  stdout: string;
  stderr: string;
  /** The exit code the CLI ended with (null when it was killed). */
  exitCode: number | null;
  /** The command, for messages. */
  command: string;
}

/** Feeds every recorded line to `parser`; returns the events and the process result the classifier expects. */
export function replayCapture(parser: StreamParser, recorded: RecordedRun): { events: EngineEvent[]; run: ProcessRunResult } {
  const events: EngineEvent[] = [];
  for (const line of recorded.stdout.split("\n")) events.push(...parser.stdoutLine(line));
  for (const line of recorded.stderr.split("\n")) events.push(...(parser.stderrLine?.(line) ?? []));
  const run: ProcessRunResult = {
    ending: endingOfExit(recorded.exitCode, null),
    exitCode: recorded.exitCode,
    signal: null,
    stdoutTail: recorded.stdout.slice(-64 * 1024),
    stderrTail: recorded.stderr.slice(-64 * 1024),
    durationMs: 0,
    command: recorded.command,
    sweptPids: [],
  };
  return { events, run };
}
