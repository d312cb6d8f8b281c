/**
 * One job through one engine adapter: options, workspace, homes, (mock model), command line, the process
 * with its watchdogs, streamed events, classification, the final answer and its repair. Returns the
 * EngineOutcome core expects from `execute`; never throws for a failed run (only for bad options).
 */
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import {
  compileSchema,
  formatViolations,
  isSkillrigError,
  type ConfinedCommand,
  type EngineOutcome,
  type JobExecuteRequest,
} from "@skillrig/core";
import { loadScenario, startMockModel, validateScenario, type MockModel, type Scenario } from "@skillrig/mock-model";
import type { EngineAdapter, EngineFailure, EngineRunContext } from "./adapter.js";
import { openForAgent, readAgentFile, removeAgentFile } from "./agent-files.js";
import { type AgentSandboxSource, confineEngine, writeLoginProfile } from "./engine-jail.js";
import { engineEnv } from "./env.js";
import { parseJsonOutput } from "./json-output.js";
import type { BaseEngineOptions } from "./options.js";
import { runProcess, type ProcessRunResult } from "./run-process.js";
import { detectVersion } from "./version.js";
import { engineDirs, prepareWorkspace } from "./workspace.js";

export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;
/** The key the CLI gets when it talks to a mock model (the mock accepts any key). */
export const MOCK_API_KEY = "skillrig-mock-key";

export interface RunEngineJobOptions<O extends BaseEngineOptions> {
  adapter: EngineAdapter<O>;
  request: JobExecuteRequest;
  /** Options after the job's engine options were merged and validated. */
  options: O;
  /** Where relative paths in options (mock_scenario) resolve: the config file's folder. */
  configDir: string;
  /** The runner's `sandbox` hook asked for the agent profile (engine-plugin.ts); default @skillrig/sandbox's. */
  agentSandbox?: AgentSandboxSource;
}

/** The prompt of a repair turn: the task again, the answer given, and what is wrong with it. */
export function repairPrompt(prompt: string, answer: string, problems: string): string {
  return [
    prompt.trimEnd(),
    "",
    "## skillrig: repair your previous answer",
    "",
    "Your previous final answer broke the required output format:",
    "",
    problems,
    "",
    "Your previous final answer was:",
    "",
    "```",
    answer.trim().slice(0, 8000),
    "```",
    "",
    "The files you wrote are still in the workspace. Give the corrected final answer now, in the required format.",
  ].join("\n");
}

function tail(text: string, bytes = 4000): string {
  return text.length > bytes ? `…${text.slice(-bytes)}` : text;
}

function resolveScenario(value: string | Scenario, configDir: string): Scenario {
  if (typeof value === "string") return loadScenario(isAbsolute(value) ? value : resolve(configDir, value));
  return validateScenario(value);
}

/** Timeouts, cancels and spawn failures mean the same thing for every engine. */
function classifyEnd<O extends BaseEngineOptions>(
  adapter: EngineAdapter<O>,
  run: ProcessRunResult,
  limits: { timeoutMs: number; idleTimeoutMs: number; jobTimeoutMs?: number },
  lastError: string | undefined,
  ctx: EngineRunContext<O>,
  stopKind?: EngineFailure["kind"],
): EngineFailure | undefined {
  const name = adapter.displayName;
  const last = lastError ? `; last error it reported: ${lastError}` : "";
  switch (run.end) {
    case "timeout":
      return {
        kind: "timeout",
        message: `${name} did not finish ${run.timedOutBySignal ? `within the job's time limit${limits.jobTimeoutMs ? ` (${limits.jobTimeoutMs} ms)` : ""}` : `within ${limits.timeoutMs} ms`}; it and its child processes were killed${last}`,
      };
    case "idle_timeout":
      return {
        kind: "idle_timeout",
        message: `${name} printed nothing for ${limits.idleTimeoutMs} ms (idle_timeout_ms); it and its child processes were killed${last}`,
      };
    case "gave_up":
      return {
        kind: stopKind ?? "crash",
        message: `${name} was stopped: ${run.stopReason ?? "it could not go on"}; it and its child processes were killed`,
      };
    case "canceled":
      return { kind: "canceled", message: `the job was canceled; ${name} and its child processes were killed` };
    case "spawn_failed":
      return {
        kind: "not_found",
        message: `cannot start ${name} at ${ctx.binary}: ${run.spawnError ?? "spawn failed"}; install it or set the plugin's "binary" option`,
      };
    default:
      return undefined;
  }
}

