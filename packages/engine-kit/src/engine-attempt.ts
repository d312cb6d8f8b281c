/**
 * One turn of the CLI: its invocation and environment, the jail around it, the process with its watchdogs and
 * logs, the events its stream means. A repair turn is another attempt with another prompt.
 */
import { isSkillrigError, type AgentConfinement, type ConfinedCommand, type EngineEvent, type EngineFailed } from "@skillrig/core";
import type { EngineFailure, EngineInvocation, StreamParser } from "./adapter.js";
import { removeAgentFile } from "./agent-files.js";
import { confineEngine } from "./engine-jail.js";
import type { EngineRun } from "./engine-run.js";
import { engineEnv } from "./env.js";
import type { BaseEngineOptions } from "./options.js";
import { createOutputGuard } from "./output-guard.js";
import { runProcess, type ProcessRunResult } from "./run-process.js";
import { foldersBytes, watchWorkspace } from "./workspace-watch.js";

export interface AttemptRun extends ProcessRunResult {
  /** The kind a parser's giveUp named (an auth error it recognised). */
  stopKind?: EngineFailure["kind"];
  /** Why the adapter's `drive` failed (its rejection), when it did. */
  driveError?: string;
  /** Events the engine's stream gave (its log lines and status lines aside): 0 means it died before its first event. */
  engineEvents: number;
}

/** An event of the engine's own (a message, a tool call, usage...), not a line of its log or a status of skillrig's. */
function isEngineEvent(event: EngineEvent): boolean {
  return event.type !== "log" && event.type !== "status";
}

/** How long a canceled job gives a driven CLI to end its turn (ACP's `session/cancel`) before it is stopped. */
export const DRIVE_CANCEL_GRACE_MS = 5000;
/** How long a driven CLI gets to exit by itself once its driver is done and its stdin closed. */
export const DRIVE_FINISH_GRACE_MS = 3000;

/** The adapter's `drive` wired to the process: its stdout as a stream, the cancel hook, the end. */
function driveSession<O extends BaseEngineOptions>(run: EngineRun<O>, parser: StreamParser, emit: (event: EngineEvent) => void) {
  const { adapter, work, ctx } = run;
  const encoder = new TextEncoder();
  let push!: ReadableStreamDefaultController<Uint8Array>;
  const stdout = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) });
  let closed = false;
  const cancelHandlers: Array<() => void> = [];
  // The process is stopped for a cancel only after the agent was told and its turn settled (or the grace ran out).
  const processAbort = new AbortController();
  let settled: Promise<void> = Promise.resolve();
  let driveError: string | undefined;
  const onJobAbort = () => {
    for (const handler of cancelHandlers) {
      try {
        handler();
      } catch {
        // Telling the agent is best effort: the process is stopped anyway.
      }
    }
    const grace = new Promise((r) => setTimeout(r, DRIVE_CANCEL_GRACE_MS).unref());
    void Promise.race([settled, grace]).then(() => processAbort.abort(work.signal?.reason));
  };
  return {
    signal: processAbort.signal,
    line(line: string) {
      if (!closed) push.enqueue(encoder.encode(`${line}\n`));
    },
    start(io: { stdin: NodeJS.WritableStream | null; finish(graceMs?: number): void }) {
      if (work.signal?.aborted) return processAbort.abort(work.signal.reason);
      work.signal?.addEventListener("abort", onJobAbort, { once: true });
      const driving = adapter.drive!({ stdin: io.stdin!, stdout, emit, onCancel: (h) => void cancelHandlers.push(h) }, parser, ctx).catch(
        (error: unknown) => {
          driveError = error instanceof Error ? error.message : String(error);
        },
      );
      settled = driving.then(() => {
        if (!work.signal?.aborted) io.finish(DRIVE_FINISH_GRACE_MS);
      });
    },
    async end(): Promise<string | undefined> {
      closed = true;
      try {
        push.close();
      } catch {
        // already closed
      }
      work.signal?.removeEventListener("abort", onJobAbort);
      // The driver sees the stream end and settles; a driver that ignores it is not waited for long.
      await Promise.race([settled, new Promise((r) => setTimeout(r, 2000).unref())]);
      return driveError;
    },
  };
}

/** The environment of one turn: the shared one, the job's runtime, the options' `env`, the invocation's own. */
export function attemptEnv<O extends BaseEngineOptions>(run: EngineRun<O>, invocation: EngineInvocation): Record<string, string> {
  const { dirs, request, options } = run.ctx;
  return engineEnv({
    home: dirs.home,
    tmpdir: dirs.tmpdir,
    jobEnv: request.runtime.env,
    optionEnv: options.env,
    engineEnv: invocation.env,
  });
}

