/**
 * What one turn of an engine may produce, and the one bounded copy of it the run folder keeps. An agent (or a prompt
 * injection in an uploaded file) decides what its CLI prints: 96 MiB of ordinary message chunks once took the runner
 * to 800 MiB and wrote three copies into the run folder (the stdout log, the event log, and the final message in
 * result.json), and a line without a newline killed the runner. So, for every engine on the kit:
 *
 * - the CLI's stdout and stderr are read as bounded lines (`sandbox.agent.line_bytes`), and every byte read counts
 *   against `sandbox.agent.output_bytes`, which also counts the bytes of every event written to the event log: the
 *   logs and the event log together hold at most that much;
 * - at most `sandbox.agent.events` events are emitted;
 * - the logs are written synchronously in small batches, never queued in memory behind a slow disk.
 *
 * Past any bound the process tree is stopped and the run ends `output_limit`; what was kept is kept. A run that
 * ends so never has a final answer, so nothing of the flood reaches result.json.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent } from "@skillrig/core";
import { OutputBudget, type OutputLimitHit } from "@skillrig/process/run-process";
import { AGENT_BOUND_KEYS, type AgentBounds } from "@skillrig/core";

/** Bytes a log collects before it writes them out. */
const LOG_BATCH_BYTES = 64 * 1024;

/** An append-only log written in small synchronous batches: memory stays one batch whatever the disk's speed. */
class BatchedLog {
  readonly #fd: number;
  #batch: string[] = [];
  #bytes = 0;
  constructor(path: string, flags: "w" | "a") {
    this.#fd = openSync(path, flags);
  }
  line(line: string): void {
    this.#batch.push(line, "\n");
    this.#bytes += line.length + 1;
    if (this.#bytes >= LOG_BATCH_BYTES) this.flush();
  }
  flush(): void {
    if (this.#batch.length === 0) return;
    const text = this.#batch.join("");
    this.#batch = [];
    this.#bytes = 0;
    try {
      writeSync(this.#fd, text);
    } catch {
      // A full disk loses log lines, not the run.
    }
  }
  close(): void {
    this.flush();
    closeSync(this.#fd);
  }
}

export interface OutputGuard {
  budget: OutputBudget;
  /** The raw stdout/stderr logs (`logs/<engine>.stdout.log`, `.stderr.log`). */
  stdoutLine(line: string): void;
  stderrLine(line: string): void;
  /** Emits an event while the bounds hold; counts it (and its bytes) against them. */
  emit(event: EngineEvent): void;
  close(): void;
}

export function createOutputGuard(
  bounds: AgentBounds,
  logs: { dir: string; engine: string; flags: "w" | "a" },
  emit: (event: EngineEvent) => void,
): OutputGuard {
  const budget = new OutputBudget({ lineBytes: bounds.lineBytes, totalBytes: bounds.outputBytes });
  const stdoutLog = new BatchedLog(join(logs.dir, `${logs.engine}.stdout.log`), logs.flags);
  const stderrLog = new BatchedLog(join(logs.dir, `${logs.engine}.stderr.log`), logs.flags);
  let events = 0;
  return {
    budget,
    stdoutLine: (line) => stdoutLog.line(line),
    stderrLine: (line) => stderrLog.line(line),
    emit(event) {
      if (budget.hit !== undefined) return;
      if (++events > bounds.events) {
        budget.pass({ bound: "events", limit: bounds.events });
        return;
      }
      // The event log's line is about its JSON (plus a timestamp); counted before it is written.
      if (!budget.take(JSON.stringify(event).length + 40)) return;
      emit(event);
    },
    close() {
      stdoutLog.close();
      stderrLog.close();
    },
  };
}

const BOUND_WORDS: Record<OutputLimitHit["bound"], { what: (limit: number) => string; key: keyof AgentBounds }> = {
  line_bytes: { what: (n) => `printed a line longer than ${n} bytes`, key: "lineBytes" },
  output_bytes: { what: (n) => `printed (or emitted as events) more than ${n} bytes`, key: "outputBytes" },
  events: { what: (n) => `emitted more than ${n} events`, key: "events" },
  workspace_bytes: { what: (n) => `wrote more than ${n} bytes to its workspace and engine folder`, key: "workspaceBytes" },
};

/** The failure message of a run that passed a bound: which, its value and its config key. */
export function outputLimitMessage(name: string, hit: OutputLimitHit | undefined): { message: string; hint: string } {
  const words = BOUND_WORDS[hit?.bound ?? "output_bytes"];
  const key = AGENT_BOUND_KEYS[words.key];
  return {
    message: `${name} ${words.what(hit?.limit ?? 0)} (${key}); it and its child processes were stopped, and what it produced before is kept`,
    hint: `raise ${key} in the config if a run of this size is expected`,
  };
}
