/**
 * How the CLI speaks. Human text goes to stderr for diagnostics and stdout for results;
 * with --json, stdout holds exactly one JSON document and nothing else.
 */
import { isSkillrigError, SkillrigError } from "@skillrig/core";

export interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface Output {
  streams: Streams;
  json: boolean;
  /** A result line (or the JSON document with --json). */
  result(value: unknown, human?: string): void;
  /** A diagnostic line for people, on stderr. */
  info(line: string): void;
  warn(line: string): void;
}

export function createOutput(json: boolean, streams: Streams = { stdout: process.stdout, stderr: process.stderr }): Output {
  return {
    json,
    streams,
    result(value, human) {
      if (json) streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      else streams.stdout.write(`${human ?? JSON.stringify(value, null, 2)}\n`);
    },
    info(line) {
      if (!json) streams.stderr.write(`${line}\n`);
    },
    warn(line) {
      streams.stderr.write(`warning: ${line}\n`);
    },
  };
}

/** Prints an error without a stack: the code, the message, where, and what to do. */
export function reportError(error: unknown, json: boolean, streams: Streams = { stdout: process.stdout, stderr: process.stderr }): void {
  const err = isSkillrigError(error)
    ? error
    : new SkillrigError("unhandled", `unexpected error: ${(error as Error)?.message ?? String(error)}`, {
        details: process.env.SKILLRIG_DEBUG ? { stack: (error as Error)?.stack } : {},
      });
  if (json) {
    streams.stdout.write(`${JSON.stringify({ error: err.toJSON() }, null, 2)}\n`);
    return;
  }
  const where = [err.file, err.pointer && `at ${err.pointer}`, err.line !== undefined && `line ${err.line}`].filter(Boolean).join(" ");
  streams.stderr.write(`error[${err.code}]: ${err.message}\n`);
  if (where && !err.message.includes(err.file ?? "\u0000")) streams.stderr.write(`  --> ${where}\n`);
  for (const v of err.violations.slice(0, 50)) {
    if (err.message.includes(`: ${v.message}`)) continue;
    streams.stderr.write(`  - ${v.file ? `${v.file} ` : ""}${v.pointer || "(root)"}: ${v.message}\n`);
  }
  if (err.violations.length > 50) streams.stderr.write(`  ... and ${err.violations.length - 50} more\n`);
  if (err.hint) streams.stderr.write(`  hint: ${err.hint}\n`);
  if (err.code === "unhandled" && process.env.SKILLRIG_DEBUG) streams.stderr.write(`${(error as Error)?.stack}\n`);
}
