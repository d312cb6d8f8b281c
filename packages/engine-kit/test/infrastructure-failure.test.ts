/**
 * Which failures are the infrastructure's: from the metering proxy's view of the model (its last answer) and whether
 * the engine gave any event, never from the answer. A failure about the answer, a bound, a budget, a key or a cancel
 * is never typed as infrastructure, whatever the model answered before it.
 */
import { describe, expect, it } from "vitest";
import type { EngineFailure } from "@skillrig/core";
import { classifyInfrastructure } from "../src/infrastructure-failure.js";

const crash: EngineFailure = { kind: "crash", message: "Gemini CLI failed with exit code 1" };

describe("classifyInfrastructure", () => {
  it("types the model endpoint's last answer: 429, 5xx, no answer", () => {
    expect(classifyInfrastructure(crash, { modelCalls: { forwarded: 3, last: { status: 429 } }, engineEvents: 4 })).toEqual({
      type: "model_rate_limited",
      status: 429,
      message: "the model endpoint answered HTTP 429 (rate limited) to the last of 3 model calls",
    });
    expect(classifyInfrastructure(crash, { modelCalls: { forwarded: 1, last: { status: 503 } }, engineEvents: 1 })).toMatchObject({
      type: "model_server_error",
      status: 503,
    });
    expect(
      classifyInfrastructure(
        { kind: "idle_timeout", message: "printed nothing" },
        { modelCalls: { forwarded: 2, last: { unreachable: "ECONNREFUSED" } }, engineEvents: 2 },
      ),
    ).toMatchObject({ type: "model_unreachable", message: expect.stringContaining("ECONNREFUSED") });
  });

  it("an engine that ended before its first event died early; the jail that did not start failed", () => {
    expect(classifyInfrastructure(crash, { modelCalls: { forwarded: 0 }, engineEvents: 0 })).toMatchObject({ type: "engine_died_early" });
    expect(classifyInfrastructure({ kind: "jail_unavailable", message: "no bwrap" }, { engineEvents: 0 })).toMatchObject({
      type: "jail_failed",
    });
  });

  it("never types a failure about the answer, a bound, a budget, a key, a binary or a cancel, even after a 429", () => {
    const after429 = { modelCalls: { forwarded: 2, last: { status: 429 } }, engineEvents: 0 };
    for (const kind of ["malformed_output", "output_limit", "cost_limit", "auth", "not_found", "canceled"] as const)
      expect(classifyInfrastructure({ kind, message: "x" }, after429), kind).toBeUndefined();
  });

  it("a crash after events whose last model answer was fine is the run's own failure", () => {
    expect(classifyInfrastructure(crash, { modelCalls: { forwarded: 2, last: { status: 200 } }, engineEvents: 5 })).toBeUndefined();
    // 4xx other than 429 (a bad request the CLI built) is not the endpoint being down.
    expect(classifyInfrastructure(crash, { modelCalls: { forwarded: 2, last: { status: 400 } }, engineEvents: 5 })).toBeUndefined();
    // Not metered: the model's answers are unknown, so only an early death can be said.
    expect(classifyInfrastructure(crash, { engineEvents: 3 })).toBeUndefined();
  });
});
