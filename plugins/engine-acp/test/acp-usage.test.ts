/**
 * ACP reports no usage of its own (the protocol has none; adapters that do report count only the last model call):
 * through engine-kit's metering proxy an ACP engine's job gets the same usage record as every engine. Gemini CLI in
 * ACP mode against the mock model, whose answers report cached and reasoning tokens.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRunner, loadConfig } from "@skillrig/core";
import AcpEnginePlugin from "@skillrig/engine-acp";
import { priceModels, priceTable } from "@skillrig/engine-kit";
import { METERED_USAGE, tempDir } from "@skillrig/engine-kit/testing";
import { startMockModel } from "@skillrig/mock-model";
import { costConfigSection, runConfigSection, runJob, skillProtocolPlugin, skillsConfigSection } from "@skillrig/skills";
import { EXAMPLE, geminiAcpOptions } from "./helpers.js";
import sandboxPlugin from "@skillrig/sandbox";

const KEY_ENV = "SKILLRIG_ACP_USAGE_KEY";

describe("an ACP engine's usage", () => {
  it("is the metering proxy's record, every call counted and priced, though the agent reports none", async () => {
    const loaded = await loadConfig({
      configPath: join(EXAMPLE, "skillrig.config.json"),
      sections: [skillsConfigSection, runConfigSection, costConfigSection],
    });
    const scenario = {
      ...(await import(join(EXAMPLE, "mock-model.scenario.json"), { with: { type: "json" } })).default,
      usage: METERED_USAGE,
    };
    const mock = await startMockModel({ scenario });
    try {
      // The pinned CLI's models (gemini-3.1-pro-preview, gemini-3.5-flash-lite) are not in the shipped table: a config
      // row prices them (cost.prices), the first by its prefix (a `-preview` release of gemini-3.1-pro).
      const prices = {
        "gemini-3.1-pro": { input: 2, cached_input: 0.2, output: 12 },
        "gemini-3.5-flash-lite": { input: 0.1, output: 0.4 },
      };
      const runner = await createRunner(
        { ...loaded, config: { ...loaded.config, cost: { prices } }, plugins: [] },
        {
          builtins: [
            skillProtocolPlugin(),
            new AcpEnginePlugin(geminiAcpOptions("gemini", { base_url: mock.url, api_key_env: KEY_ENV })),
            sandboxPlugin(),
          ],
        },
      );
      process.env[KEY_ENV] = "acp-usage-key";
      const result = await runJob(
        runner,
        { skill_id: "word-stats", engine: "gemini", files: { text: join(EXAMPLE, "notes.txt") }, parameter: { top: 5 } },
        { runsDir: tempDir("skillrig-acp-usage-") },
      );
      expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
      const calls = mock.requests.filter((r) => r.api === "gemini" || (r.api === "gemini-side" && r.url.includes(":generateContent")));
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(result.usage).toMatchObject({
        source: "proxy",
        modelCalls: calls.length,
        inputTokens: calls.length * 1200,
        cachedInputTokens: calls.length * 800,
      });
      expect(result.usage!.reasoningTokens).toBeGreaterThan(0);
      // The ACP agent said nothing of usage: nothing is kept beside the proxy's figures.
      expect(result.usage!.engineReported).toBeUndefined();
      const expected = priceModels(result.usage!.models!, priceTable(prices));
      expect(expected.unpricedModels).toEqual([]);
      expect(expected.costUsd).toBeGreaterThan(0);
      expect(result.cost_usd).toBe(expected.costUsd);
    } finally {
      delete process.env[KEY_ENV];
      await mock.close();
    }
  });
});
