/**
 * A job's event log as trajectory assertions read it: `<job folder>/logs/events.jsonl`, one normalised engine event
 * per line (written by the job as the engine emitted them, skillrig's JSON, never a line the agent printed), event N
 * on line N. A line that is not an event object (a log cut short where the job was stopped) is left out and counted;
 * paths are made relative to the job's workspace (`<job folder>/workspace`).
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { EngineEvent } from "@skillrig/core";
import { type Trajectory, trajectoryOf } from "./tool-calls.js";

/** Where the job folder keeps its events (docs/skills.md, the run folder). */
export const EVENT_LOG = "logs/events.jsonl";

export type ReadTrajectory = { ok: true; trajectory: Trajectory; events: number; unreadableLines: number } | { ok: false; reason: string };

/**
 * The last log read, by its path, size and time: a run's trajectory assertions are graded one after another on the
 * same finished log (up to sandbox.agent.output_bytes), which is read and parsed once for all of them.
 */
let lastRead: { key: string; read: Promise<ReadTrajectory> } | undefined;

export async function readJobTrajectory(jobDir: string): Promise<ReadTrajectory> {
  const file = join(jobDir, EVENT_LOG);
  const seen = await stat(file).catch(() => undefined);
  const key = seen ? `${file}\0${seen.size}\0${seen.mtimeMs}` : undefined;
  if (key !== undefined && lastRead?.key === key) return lastRead.read;
  const read = readAndParse(jobDir, file);
  if (key !== undefined) lastRead = { key, read };
  return read;
}

async function readAndParse(jobDir: string, file: string): Promise<ReadTrajectory> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return {
      ok: false,
      reason: `the job's event log ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
  return { ok: true, ...parseEventLog(text, join(jobDir, "workspace")) };
}

/** The trajectory of an event log's text (`workspace`: what paths are made relative to). */
export function parseEventLog(text: string, workspace: string): { trajectory: Trajectory; events: number; unreadableLines: number } {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const events: EngineEvent[] = [];
  const numbers: number[] = [];
  let unreadableLines = 0;
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      unreadableLines += 1;
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value) || typeof (value as { type?: unknown }).type !== "string") {
      unreadableLines += 1;
      return;
    }
    events.push(value as EngineEvent);
    numbers.push(i + 1);
  });
  return { trajectory: trajectoryOf(events, workspace, numbers), events: events.length, unreadableLines };
}
