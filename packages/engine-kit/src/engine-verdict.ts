/**
 * What a turn of the CLI comes to: a failure (how the process ended, else the adapter's classification), a final
 * answer that parses and fits the output schema, or a repair turn asking the agent to fix its answer. A plain Agent
 * Skill's final answer is its text, whatever it holds.
 */
import { formatViolations, type CompiledSchema, type EngineFailed, type EngineOutcome, type EngineTrace } from "@skillrig/core";
import type { EngineFailure, EngineInvocation, StreamParser } from "./adapter.js";
import { readAgentFile } from "./agent-files.js";
import type { AttemptRun } from "./engine-attempt.js";
import type { EngineLimits, EngineRun } from "./engine-run.js";
import { parseJsonOutput } from "./json-output.js";
import { outputLimitMessage } from "./output-guard.js";
import type { BaseEngineOptions } from "./options.js";

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

export function tail(text: string, bytes = 4000): string {
  return text.length > bytes ? `…${text.slice(-bytes)}` : text;
}

/** Timeouts, cancels and spawn failures mean the same thing for every engine. */
export function classifyEnd(
  name: string,
  binary: string,
  run: AttemptRun,
  limits: EngineLimits,
  lastError: string | undefined,
): EngineFailure | undefined {
  const last = lastError ? `; last error it reported: ${lastError}` : "";
  const ending = run.ending;
  switch (ending.kind) {
    case "timeout":
      return {
        kind: "timeout",
        // No limit of its own: the caller's signal stopped it, for the job's time limit.
        message: `${name} did not finish ${ending.limitMs === undefined ? `within the job's time limit${limits.jobTimeoutMs ? ` (${limits.jobTimeoutMs} ms)` : ""}` : `within ${ending.limitMs} ms`}; it and its child processes were killed${last}`,
      };
    case "idle_timeout":
      return {
        kind: "idle_timeout",
        message: `${name} printed nothing for ${limits.idleTimeoutMs} ms (idle_timeout_ms); it and its child processes were killed${last}`,
      };
    case "stopped":
      return {
        kind: run.stopKind ?? "crash",
        message: `${name} was stopped: ${ending.reason}; it and its child processes were killed`,
      };
    case "canceled":
      return { kind: "canceled", message: `the job was canceled; ${name} and its child processes were killed` };
    case "output_limit":
      return { kind: "output_limit", ...outputLimitMessage(name, ending) };
    case "spawn_failed":
      return {
        kind: "not_found",
        message: `cannot start ${name} at ${binary}: ${ending.message}; install it or set the plugin's "binary" option`,
      };
    default:
      return undefined;
  }
}

/** What the run folder's trace keeps of a turn. */
export function traceOf(run: EngineRun<BaseEngineOptions>, ended: AttemptRun, invocation: EngineInvocation, attempt: number): EngineTrace {
  return {
    command: ended.command,
    end: ended.ending.kind,
    durationMs: ended.durationMs,
    stderrTail: tail(ended.stderrTail),
    ...(invocation.notes && invocation.notes.length > 0 ? { notes: invocation.notes } : {}),
    ...(ended.sweptPids.length > 0 ? { sweptPids: ended.sweptPids } : {}),
    ...(run.mock ? { mockModel: { url: run.mock.url, requests: run.mock.requests.length } } : {}),
    ...(attempt > 0 ? { repairTurns: attempt } : {}),
  };
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

export interface TurnFacts extends Omit<EngineFailed, "ok" | "failure"> {}

export type TurnVerdict = { outcome: EngineOutcome } | { repair: { prompt: string; note: string; problems?: number } };

/**
 * Judges one ended turn. `facts` (version, exit, usage, confinement, trace) go into whatever outcome it returns;
 * `repairsMade` are the earlier turns' repair notes; a repair is asked for while `attempt < repairTurns`.
 */
export function judgeTurn<O extends BaseEngineOptions>(
  run: EngineRun<O>,
  ended: AttemptRun,
  parser: StreamParser,
  facts: TurnFacts,
  turn: { attempt: number; repairTurns: number; repairsMade: string[]; schema?: CompiledSchema },
): TurnVerdict {
  const { adapter, ctx, limits } = run;
  const errors = parser.errors();
  const failure =
    classifyEnd(adapter.displayName, ctx.binary, ended, limits, errors[errors.length - 1]) ?? adapter.classify(ended, parser, ctx);
  if (failure) return { outcome: { ...facts, ok: false, failure } };

  const answer = adapter.finalAnswer ? adapter.finalAnswer(parser, ctx) : defaultFinalAnswer(parser, ctx);
  if (answer === undefined) {
    const message = `${adapter.displayName} finished without a final answer (no output file and no assistant message)`;
    return { outcome: { ...facts, ok: false, failure: { kind: "malformed_output", message } } };
  }
  // A plain Agent Skill has no output schema: its output is the final answer text as given, never repaired.
  if (run.work.skill.plain === true)
    return { outcome: { ...facts, ok: true, output: answer, rawOutput: answer, repairs: [...turn.repairsMade] } };
  const canRepair = turn.attempt < turn.repairTurns;
  const parsed = parseJsonOutput(answer);
  if (!parsed.ok) {
    if (canRepair) {
      const prompt = repairPrompt(run.firstPrompt, answer, `- the answer is not JSON: ${parsed.message}`);
      return { repair: { prompt, note: `repair turn ${turn.attempt + 1}: the answer was not JSON (${parsed.message})` } };
    }
    return {
      outcome: {
        ...facts,
        ok: false,
        rawOutput: answer,
        repairs: [...turn.repairsMade, ...parsed.repairs],
        failure: {
          kind: "malformed_output",
          message: `${adapter.displayName}'s final answer is not JSON: ${parsed.message}: ${tail(answer.trim(), 300)}`,
        },
      },
    };
  }
  const repairs = [...turn.repairsMade, ...parsed.repairs, ...(adapter.finalizeOutput?.(parsed.value, ctx) ?? [])];
  const violations = turn.schema?.validate(parsed.value) ?? [];
  if (violations.length > 0 && canRepair) {
    const problems = violations.map((v) => `- ${v.pointer || "(root)"}: ${v.message}`).join("\n");
    return {
      repair: {
        prompt: repairPrompt(run.firstPrompt, answer, problems),
        note: `repair turn ${turn.attempt + 1}: the answer broke the output schema (${formatViolations(violations)})`,
        problems: violations.length,
      },
    };
  }
  return { outcome: { ...facts, ok: true, output: parsed.value, rawOutput: answer, repairs } };
}
