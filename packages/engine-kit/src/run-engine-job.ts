/**
 * One job through one engine adapter, in named steps:
 *   prepareEngineRun (folders, limits, binary, mock model, prompt) -> [no API key: auth failure]
 *   -> per turn: the invocation -> confineAttempt (the agent jail) -> runAttempt (the process, its events)
 *   -> judgeTurn (failure, final answer, or a repair turn) -> the EngineOutcome core expects from `execute`.
 * Never throws for a failed run (only for bad options).
 */
import { compileSchema, type EngineOutcome, type EngineUsage } from "@skillrig/core";
import { confineAttempt, attemptEnv, confinementOf, runAttempt } from "./engine-attempt.js";
import { writeLoginProfile } from "./engine-jail.js";
import { prepareEngineRun, type RunEngineJobOptions } from "./engine-run.js";
import { judgeTurn, traceOf } from "./engine-verdict.js";
import { withInfrastructure } from "./infrastructure-failure.js";
import type { BaseEngineOptions } from "./options.js";
import { costLimitOutcome, turnUsage } from "./turn-usage.js";
import { detectVersion } from "./version.js";

export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, MOCK_API_KEY, type RunEngineJobOptions } from "./engine-run.js";
export { defaultFinalAnswer, repairPrompt } from "./engine-verdict.js";

export async function runEngineJob<O extends BaseEngineOptions>(input: RunEngineJobOptions<O>): Promise<EngineOutcome> {
  const run = await prepareEngineRun(input);
  const { adapter, ctx, work } = run;
  try {
    // An engine that needs a key needs it through a proxy (base_url) too: without one codex fails with "Missing
    // environment variable" and gemini asks for a login. Both are the same failure: auth. (`auth: "none"`: never asked.)
    if (adapter.auth !== "none" && !ctx.apiKey) {
      const message = `${adapter.displayName} has no API key: the environment variable ${ctx.apiKeyEnv} is not set (set it, name another with the "api_key_env" option, or use "mock_scenario" to run offline)`;
      return { ok: false, failure: { kind: "auth", message } };
    }
    const first = await adapter.invocation(ctx);
    const firstEnv = attemptEnv(run, first);
    writeLoginProfile(ctx.dirs.home, firstEnv);
    const engineVersion = await detectVersion(ctx.binary, { env: firstEnv, cwd: ctx.dirs.workspace, parse: adapter.parseVersion });
    const repairTurns = ctx.outputSchema ? (run.options.repair_turns ?? 0) : 0;
    const schema = repairTurns > 0 && ctx.outputSchema ? compileSchema(ctx.outputSchema) : undefined;
    const repairsMade: string[] = [];
    // The CLI's own reports, summed over turns (the metering proxy's figures span the whole job by themselves).
    let reported: EngineUsage | undefined;
    let lastUsage: EngineUsage | undefined;

    for (let attempt = 0; ; attempt++) {
      const invocation = attempt === 0 ? first : await adapter.invocation(ctx);
      const confined = await confineAttempt(run, invocation, attempt === 0 ? firstEnv : attemptEnv(run, invocation));
      if ("failure" in confined) {
        // The jail did not start: nothing of the engine ran (a missing binary is not infrastructure: see classify).
        const { failure } = confined.failure;
        const jailFailed = failure.kind === "jail_unavailable" || failure.kind === "crash";
        return jailFailed
          ? {
              ...confined.failure,
              failure: {
                ...failure,
                infrastructure: { type: "jail_failed", message: `the agent jail could not start: ${failure.message}` },
              },
            }
          : confined.failure;
      }
      const { command } = confined;
      if (attempt === 0) for (const message of command.warnings) work.emit({ type: "status", status: "warning", message });
      const parser = adapter.createParser(ctx);
      const ended = await runAttempt(run, invocation, command, parser, engineVersion, attempt).finally(() => command.close());

      const turn = turnUsage(run, parser, reported, ended.durationMs, lastUsage);
      reported = turn.reported;
      const usage = turn.usage;
      lastUsage = usage;
      const facts = {
        engineVersion,
        exit: { code: ended.exitCode, signal: ended.signal },
        usage,
        confinement: confinementOf(command),
        ...(command.warnings.length > 0 ? { warnings: command.warnings } : {}),
        trace: traceOf(run, ended, invocation, attempt),
      };
      // Stopped for its budget (killed, or ended by itself after the proxy refused a call): cost_limit, whatever else.
      const stopped = costLimitOutcome(run, ended, facts);
      if (stopped) return stopped;
      const verdict = judgeTurn(run, ended, parser, facts, { attempt, repairTurns, repairsMade, schema });
      if ("outcome" in verdict) {
        const { outcome } = verdict;
        if (outcome.ok) return outcome;
        // Lost to the model endpoint, the engine's start or the jail? Said from what the proxy and the stream saw.
        return {
          ...outcome,
          failure: withInfrastructure(outcome.failure, { modelCalls: run.meter.modelCalls(), engineEvents: ended.engineEvents }),
        };
      }
      ctx.prompt = verdict.repair.prompt;
      repairsMade.push(verdict.repair.note);
      if (verdict.repair.problems !== undefined) {
        const message = `asking ${adapter.displayName} to fix ${verdict.repair.problems} output schema violation(s)`;
        work.emit({ type: "status", status: "repairing", message });
      }
    }
  } finally {
    await run.meter.close();
    await run.mock?.close();
  }
}