export async function runEngineJob<O extends BaseEngineOptions>(input: RunEngineJobOptions<O>): Promise<EngineOutcome> {
  const { adapter, request, options, configDir } = input;
  const { work } = request;
  const dirs = engineDirs(request);
  // A fresh engine folder per job: a re-run in the same run folder must not see the last run's home.
  rmSync(dirs.engineDir, { recursive: true, force: true });
  prepareWorkspace(request, dirs, adapter.contextFileName);

  const timeoutMs = work.request.options?.timeout_ms ?? options.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const idleTimeoutMs = options.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS;
  const apiKeyEnv = options.api_key_env ?? adapter.defaultApiKeyEnv;
  const binary = options.binary
    ? isAbsolute(options.binary) || !options.binary.includes("/")
      ? options.binary
      : resolve(configDir, options.binary)
    : adapter.defaultBinary();

  let mock: MockModel | undefined;
  let baseUrl = options.base_url;
  let apiKey = process.env[apiKeyEnv];
  if (options.mock_scenario !== undefined) {
    mock = await startMockModel({ scenario: resolveScenario(options.mock_scenario, configDir), dialects: adapter.mockDialects });
    baseUrl = adapter.mockBaseUrl(mock.url);
    apiKey = MOCK_API_KEY;
  }

  const partial: Omit<EngineRunContext<O>, "prompt"> = {
    request,
    options,
    dirs,
    baseUrl,
    apiKey,
    apiKeyEnv,
    outputSchema: work.skill.schemas.output?.schema,
    outputFile: join(dirs.workspace, ".skillrig", "result.json"),
    binary,
  };
  mkdirSync(dirname(partial.outputFile), { recursive: true });
  rmSync(partial.outputFile, { force: true });
  const suffix = adapter.promptSuffix?.(partial) ?? "";
  const ctx: EngineRunContext<O> = { ...partial, prompt: suffix ? `${request.prompt.text.trimEnd()}\n\n${suffix}` : request.prompt.text };
  // The prompt the CLI really gets (prompt.md holds the rendered one, without the engine's contract).
  if (suffix) writeFileSync(join(dirs.logsDir, `${work.engine}.prompt.md`), ctx.prompt);

  const firstPrompt = ctx.prompt;
  // The job's input files are the agent's to read, whatever mode they were uploaded with (as root it is another uid).
  if (work.run.uploads) openForAgent(work.run.uploads);
  const jail = async (
    args: string[],
    env: Record<string, string>,
    userNamespaces: boolean,
  ): Promise<{ command: ConfinedCommand } | { failure: EngineOutcome }> => {
    try {
      const command = await confineEngine({
        request: {
          command: [binary, ...args],
          workspace: dirs.workspace,
          writable: [dirs.engineDir],
          // The job's own uploads (its input files) and the skill's Python environment; nothing else of the run.
          readOnly: [...(work.run.uploads ? [work.run.uploads] : []), ...(work.env?.VIRTUAL_ENV ? [work.env.VIRTUAL_ENV] : [])],
          env,
          modelBaseUrl: baseUrl,
          ...(userNamespaces ? { userNamespaces } : {}),
        },
        level: options.jail ?? "auto",
        required: work.requireEngineJail === true,
        sandbox: input.agentSandbox,
      });
      return { command };
    } catch (error) {
      if (!isSkillrigError(error)) throw error;
      const kind = error.code === "engine_not_found" ? ("not_found" as const) : ("crash" as const);
      const message =
        kind === "not_found"
          ? `cannot start ${adapter.displayName} at ${binary}: ENOENT: no such executable file; install it or set the plugin's "binary" option`
          : error.message;
      return {
        failure: { ok: false, failure: { kind, message }, details: { errorCode: error.code, hint: error.hint } },
      };
    }
  };
  const runAttempt = async (
    current: { args: string[] },
    command: ConfinedCommand,
    parser: ReturnType<typeof adapter.createParser>,
    engineVersion: string | undefined,
    attempt: number,
  ): Promise<ProcessRunResult & { stopKind?: EngineFailure["kind"] }> => {
    // A repair turn starts the CLI afresh: last turn's answer files must not be read as this turn's.
    if (attempt > 0) removeAgentFile(dirs.workspace, ctx.outputFile);
    const flags = attempt === 0 ? "w" : "a";
    const stdoutLog = createWriteStream(join(dirs.logsDir, `${work.engine}.stdout.log`), { flags });
    const stderrLog = createWriteStream(join(dirs.logsDir, `${work.engine}.stderr.log`), { flags });
    const emitAll = (events: ReturnType<typeof parser.stdoutLine>) => {
      for (const event of events) work.emit(event);
    };
    if (attempt === 0) {
      work.emit({
        type: "status",
        status: "running",
        message: `${adapter.displayName}${engineVersion ? ` ${engineVersion}` : ""} (jail: ${command.isolation}, network: ${command.network})`,
      });
    }
    // A parser's giveUp may name the failure kind (an auth error it recognised), not only a reason.
    let stopKind: EngineFailure["kind"] | undefined;
    const run = await runProcess({
      file: command.file,
      args: command.args,
      cwd: dirs.workspace,
      env: command.env,
      timeoutMs,
      idleTimeoutMs,
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
        emitAll(parser.stdoutLine(line));
      },
      onStderrLine: (line) => {
        stderrLog.write(`${line}\n`);
        emitAll(parser.stderrLine?.(line) ?? []);
      },
    });
    await Promise.all([new Promise((r) => stdoutLog.end(r)), new Promise((r) => stderrLog.end(r))]);
    // The command line a user would type, not the jail's wrapper around it.
    return {
      ...run,
      stopKind,
      command: [binary, ...current.args]
        .map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a.length > 200 ? `${a.slice(0, 200)}…` : a) : a))
        .join(" "),
    };
  };

  try {
    // Every engine needs its key, through a proxy (base_url) too: without one codex fails with "Missing
    // environment variable" and gemini asks for a login. Both are the same failure: engine_auth_failed.
    if (!apiKey) {
      return {
        ok: false,
        failure: {
          kind: "auth",
          message: `${adapter.displayName} has no API key: the environment variable ${apiKeyEnv} is not set (set it, name another with the "api_key_env" option, or use "mock_scenario" to run offline)`,
        },
        details: { errorCode: "engine_auth_failed" },
      };
    }

    const invocation = await adapter.invocation(ctx);
    const env = engineEnv({ home: dirs.home, tmpdir: dirs.tmpdir, jobEnv: work.env, optionEnv: options.env, engineEnv: invocation.env });
    writeLoginProfile(dirs.home, env);
    const engineVersion = await detectVersion(binary, { env, cwd: dirs.workspace, parse: adapter.parseVersion });
    const repairTurns = ctx.outputSchema ? (options.repair_turns ?? 0) : 0;
    const schema = repairTurns > 0 && ctx.outputSchema ? compileSchema(ctx.outputSchema) : undefined;
    const repairsMade: string[] = [];
    const details: Record<string, unknown> = {};

    for (let attempt = 0; ; attempt++) {
      const current = attempt === 0 ? invocation : await adapter.invocation(ctx);
      const attemptEnv =
        attempt === 0
          ? env
          : engineEnv({ home: dirs.home, tmpdir: dirs.tmpdir, jobEnv: work.env, optionEnv: options.env, engineEnv: current.env });
      const confined = await jail(current.args, attemptEnv, current.userNamespaces === true);
      if ("failure" in confined) return confined.failure;
      const { isolation, network, uid, capabilities, seccomp, userNamespaces } = confined.command;
      details.confinement = {
        isolation,
        network,
        ...(uid !== undefined ? { uid } : {}),
        ...(capabilities !== undefined ? { capabilities } : {}),
        ...(seccomp !== undefined ? { seccomp } : {}),
        ...(userNamespaces !== undefined ? { userNamespaces } : {}),
      };
      if (confined.command.warnings.length > 0) {
        details.confinementWarnings = confined.command.warnings;
        if (attempt === 0) for (const message of confined.command.warnings) work.emit({ type: "status", status: "warning", message });
      }
      let run: ProcessRunResult & { stopKind?: EngineFailure["kind"] };
      const parser = adapter.createParser(ctx);
      try {
        run = await runAttempt(current, confined.command, parser, engineVersion, attempt);
      } finally {
        await confined.command.close();
      }

      const errors = parser.errors();
      const failure =
        classifyEnd(
          adapter,
          run,
          { timeoutMs, idleTimeoutMs, jobTimeoutMs: work.request.options?.timeout_ms },
          errors[errors.length - 1],
          ctx,
          run.stopKind,
        ) ?? adapter.classify(run, parser, ctx);
      const usage = { ...parser.usage(), durationMs: run.durationMs };
      if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
        work.emit({
          type: "usage",
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          totalTokens: usage.totalTokens,
          model: options.model,
        });
      }
      Object.assign(details, {
        command: run.command,
        end: run.end,
        durationMs: run.durationMs,
        stderrTail: tail(run.stderrTail),
        ...(current.notes && current.notes.length > 0 ? { notes: current.notes } : {}),
        ...(run.sweptPids.length > 0 ? { sweptPids: run.sweptPids } : {}),
        ...(mock ? { mockModel: { url: mock.url, requests: mock.requests.length } } : {}),
        ...(attempt > 0 ? { repairTurns: attempt } : {}),
      });
      const base = { engineVersion, exitCode: run.exitCode, signal: run.signal, usage, details };
      if (failure) {
        if (failure.kind === "auth") details.errorCode = "engine_auth_failed";
        return { ...base, ok: false, failure };
      }

      const answer = adapter.finalAnswer ? adapter.finalAnswer(parser, ctx) : defaultFinalAnswer(parser, ctx);
      if (answer === undefined) {
        return {
          ...base,
          ok: false,
          failure: {
            kind: "malformed_output",
            message: `${adapter.displayName} finished without a final answer (no output file and no assistant message)`,
          },
        };
      }
      const parsed = parseJsonOutput(answer);
      if (!parsed.ok) {
        if (attempt < repairTurns) {
          ctx.prompt = repairPrompt(firstPrompt, answer, `- the answer is not JSON: ${parsed.message}`);
          repairsMade.push(`repair turn ${attempt + 1}: the answer was not JSON (${parsed.message})`);
          continue;
        }
        return {
          ...base,
          ok: false,
          rawOutput: answer,
          repairs: [...repairsMade, ...parsed.repairs],
          failure: {
            kind: "malformed_output",
            message: `${adapter.displayName}'s final answer is not JSON: ${parsed.message}: ${tail(answer.trim(), 300)}`,
          },
        };
      }
      const repairs = [...repairsMade, ...parsed.repairs, ...(adapter.finalizeOutput?.(parsed.value, ctx) ?? [])];
      const violations = schema?.validate(parsed.value) ?? [];
      if (violations.length > 0 && attempt < repairTurns) {
        const problems = violations.map((v) => `- ${v.pointer || "(root)"}: ${v.message}`).join("\n");
        ctx.prompt = repairPrompt(firstPrompt, answer, problems);
        repairsMade.push(`repair turn ${attempt + 1}: the answer broke the output schema (${formatViolations(violations)})`);
        work.emit({
          type: "status",
          status: "repairing",
          message: `asking ${adapter.displayName} to fix ${violations.length} output schema violation(s)`,
        });
        continue;
      }
      return { ...base, ok: true, output: parsed.value, rawOutput: answer, repairs };
    }
  } finally {
    await mock?.close();
  }
}

/**
 * The output file when the run wrote it, else the last assistant message. The file is the agent's: a symlink it
 * left there (to the hidden tests, say) is not followed, or the runner would hand that file back as the answer.
 */
export function defaultFinalAnswer(
  parser: { finalMessage(): string | undefined },
  ctx: { outputFile: string; dirs: { workspace: string } },
): string | undefined {
  const text = readAgentFile(ctx.dirs.workspace, ctx.outputFile);
  if (text !== undefined && text.trim() !== "") return text;
  return parser.finalMessage();
}
