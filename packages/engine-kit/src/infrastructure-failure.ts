/**
 * Whether a failed run was lost to its infrastructure rather than to what the agent did, from facts skillrig saw
 * itself, never from the CLI's words: the metering proxy's view of the model endpoint (its last answer's status, or
 * no answer at all), whether the engine emitted any event before it ended, and whether the agent jail started.
 *
 * Only a failure that is not about the answer can be infrastructure: a run with a final answer that broke its format
 * (`malformed_output`), or that passed a bound, spent its budget, was canceled, had no key (`auth`) or no binary
 * (`not_found`) is never typed so (retrying would not mend it, or would hide a skill's fault).
 */
import type { EngineFailure, EngineFailureKind, InfrastructureFailure } from "@skillrig/core";
import type { ModelCallEnd } from "./metering-proxy.js";

/** The failure kinds that may come from the infrastructure: the engine died, stopped, or never answered. */
const MAYBE_INFRASTRUCTURE: ReadonlySet<EngineFailureKind> = new Set<EngineFailureKind>(["crash", "timeout", "idle_timeout"]);

export interface RunFacts {
  /** What the metering proxy saw of the model (undefined when not metering: the model's answers are then unknown). */
  modelCalls?: { forwarded: number; last?: ModelCallEnd };
  /** Events the engine's stream gave (logs and skillrig's own status lines aside). */
  engineEvents: number;
}

/** The model endpoint's part, when its last answer was a rate limit, a server error, or none. */
function modelEndpointFailure(modelCalls: RunFacts["modelCalls"]): InfrastructureFailure | undefined {
  const last = modelCalls?.last;
  if (!last || !modelCalls) return undefined;
  const of = `the last of ${modelCalls.forwarded} model call${modelCalls.forwarded === 1 ? "" : "s"}`;
  if ("unreachable" in last)
    return { type: "model_unreachable", message: `the model endpoint could not be reached (${last.unreachable}) on ${of}` };
  if (last.status === 429)
    return { type: "model_rate_limited", status: 429, message: `the model endpoint answered HTTP 429 (rate limited) to ${of}` };
  if (last.status >= 500 && last.status <= 599)
    return { type: "model_server_error", status: last.status, message: `the model endpoint answered HTTP ${last.status} to ${of}` };
  return undefined;
}

/** The infrastructure failure behind `failure`, if it was one. */
export function classifyInfrastructure(failure: EngineFailure, facts: RunFacts): InfrastructureFailure | undefined {
  if (failure.kind === "jail_unavailable") return { type: "jail_failed", message: `the agent jail could not start: ${failure.message}` };
  if (!MAYBE_INFRASTRUCTURE.has(failure.kind)) return undefined;
  const endpoint = modelEndpointFailure(facts.modelCalls);
  if (endpoint) return endpoint;
  if (failure.kind === "crash" && facts.engineEvents === 0)
    return { type: "engine_died_early", message: `the engine ended before its first event: ${failure.message}` };
  return undefined;
}

/** `failure` with its infrastructure type, when it has one. */
export function withInfrastructure(failure: EngineFailure, facts: RunFacts): EngineFailure {
  const infrastructure = classifyInfrastructure(failure, facts);
  return infrastructure ? { ...failure, infrastructure } : failure;
}
