/**
 * API dialects over real HTTP on loopback: the built-in Anthropic Messages dialect as Claude Code speaks to it, and a
 * dialect defined here, outside the package, through the public `defineDialect` / `dialects` extension point.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  defineDialect,
  type MockDialect,
  type MockModel,
  type Scenario,
  scenario,
  startMockModel,
  turn,
  turnText,
} from "@skillrig/mock-model";

let server: MockModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(play: Scenario, dialects?: MockDialect[]) {
  server = await startMockModel({ scenario: play, dialects });
  return server;
}

/** The `event:` / `data:` pairs of an SSE body. */
function sse(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown>;
      return { event, data };
    });
}

const messagesBody = (assistantTurns: number, extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  stream: true,
  messages: [
    { role: "user", content: [{ type: "text", text: "go" }] },
    ...Array.from({ length: assistantTurns }, (_, i) => [
      { role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name: "Bash", input: { command: "echo" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: [{ type: "text", text: `out ${i}` }] }] },
    ]).flat(),
  ],
  ...extra,
});

async function ask(s: MockModel, body: unknown, headers: Record<string, string> = { "x-api-key": "sk-ant-1" }) {
  return fetch(`${s.url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
}

describe("the Anthropic Messages dialect", () => {
  it("streams each turn as message_start, one content block, message_delta with usage and message_stop", async () => {
    const s = await start(
      scenario(turn.writeFile("a.txt", "A\n"), turn.shell("ls"), turn.echoToolOutput(), { usage: { input_tokens: 7, output_tokens: 3 } }),
    );
    const first = await ask(s, messagesBody(0));
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    const events = sse(await first.text());
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
    expect(events[0]!.data.message).toMatchObject({ role: "assistant", model: "claude-sonnet-4-5", usage: { input_tokens: 7 } });
    expect(events[1]!.data.content_block).toMatchObject({ type: "tool_use", name: "Write", input: {} });
    expect(JSON.parse((events[2]!.data.delta as { partial_json: string }).partial_json)).toEqual({ file_path: "a.txt", content: "A\n" });
    expect(events[4]!.data).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } });

    const second = sse(await (await ask(s, messagesBody(1))).text());
    expect(second[1]!.data.content_block).toMatchObject({ type: "tool_use", name: "Bash" });
    // The third turn echoes the last tool_result in the history, as text.
    const third = sse(await (await ask(s, messagesBody(2))).text());
    expect(third[1]!.data.content_block).toEqual({ type: "text", text: "" });
    expect(third[2]!.data.delta).toEqual({ type: "text_delta", text: "out 1" });
    expect(third[4]!.data).toMatchObject({ delta: { stop_reason: "end_turn" } });
    expect(s.requests.map((r) => [r.api, r.turn, r.answer, r.apiKey, r.model])).toEqual([
      ["anthropic", 0, "write_file", "sk-ant-1", "claude-sonnet-4-5"],
      ["anthropic", 1, "shell", "sk-ant-1", "claude-sonnet-4-5"],
      ["anthropic", 2, "echo_tool_output", "sk-ant-1", "claude-sonnet-4-5"],
    ]);
  });

  it("activate_skill is Claude Code's Skill tool with the skill's name; branches pick by the request's text here too", async () => {
    const s = await start(
      scenario(turn.text("not listed"), {
        branches: [{ prompt_contains: ["- sales: Builds sales reports"], turns: [turn.activateSkill("sales")] }],
      }),
    );
    const plain = sse(await (await ask(s, messagesBody(0))).text());
    expect(plain[2]!.data.delta).toEqual({ type: "text_delta", text: "not listed" });
    const listed = messagesBody(0);
    listed.messages[0] = { role: "user", content: [{ type: "text", text: "skills:\n- sales: Builds sales reports.\ngo" }] };
    const events = sse(await (await ask(s, listed)).text());
    expect(events[1]!.data.content_block).toMatchObject({ type: "tool_use", name: "Skill" });
    expect(JSON.parse((events[2]!.data.delta as { partial_json: string }).partial_json)).toEqual({ skill: "sales" });
    expect(s.requests.map((r) => r.answer)).toEqual(["text", "activate_skill"]);
  });

  it("answers one JSON message when the request does not stream (Claude Code's fallback)", async () => {
    const s = await start(scenario(turn.text("hello")));
    const res = await ask(s, messagesBody(0, { stream: false }));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "hello" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 100, output_tokens: 10 },
    });
  });

  it("makes a json turn a StructuredOutput call when the request offers that tool, else JSON text", async () => {
    const s = await start(scenario(turn.json({ ok: true })));
    const offered = await (
      await ask(s, messagesBody(0, { stream: false, tools: [{ name: "Bash" }, { name: "StructuredOutput" }] }))
    ).json();
    expect(offered.content).toEqual([
      { type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "StructuredOutput", input: { ok: true } },
    ]);
    const plain = await (await ask(s, messagesBody(0, { stream: false }))).json();
    expect(plain.content).toEqual([{ type: "text", text: '{"ok":true}' }]);
  });

  it("passes a script's JSON printout (echo_tool_output) through StructuredOutput when offered; other printouts stay text", async () => {
    const s = await start(scenario(turn.shell("run"), turn.echoToolOutput()));
    const history = (output: string) => ({
      stream: false,
      tools: [{ name: "StructuredOutput" }],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: output }] },
      ],
    });
    expect((await (await ask(s, history('{"total": 3}'))).json()).content).toEqual([
      expect.objectContaining({ type: "tool_use", name: "StructuredOutput", input: { total: 3 } }),
    ]);
    expect((await (await ask(s, history("[1, 2]"))).json()).content).toEqual([{ type: "text", text: "[1, 2]" }]);
    expect((await (await ask(s, history("not json"))).json()).content).toEqual([{ type: "text", text: "not json" }]);
  });

  it("sends errors in Anthropic's shape with the scripted status", async () => {
    const s = await start(scenario(turn.error(401), turn.error(529, "busy")));
    const denied = await ask(s, messagesBody(0));
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
      request_id: "req_mock_401",
    });
    const busy = await ask(s, messagesBody(1));
    expect(busy.status).toBe(529);
    expect((await busy.json()).error).toEqual({ type: "overloaded_error", message: "busy" });
  });

  it("answers the start-up probe and token counts without using a turn", async () => {
    const s = await start(scenario(turn.text("only turn")));
    expect((await fetch(`${s.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
    const count = await fetch(`${s.url}/v1/messages/count_tokens`, { method: "POST", body: JSON.stringify({ messages: [] }) });
    expect(await count.json()).toEqual({ input_tokens: 100 });
    expect(s.requests.map((r) => [r.api, r.answer])).toEqual([
      ["anthropic-side", "side"],
      ["anthropic-side", "side"],
    ]);
  });

  it("takes a hostile body (no messages, wrong types) as turn 0 instead of failing", async () => {
    const s = await start(scenario(turn.text("first")));
    for (const body of [{ messages: "nope" }, { messages: [null, 3, { role: "assistant" }] }, "not json"]) {
      const res = await fetch(`${s.url}/v1/messages`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
      expect(res.status).toBe(200);
    }
    expect(s.requests.map((r) => r.turn)).toEqual([0, 1, 0]);
  });
});

