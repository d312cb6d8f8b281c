/**
 * The shared usage cases every engine runs (part of `describeEngine`): the real CLI against the mock model, whose
 * answers report cached and reasoning tokens, through the metering proxy. The job's usage is the proxy's record
 * (`source: "proxy"`), every model call counted, priced from the shipped table, the CLI's own report kept beside it;
 * and a token budget stops the CLI after its first call with `cost_limit`, its workspace kept.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { EngineEvent, JobResult } from "@skillrig/core";
import { startMockModel, type RecordedRequest, type Scenario } from "@skillrig/mock-model";
import { runJob } from "@skillrig/skills";
import { describe, expect, it } from "vitest";
import type { StreamParser } from "../adapter.js";
import type { BaseEngineOptions } from "../options.js";
import { priceModels, shippedPriceTable } from "../pricing.js";
import {
  engineRunner,
  greetingJob,
  type EngineTestSettings,
  type TestEngineOptions,
  withTestKey,
  writeGreetingTurn,
} from "./engine-settings.js";
import { jobFailure } from "./job-result.js";

/** What every mock answer reports: input counts cached tokens, output counts reasoning tokens. */
export const METERED_USAGE = { input_tokens: 1200, cached_input_tokens: 800, output_tokens: 300, reasoning_tokens: 120 };

/** A priced model per engine the suite knows (the mock answers as the model asked for); others get a price row of their own. */
const PRICED_MODEL: Record<string, string> = { gemini: "gemini-2.5-pro", codex: "gpt-5", claude: "claude-sonnet-4-5" };

/** Requests that are model calls with usage (not token counts, probes or 404s). */
export function modelCalls(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter(
    (r) => ["gemini", "responses", "anthropic"].includes(r.api) || (r.api === "gemini-side" && r.url.includes(":generateContent")),
  );
}

async function meteredJob<O extends BaseEngineOptions>(
  settings: EngineTestSettings<O, StreamParser>,
  scenario: Scenario,
  jobOptions: Record<string, unknown> = {},
): Promise<{ result: JobResult; events: EngineEvent[]; requests: RecordedRequest[] }> {
  const mock = await startMockModel({ scenario });
  try {
    return await withTestKey(settings, async (keyEnv) => {
      const model = PRICED_MODEL[settings.engine];
      const options = { ...settings.againstMock(mock.url, keyEnv), ...(model ? { model } : {}) } as TestEngineOptions<O>;
      const { runner } = engineRunner(settings, new settings.plugin(options));
      const events: EngineEvent[] = [];
      const job = { ...greetingJob(settings), options: jobOptions };
      const result = await runJob(runner, job, { onEvent: (e) => events.push(e) });
      return { result, events, requests: [...mock.requests] };
    });
  } finally {
    await mock.close();
  }
}

export function describeUsage<O extends BaseEngineOptions>(settings: EngineTestSettings<O, StreamParser>): void {
  describe(`${settings.engine} engine: usage metered at the model's door`, () => {
    it("reports the proxy's usage record (every call, cached and reasoning tokens), priced, the CLI's own report beside it", async () => {
      const scenario = {
        turns: [writeGreetingTurn(settings), { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } }],
        usage: METERED_USAGE,
      };
      const { result, events, requests } = await meteredJob(settings, scenario);
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      const calls = modelCalls(requests).length;
      expect(calls).toBeGreaterThanOrEqual(2);
      const usage = result.usage!;
      expect(usage.source).toBe("proxy");
      expect(usage.modelCalls).toBe(calls);
      // Every call reports 1200 input tokens (800 of them cached); a Gemini side call answers one output token.
      expect(usage.inputTokens).toBe(calls * 1200);
      expect(usage.cachedInputTokens).toBe(calls * 800);
      expect(usage.outputTokens).toBeGreaterThan(0);
      expect(usage.totalTokens).toBe(usage.inputTokens! + usage.outputTokens!);
      // Anthropic's API has no separate count of thinking tokens (they are in output_tokens).
      if (requests.some((r) => r.api !== "anthropic")) expect(usage.reasoningTokens).toBeGreaterThan(0);
      const model = PRICED_MODEL[settings.engine];
      if (model) expect(usage.model).toBe(model);
      expect(usage.engineReported).toBeDefined();
      // Priced from the shipped table, model by model, and the job's cost_usd is that figure.
      const expected = priceModels(usage.models!, shippedPriceTable());
      if (expected.costUsd === null) {
        expect(result.cost_usd).toBe("unpriced");
        expect(usage.unpricedModels).toEqual(expected.unpricedModels);
      } else {
        expect(expected.costUsd).toBeGreaterThan(0);
        expect(usage.costUsd).toBe(expected.costUsd);
        expect(result.cost_usd).toBe(expected.costUsd);
      }
      expect(events.filter((e) => e.type === "usage").at(-1)).toMatchObject({ source: "proxy", modelCalls: calls });
    });

    it("a token budget stops the CLI after the call that reached it: cost_limit, the partial work kept", async () => {
      const scenario = {
        turns: [
          writeGreetingTurn(settings),
          { text: "still working" },
          { text: "still working" },
          { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
        ],
        usage: METERED_USAGE,
      };
      const { result, requests } = await meteredJob(settings, scenario, { max_tokens: 1000 });
      expect(result.status).toBe("failed");
      expect(jobFailure(result).code).toBe("cost_limit");
      expect(jobFailure(result).message).toContain("max_tokens is 1000");
      expect(jobFailure(result).message).toContain(join(result.run_dir, "workspace"));
      expect(existsSync(join(result.run_dir, "workspace"))).toBe(true);
      // The last scripted turn (the final answer) was never asked for.
      expect(requests.some((r) => r.turn === 3)).toBe(false);
      expect(result.usage).toMatchObject({ source: "proxy" });
      expect(result.usage!.totalTokens).toBeGreaterThanOrEqual(1000);
    });
  });
}