/** The CLI wrapped in the agent jail, or the failure that kept it from starting (no jail, no binary). */
export async function confineAttempt<O extends BaseEngineOptions>(
  run: EngineRun<O>,
  invocation: EngineInvocation,
  env: Record<string, string>,
): Promise<{ command: ConfinedCommand } | { failure: EngineFailed }> {
  const { ctx, work, adapter } = run;
  try {
    const command = await confineEngine({
      request: {
        command: [ctx.binary, ...invocation.args],
        workspace: ctx.dirs.workspace,
        writable: [ctx.dirs.engineDir],
        // The job's own uploads (its input files) and what its runtime needs (a Python environment); nothing else of the run.
        readOnly: [...(work.run.uploads ? [work.run.uploads] : []), ...ctx.request.runtime.readOnly],
        env,
        modelBaseUrl: ctx.baseUrl,
        ...(invocation.userNamespaces ? { userNamespaces: true } : {}),
        limits: { processes: run.bounds.processes, tmpBytes: run.bounds.tmpBytes, fileBytes: run.bounds.fileBytes },
      },
      level: run.options.jail ?? "auto",
      required: work.requireEngineJail === true,
      sandbox: run.agentSandbox,
    });
    return { command };
  } catch (error) {
    if (!isSkillrigError(error)) throw error;
    if (error.code === "engine_not_found") {
      const message = `cannot start ${adapter.displayName} at ${ctx.binary}: ENOENT: no such executable file; install it or set the plugin's "binary" option`;
      return { failure: { ok: false, failure: { kind: "not_found", message, ...(error.hint ? { hint: error.hint } : {}) } } };
    }
    const kind = error.code === "sandbox_unavailable" ? "jail_unavailable" : "crash";
    return { failure: { ok: false, failure: { kind, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } } };
  }
}

/** How the jail confined the turn, as the job's result reports it. */
export function confinementOf(command: ConfinedCommand): AgentConfinement {
  const { isolation, network, uid, capabilities, seccomp, userNamespaces } = command;
  return {
    isolation,
    network,
    ...(uid !== undefined ? { uid } : {}),
    ...(capabilities !== undefined ? { capabilities } : {}),
    ...(seccomp !== undefined ? { seccomp } : {}),
    ...(userNamespaces !== undefined ? { userNamespaces } : {}),
  };
}

/** The command line a user would type, not the jail's wrapper around it. */
function displayCommand(binary: string, args: string[]): string {
  return [binary, ...args].map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a.length > 200 ? `${a.slice(0, 200)}…` : a) : a)).join(" ");
}

/** Runs one turn of the confined CLI to its end, its lines logged and its events emitted as they come. */
export async function runAttempt<O extends BaseEngineOptions>(
  run: EngineRun<O>,
  invocation: EngineInvocation,
  command: ConfinedCommand,
  parser: StreamParser,
  engineVersion: string | undefined,
  attempt: number,
): Promise<AttemptRun> {
  const { ctx, work, adapter, limits } = run;
  // A repair turn starts the CLI afresh: last turn's answer files must not be read as this turn's.
  if (attempt > 0) removeAgentFile(ctx.dirs.workspace, ctx.outputFile);
  // One bounded copy of the output: the logs and the event log share the turn's budget (output-guard.ts).
  const guard = createOutputGuard(run.bounds, { dir: ctx.dirs.logsDir, engine: work.engine, flags: attempt === 0 ? "w" : "a" }, (e) =>
    work.emit(e),
  );
  if (attempt === 0) {
    work.emit({
      type: "status",
      status: "running",
      message: `${adapter.displayName}${engineVersion ? ` ${engineVersion}` : ""} (jail: ${command.isolation}, network: ${command.network})`,
    });
  }
  let stopKind: EngineFailure["kind"] | undefined;
  let engineEvents = 0;
  const emitEvent = (event: EngineEvent) => {
    if (isEngineEvent(event)) engineEvents += 1;
    guard.emit(event);
  };
  const driven = adapter.drive ? driveSession(run, parser, emitEvent) : undefined;
  const folders = [ctx.dirs.workspace, ctx.dirs.engineDir];
  const stopWatch = watchWorkspace(folders, run.bounds.workspaceBytes, guard.budget);
  const ended = await runProcess({
    file: command.file,
    args: command.args,
    cwd: ctx.dirs.workspace,
    env: command.env,
    timeoutMs: limits.timeoutMs,
    idleTimeoutMs: limits.idleTimeoutMs,
    signal: driven ? driven.signal : work.signal,
    outputBudget: guard.budget,
    ...(driven ? { stdin: "pipe" as const, onSpawn: (io) => driven.start(io) } : {}),
    shouldStop: parser.giveUp
      ? () => {
          const reason = parser.giveUp!();
          if (typeof reason !== "object") return reason;
          stopKind = reason.kind;
          return reason.message;
        }
      : undefined,
    onStdoutLine: (line) => {
      guard.stdoutLine(line);
      driven?.line(line);
      for (const event of parser.stdoutLine(line)) emitEvent(event);
    },
    onStderrLine: (line) => {
      guard.stderrLine(line);
      for (const event of parser.stderrLine?.(line) ?? []) emitEvent(event);
    },
  }).finally(stopWatch);
  const driveError = await driven?.end();
  guard.close();
  // Once more now the tree is gone: what it left is over the cap or not, whatever the samples saw.
  const overfull =
    endedOnItsOwn(ended) && foldersBytes(folders, run.bounds.workspaceBytes) > run.bounds.workspaceBytes
      ? { ending: { kind: "output_limit" as const, bound: "workspace_bytes" as const, limit: run.bounds.workspaceBytes } }
      : {};
  return {
    ...ended,
    ...overfull,
    stopKind,
    engineEvents,
    ...(driveError !== undefined ? { driveError } : {}),
    command: displayCommand(ctx.binary, invocation.args),
  };
}

/** The run ended as Node reports it (an exit code or a signal), not stopped by us for a limit, a cancel or a reason. */
function endedOnItsOwn(run: ProcessRunResult): boolean {
  return run.ending.kind === "exited" || run.ending.kind === "killed";
}