/** A test-only dialect, written the way an outside team would: a line protocol at POST /echo-api/chat. */
const echoDialect = defineDialect({
  name: "echo-api",
  matches: (request) => request.method === "POST" && request.path === "/echo-api/chat",
  sideReply: (request) => (request.url.searchParams.get("ping") === "1" ? { json: { pong: true } } : undefined),
  model: (request) => (request.body as { engine?: string } | undefined)?.engine,
  modelTurns: (request) => ((request.body as { history?: unknown[] } | undefined)?.history ?? []).length,
  lastToolOutput: (request) => (request.body as { lastOutput?: string } | undefined)?.lastOutput,
  reply(answer, context) {
    const text = turnText(answer, context.toolOutput);
    if (text !== undefined) return { json: { say: text, model: context.model, n: context.serial } };
    if ("write_file" in answer) return { sse: [{ event: "write", data: answer.write_file }] };
    throw new Error("echo-api cannot run shell commands");
  },
  errorReply: (status, message) => ({ status, json: { failure: message ?? `status ${status}` } }),
});

describe("a dialect registered from outside the package", () => {
  it("serves its own route from the same scenario format, beside the built-in dialects", async () => {
    const s = await start(
      scenario(turn.text("hi"), turn.writeFile("x.txt", "X"), turn.echoToolOutput(), turn.error(503), turn.shell("ls")),
      [echoDialect],
    );
    const chat = (history: number, extra: Record<string, unknown> = {}) =>
      fetch(`${s.url}/echo-api/chat`, {
        method: "POST",
        body: JSON.stringify({ engine: "e1", history: Array(history).fill(0), ...extra }),
      });

    expect(await (await chat(0)).json()).toEqual({ say: "hi", model: "e1", n: 1 });
    expect(await (await chat(1)).text()).toBe('event: write\ndata: {"path":"x.txt","content":"X"}\n\n');
    expect(await (await chat(2, { lastOutput: "tool said so" })).json()).toMatchObject({ say: "tool said so" });
    const failed = await chat(3);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ failure: "status 503" });
    // A turn the dialect cannot play is a 500 naming the dialect, not a hung request.
    const unsupported = await chat(4);
    expect(unsupported.status).toBe(500);
    expect((await unsupported.json()).error.message).toBe('mock-model dialect "echo-api": echo-api cannot run shell commands');
    expect(await (await fetch(`${s.url}/echo-api/chat?ping=1`, { method: "POST", body: "{}" })).json()).toEqual({ pong: true });

    // The built-in dialects still answer on the same server.
    expect((await ask(s, messagesBody(0, { stream: false }))).status).toBe(200);
    expect(s.requests.map((r) => `${r.api} ${r.answer}`)).toEqual([
      "echo-api text",
      "echo-api write_file",
      "echo-api echo_tool_output",
      "echo-api error 503",
      "echo-api shell",
      "echo-api-side side",
      "anthropic text",
    ]);
  });

  it("a dialect that throws while reading a request answers 500 naming it", async () => {
    const broken = defineDialect({
      ...echoDialect,
      name: "broken",
      modelTurns: () => {
        throw new Error("cannot count");
      },
    });
    const s = await start(scenario(turn.text("hi")), [broken]);
    const res = await fetch(`${s.url}/echo-api/chat`, { method: "POST", body: "{}" });
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toBe('mock-model dialect "broken": cannot count');
  });

  it("a dialect whose matches() throws, or that counts turns wrongly, answers 500 and the server lives on", async () => {
    const throwing = defineDialect({
      ...echoDialect,
      name: "throwing",
      matches: () => {
        throw new Error("bad match");
      },
    });
    const miscounting = defineDialect({ ...echoDialect, name: "miscounting", modelTurns: () => -1 });
    const s = await start(scenario(turn.text("hi")), [miscounting]);
    const res = await fetch(`${s.url}/echo-api/chat`, { method: "POST", body: "{}" });
    expect((await res.json()).error.message).toBe('mock-model dialect "miscounting": modelTurns() returned -1, not a count of turns');
    await s.close();
    const t = await start(scenario(turn.text("hi")), [throwing]);
    const thrown = await fetch(`${t.url}/anything`, { method: "POST", body: "{}" });
    expect(thrown.status).toBe(500);
    expect((await thrown.json()).error.message).toBe("mock-model dialect matching failed: bad match");
    expect((await fetch(`${t.url}/anything`, { method: "POST", body: "{}" })).status).toBe(500);
  });

  it("defineDialect names every problem of a wrong dialect at once", async () => {
    expect(() => defineDialect({ name: "Bad Name", matches: () => true } as never)).toThrow(
      'mock-model dialect "Bad Name": name must be a lowercase word (letters, digits, "-", "_"), got "Bad Name"; modelTurns must be a function; reply must be a function; errorReply must be a function',
    );
    expect(() => defineDialect({ ...echoDialect, sideReply: "yes" } as never)).toThrow(/sideReply, when given, must be a function/);
    await expect(startMockModel({ scenario: scenario(turn.text("x")), dialects: [{ name: "half" } as never] })).rejects.toThrow(
      /mock-model dialect "half"/,
    );
  });
});

describe("scenario builders", () => {
  it("build the same JSON a scenario file holds, with options last", () => {
    expect(
      scenario(turn.writeFile("a.txt", "A", { delay_ms: 5 }), turn.json({ ok: 1 }), {
        after_end: turn.text("bye"),
        usage: { input_tokens: 1 },
      }),
    ).toEqual({
      turns: [{ write_file: { path: "a.txt", content: "A" }, delay_ms: 5 }, { json: { ok: 1 } }],
      after_end: { text: "bye" },
      usage: { input_tokens: 1 },
    });
    expect(scenario(turn.error(401), turn.hang()).turns).toEqual([{ error: { status: 401 } }, { hang: true }]);
  });

  it("validate at once, naming the bad turn by JSON pointer", () => {
    expect(() => scenario(turn.error(200))).toThrow(/\/turns\/0\/error\/status/);
    expect(() => scenario()).toThrow(/invalid mock-model scenario/);
  });
});
