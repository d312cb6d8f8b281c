/**
 * A scenario's `fail` turns: in the first attempts of a retried run a turn answers an HTTP error (with Retry-After
 * when asked) in each API's own error shape, and plays itself from the next attempt on; the server's attempt comes
 * from its options, never from a count it keeps, so the same attempt always gets the same answer.
 */
import { afterEach, describe, expect, it } from "vitest";
import { scenario, startMockModel, turn, validateScenario, type MockModel } from "@skillrig/mock-model";

const servers: MockModel[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const flaky = scenario(turn.text("hello", { fail: turn.failFirst(2, 429, { retry_after_s: 1 }) }), turn.text("second"));

async function start(attempt: number, play = flaky): Promise<MockModel> {
  const server = await startMockModel({ scenario: play, attempt });
  servers.push(server);
  return server;
}

/** A first-turn request in each API's shape. */
const firstTurn = {
  gemini: (url: string) =>
    fetch(`${url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    }),
  responses: (url: string) =>
    fetch(`${url}/v1/responses`, { method: "POST", body: JSON.stringify({ model: "m", input: [{ role: "user", content: "hi" }] }) }),
  anthropic: (url: string) =>
    fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
    }),
};

describe("fail turns by attempt", () => {
  for (const [api, send] of Object.entries(firstTurn)) {
    it(`${api}: attempts 1 and 2 answer 429 with Retry-After in the API's error shape; attempt 3 plays the turn`, async () => {
      for (const attempt of [1, 2]) {
        const server = await start(attempt);
        // Twice in the same attempt: a CLI's own retry gets the error again (it gives up, the run is lost).
        for (let i = 0; i < 2; i++) {
          const res = await send(server.url);
          expect(res.status).toBe(429);
          expect(res.headers.get("retry-after")).toBe("1");
          const body = (await res.json()) as Record<string, unknown>;
          if (api === "gemini") expect(body).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED" } });
          if (api === "responses") expect(body).toMatchObject({ error: { code: "rate_limit_exceeded" } });
          if (api === "anthropic") expect(body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
        }
        expect(server.requests.filter((r) => r.answer === "error 429")).toHaveLength(2);
      }
      const third = await start(3);
      const res = await send(third.url);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("hello");
      expect(third.requests.at(-1)?.answer).toBe("text");
    });
  }

  it("a fail without first_attempts fails every attempt; 500 comes in each shape without Retry-After", async () => {
    const down = scenario(turn.text("never", { fail: { status: 500 } }));
    const server = await start(7, down);
    const res = await firstTurn.anthropic(server.url);
    expect(res.status).toBe(500);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
    const gemini = await firstTurn.gemini(server.url);
    expect(gemini.status).toBe(500);
    expect(await gemini.json()).toMatchObject({ error: { code: 500, status: "INTERNAL" } });
  });

  it("a plain error turn may carry retry_after_s too", async () => {
    const limited = validateScenario({ turns: [{ error: { status: 429, retry_after_s: 30 } }] });
    const s2 = await start(1, limited);
    const res = await firstTurn.responses(s2.url);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("30");
  });

  it("refuses a bad fail or attempt, naming the place", async () => {
    expect(() => validateScenario({ turns: [{ text: "x", fail: { status: 200 } }] })).toThrow(/\/turns\/0\/fail\/status/);
    expect(() => validateScenario({ turns: [{ text: "x", fail: { status: 429, first_attempts: 0 } }] })).toThrow(
      /\/turns\/0\/fail\/first_attempts/,
    );
    expect(() => validateScenario({ turns: [{ text: "x", fail: { status: 429, when: "always" } }] })).toThrow(/\/turns\/0\/fail/);
    await expect(startMockModel({ scenario: flaky, attempt: 0 })).rejects.toThrow(/attempt must be a whole number from 1, not 0/);
  });
});
