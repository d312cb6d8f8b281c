/**
 * The metering proxy against the real loopback model server, in each dialect the engines speak, streamed and not:
 * the answer passes through byte for byte, and its usage is read in the usage record's words (input counts cached
 * tokens, output counts reasoning tokens). Bounds on what it reads, the budget's refusal, and keys kept out.
 */
import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockModel } from "@skillrig/mock-model";
import { priceModels, priceTable, startMeteringProxy, type MeteringProxy } from "@skillrig/engine-kit";

const USAGE = { input_tokens: 1200, cached_input_tokens: 800, cache_write_tokens: 100, output_tokens: 300, reasoning_tokens: 120 };
const open: Array<MockModel | MeteringProxy> = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

async function mockAndProxy(scenario = { turns: [{ text: "hello" }], usage: USAGE }) {
  const mock = await startMockModel({ scenario });
  const proxy = await startMeteringProxy({ upstream: mock.url });
  open.push(proxy, mock);
  return { mock, proxy };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

const CALLS: Array<{ name: string; path: string; body: unknown; model: string; expected: Record<string, number> }> = [
  {
    name: "Gemini streamGenerateContent (SSE)",
    path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
    body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
    model: "gemini-2.5-pro",
    // Gemini has no cache-write count.
    expected: { inputTokens: 1200, cachedInputTokens: 800, outputTokens: 300, reasoningTokens: 120, totalTokens: 1500, modelCalls: 1 },
  },
  {
    name: "Gemini generateContent (JSON)",
    path: "/v1beta/models/gemini-2.5-flash:generateContent",
    body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
    model: "gemini-2.5-flash",
    // The side answer is one output token, no thoughts.
    expected: { inputTokens: 1200, cachedInputTokens: 800, outputTokens: 1, totalTokens: 1201, modelCalls: 1 },
  },
  {
    name: "OpenAI Responses (SSE)",
    path: "/v1/responses",
    body: { model: "gpt-5", stream: true, input: [{ role: "user", content: "hi" }] },
    model: "gpt-5",
    expected: { inputTokens: 1200, cachedInputTokens: 800, outputTokens: 300, reasoningTokens: 120, totalTokens: 1500, modelCalls: 1 },
  },
  {
    name: "Anthropic Messages (SSE)",
    path: "/v1/messages",
    body: { model: "claude-sonnet-4-5", stream: true, messages: [{ role: "user", content: "hi" }] },
    model: "claude-sonnet-4-5",
    expected: { inputTokens: 1200, cachedInputTokens: 800, cacheWriteTokens: 100, outputTokens: 300, totalTokens: 1500, modelCalls: 1 },
  },
  {
    name: "Anthropic Messages (JSON)",
    path: "/v1/messages",
    body: { model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }] },
    model: "claude-haiku-4-5",
    expected: { inputTokens: 1200, cachedInputTokens: 800, cacheWriteTokens: 100, outputTokens: 300, totalTokens: 1500, modelCalls: 1 },
  },
];

