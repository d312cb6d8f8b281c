/**
 * One turn of the CLI: its invocation and environment, the jail around it, the process with its watchdogs and
 * logs, the events its stream means. A repair turn is another attempt with another prompt.
 */
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { isSkillrigError, type AgentConfinement, type ConfinedCommand, type EngineFailed } from "@skillrig/core";
import type { EngineFailure, EngineInvocation, StreamParser } from "./adapter.js";
import { removeAgentFile } from "./agent-files.js";
import { confineEngine } from "./engine-jail.js";
import type { EngineRun } from "./engine-run.js";
import { engineEnv } from "./env.js";
import type { BaseEngineOptions } from "./options.js";
import { runProcess, type ProcessRunResult } from "./run-process.js";

export interface AttemptRun extends ProcessRunResult {
  /** The kind a parser's giveUp named (an auth error it recognised). */
  stopKind?: EngineFailure["kind"];
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
  const flags = attempt === 0 ? "w" : "a";
  const stdoutLog = createWriteStream(join(ctx.dirs.logsDir, `${work.engine}.stdout.log`), { flags });
  const stderrLog = createWriteStream(join(ctx.dirs.logsDir, `${work.engine}.stderr.log`), { flags });
  if (attempt === 0) {
    work.emit({
      type: "status",
      status: "running",
      message: `${adapter.displayName}${engineVersion ? ` ${engineVersion}` : ""} (jail: ${command.isolation}, network: ${command.network})`,
    });
  }
  let stopKind: EngineFailure["kind"] | undefined;
  const ended = await runProcess({
    file: command.file,
    args: command.args,
    cwd: ctx.dirs.workspace,
    env: command.env,
    timeoutMs: limits.timeoutMs,
    idleTimeoutMs: limits.idleTimeoutMs,
    signal: work.signal,
    shouldStop: parser.giveUp
      ? () => {
          const reason = parser.giveUp!();
          if (typeof reason !== "object") return reason;
          stopKind = reason.kind;
          return reason.message;
        }
      : undefined,
    onStdoutLine: (line) => {
      stdoutLog.write(`${line}\n`);
      for (const event of parser.stdoutLine(line)) work.emit(event);
    },
    onStderrLine: (line) => {
      stderrLog.write(`${line}\n`);
      for (const event of parser.stderrLine?.(line) ?? []) work.emit(event);
    },
  });
  await Promise.all([new Promise((r) => stdoutLog.end(r)), new Promise((r) => stderrLog.end(r))]);
  return { ...ended, stopKind, command: displayCommand(ctx.binary, invocation.args) };
}
