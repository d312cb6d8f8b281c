/**
 * The suite's reads of a job's result, in one place: when the shape of a failed job's error or of the engine's
 * confinement changes, this file changes and the cases do not.
 */
import type { AgentConfinement, JobResult } from "@skillrig/core";
import { expect } from "vitest";

/** The failed job's error code and message (empty when the job did not fail, so an assertion on them fails plainly). */
export function jobFailure(result: JobResult): { code: string | undefined; message: string } {
  return { code: result.error?.code, message: result.error?.message ?? "" };
}

/** How the engine was confined, as the job result reports it. */
export function jobConfinement(result: JobResult): AgentConfinement | undefined {
  return result.engine_confinement;
}

/** What a job result says of an engine the agent jail confined: no uid 0, no capability, the seccomp filter. */
export function jailedConfinement(userNamespaces: boolean): AgentConfinement {
  return {
    isolation: "namespaces",
    network: "model-endpoint-only",
    uid: expect.any(Number),
    capabilities: "none",
    seccomp: true,
    userNamespaces,
  };
}
