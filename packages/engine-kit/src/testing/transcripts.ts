/**
 * Tier 1 of an engine's tests: recorded CLI runs replayed through its stream parser and failure classification.
 * The transcripts live in the plugin's test/fixtures/transcripts as `<name>.stdout`, `<name>.stderr` (either may be
 * missing: read as empty) and optionally `<name>.json` (`{ "exitCode": 1, "command": "claude" }`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "@skillrig/core";
import type { EngineFailure, StreamParser } from "../adapter.js";
import { replayCapture } from "../replay-capture.js";
import type { ProcessRunResult } from "../run-process.js";
import type { EngineTestSettings } from "./engine-settings.js";

export interface Replayed<P extends StreamParser> {
  parser: P;
  events: EngineEvent[];
  run: ProcessRunResult;
  failure: EngineFailure | undefined;
}

/** The transcripts folder of an engine's fixtures. */
export function transcriptsDir(settings: Pick<EngineTestSettings, "fixtures">): string {
  return join(settings.fixtures, "transcripts");
}

function readOrEmpty(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

/**
 * A function that replays the transcript `name` from `dir` (the engine's transcripts unless given): the exit code is
 * the one passed, else the one in `<name>.json`; the command is `<name>.json`'s, else the engine name.
 */
export function transcriptReplayer<P extends StreamParser>(
  settings: Pick<EngineTestSettings<never, P>, "engine" | "fixtures" | "transcripts">,
  dir = transcriptsDir(settings),
): (name: string, exitCode?: number | null) => Replayed<P> {
  return (name, exitCode) => {
    const metaFile = join(dir, `${name}.json`);
    const meta = existsSync(metaFile) ? (JSON.parse(readFileSync(metaFile, "utf8")) as { exitCode?: number | null; command?: string }) : {};
    const parser = settings.transcripts.parser(name);
    const { events, run } = replayCapture(parser, {
      stdout: readOrEmpty(join(dir, `${name}.stdout`)),
      stderr: readOrEmpty(join(dir, `${name}.stderr`)),
      exitCode: exitCode !== undefined ? exitCode : (meta.exitCode ?? null),
      command: meta.command ?? settings.engine,
    });
    return { parser, events, run, failure: settings.transcripts.classify(run, parser) };
  };
}

/**
 * Feeds `parser` the lines of `file` one by one (to `stdoutLine`, or `stderrLine` for a .stderr file) until its
 * `giveUp` answers: the lines and the index of the line it gave up on (-1 when it never did).
 */
export function feedUntilGiveUp(parser: StreamParser, file: string): { lines: string[]; at: number } {
  const lines = readFileSync(file, "utf8").split("\n");
  const feed = file.endsWith(".stderr") ? (line: string) => parser.stderrLine?.(line) : (line: string) => parser.stdoutLine(line);
  const at = lines.findIndex((line) => {
    feed(line);
    return parser.giveUp?.() !== undefined;
  });
  return { lines, at };
}

/** The transcript files (stdout and stderr) in `dir`, by name. */
export function transcriptFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith(".stdout") || name.endsWith(".stderr"));
}