describe("the metering proxy", () => {
  for (const call of CALLS) {
    it(`reads ${call.name} usage and passes the answer through unchanged`, async () => {
      const { mock, proxy } = await mockAndProxy();
      const direct = await (await post(`${mock.url}${call.path}`, call.body)).text();
      const viaProxy = await post(`${proxy.origin}${call.path}`, call.body, { "x-api-key": "sk-secret" });
      expect(viaProxy.status).toBe(200);
      // Ids carry the server's request serial: compare with the serial made equal.
      expect((await viaProxy.text()).replace(/_000\d|_\d+"/g, "_N")).toBe(direct.replace(/_000\d|_\d+"/g, "_N"));
      expect(proxy.totals.calls).toBe(1);
      expect(proxy.totals.models).toEqual({ [call.model]: call.expected });
      // The key reached the model (the proxy forwards headers) and nowhere else.
      expect(mock.requests.at(-1)?.apiKey).toBe("sk-secret");
      expect(JSON.stringify(proxy.totals)).not.toContain("sk-secret");
    });
  }

  it("prices each model from the table, and a model with no row is unpriced (null), never 0", async () => {
    const { proxy } = await mockAndProxy();
    await (await post(`${proxy.origin}${CALLS[2]!.path}`, CALLS[2]!.body)).text();
    const table = priceTable();
    // gpt-5: 400 uncached at 1.25, 800 cached at 0.125, 180 plain output and 120 reasoning at 10 (per million).
    expect(priceModels(proxy.totals.models, table)).toEqual({ costUsd: 0.0036, pricedUsd: 0.0036, unpricedModels: [] });
    await (await post(`${proxy.origin}/v1/messages`, { model: "claude-mock", messages: [] })).text();
    expect(priceModels(proxy.totals.models, table)).toEqual({ costUsd: null, pricedUsd: 0.0036, unpricedModels: ["claude-mock"] });
    // An override row prices it (config cost.prices).
    const priced = priceModels(proxy.totals.models, priceTable({ "claude-mock": { input: 1, output: 1 } }));
    expect(priced.costUsd).toBeCloseTo(0.0036 + 0.0015, 9);
  });

  it("sums several calls per model, and counts responses without usage as no call", async () => {
    const { proxy } = await mockAndProxy();
    for (let i = 0; i < 3; i++) await (await post(`${proxy.origin}${CALLS[0]!.path}`, CALLS[0]!.body)).text();
    await (await post(`${proxy.origin}/v1/messages/count_tokens`, { messages: [] })).text();
    expect(proxy.totals.calls).toBe(3);
    expect(proxy.totals.models["gemini-2.5-pro"]).toMatchObject({ inputTokens: 3600, outputTokens: 900, modelCalls: 3 });
  });

  it("refuses calls with 429 once its refusal says so, without forwarding them", async () => {
    const mock = await startMockModel({ scenario: { turns: [{ text: "hello" }] } });
    let spent: string | undefined;
    const proxy = await startMeteringProxy({
      upstream: mock.url,
      refusal: () => spent,
      onCall: () => void (spent = "the job's budget is spent"),
    });
    open.push(proxy, mock);
    expect((await post(`${proxy.origin}${CALLS[2]!.path}`, CALLS[2]!.body)).status).toBe(200);
    const refused = await post(`${proxy.origin}${CALLS[2]!.path}`, CALLS[2]!.body);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: "cost_limit", message: "skillrig: the job's budget is spent" } });
    expect(mock.requests).toHaveLength(1);
    expect(proxy.totals.refusedCalls).toBe(1);
  });

  it("asks the model for an uncompressed answer, so an agent's Accept-Encoding cannot hide its usage", async () => {
    const seen: Array<string | undefined> = [];
    const upstream = createServer((req, res) => {
      seen.push(req.headers["accept-encoding"]);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "response", model: "gpt-5", usage: { input_tokens: 7, output_tokens: 3 } }));
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", () => r()));
    const proxy = await startMeteringProxy({ upstream: `http://127.0.0.1:${(upstream.address() as { port: number }).port}` });
    try {
      await (await post(`${proxy.origin}/v1/responses`, {}, { "accept-encoding": "gzip, br" })).text();
      expect(seen).toEqual(["identity"]);
      expect(proxy.totals.models["gpt-5"]).toMatchObject({ inputTokens: 7, outputTokens: 3 });
    } finally {
      await proxy.close();
      upstream.close();
    }
  });

  it("passes an answer past its bounds through unread and says so, never guessing its usage", async () => {
    const huge = `data: ${JSON.stringify({ usageMetadata: { promptTokenCount: 5 }, pad: "x".repeat(4096) })}\n\n`;
    const upstream = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(huge);
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    const proxy = await startMeteringProxy({ upstream: url, bounds: { maxJsonBytes: 1024, maxLineBytes: 1024 } });
    try {
      expect(await (await post(`${proxy.origin}/x`, {})).text()).toBe(huge);
      expect(proxy.totals).toMatchObject({ calls: 0, unreadCalls: 1 });
    } finally {
      await proxy.close();
      upstream.close();
    }
  });

  it("drops the engine's connection when the model cannot be reached, as the model itself would (never a 502 to retry)", async () => {
    const proxy = await startMeteringProxy({ upstream: "http://127.0.0.1:9" });
    open.push(proxy);
    await expect(post(`${proxy.origin}/v1/responses`, {}, { authorization: "Bearer sk-secret" })).rejects.toThrow();
  });
});
