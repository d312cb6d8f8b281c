/**
 * A hostile engine for the flood suite: its CLI (written into the bench's temp folder at run time) prints N MiB of
 * ordinary message lines, or N MiB without a newline; the adapter is built on engine-kit like any engine, so the
 * bounds measured are the ones every engine gets.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEnginePlugin, type EngineAdapter, type StreamParser } from "@skillrig/engine-kit";

export const FLOOD_ENGINE = "flood";

const FLOOD_CLI = String.raw`#!/usr/bin/env node
if (process.argv.includes("--version")) { console.log("flood-cli 1.0.0"); process.exit(0); }
const [, mode = "ok", size = "0"] = /\b(lines|giant) (\d+)\b/.exec(process.argv.at(-1) ?? "") ?? [];
const bytes = Number(size) * 1024 * 1024;
const out = (t) => (process.stdout.write(t) ? undefined : new Promise((r) => process.stdout.once("drain", r)));
const say = (text) => JSON.stringify({ kind: "say", text }) + "\n";
if (mode === "lines") {
  const line = say("x".repeat(1024 - 30));
  for (let sent = 0; sent < bytes; sent += line.length) await out(line);
} else if (mode === "giant") {
  const block = "y".repeat(1024 * 1024);
  for (let sent = 0; sent < bytes; sent += block.length) await out(block);
  await out("\n");
}
await out(say("done"));
`;

/** Writes the CLI under `root` and returns its path. */
export function writeFloodCli(root: string): string {
  const dir = join(root, "flood-cli", "bin");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "flood-cli.mjs");
  writeFileSync(file, FLOOD_CLI);
  chmodSync(file, 0o755);
  return file;
}

function sayParser(): StreamParser {
  let final: string | undefined;
  return {
    stdoutLine(line) {
      const event = JSON.parse(line) as { kind: string; text?: string };
      if (event.kind !== "say") return [];
      final = event.text;
      return [{ type: "message", role: "assistant", text: event.text ?? "", delta: true }];
    },
    finalMessage: () => final,
    usage: () => undefined,
    errors: () => [],
    completed: () => final !== undefined,
  };
}

export function floodEnginePlugin(binary: string) {
  const adapter: EngineAdapter = {
    engine: FLOOD_ENGINE,
    displayName: "Flood CLI",
    contextFileName: "AGENTS.md",
    optionProperties: {},
    auth: "none",
    defaultBinary: () => binary,
    mockBaseUrl: (url) => url,
    invocation: (ctx) => ({ args: [ctx.prompt], env: {} }),
    createParser: () => sayParser(),
    classify: (run, parser) => (run.exitCode === 0 && parser.completed() ? undefined : { kind: "crash", message: `exit ${run.exitCode}` }),
  };
  const Plugin = createEnginePlugin("bench-flood-engine", adapter);
  return new Plugin();
}
