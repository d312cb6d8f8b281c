/** The mock model over real HTTP on loopback, spoken to as the CLIs speak to it. */
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadScenario, startMockModel, validateScenario, type MockModel, type Scenario } from "@skillrig/mock-model";

let server: MockModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(scenario: Scenario) {
  server = await startMockModel({ scenario });
  return server;
}

function sseData(text: string): unknown[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));
}

/** One Gemini streaming request whose only text is `text`; the answer's SSE data as JSON text. */
const askGemini = (s: MockModel, text: string) =>
  fetch(`${s.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
    method: "POST",
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text }] }] }),
  }).then(async (r) => JSON.stringify(sseData(await r.text())));

const geminiBody = (modelTurns: number) => ({
  contents: [
    { role: "user", parts: [{ text: "go" }] },
    ...Array.from({ length: modelTurns }, () => ({ role: "model", parts: [{ text: "x" }] })),
  ],
});

describe("mock-model", () => {
  it("binds 127.0.0.1 on a free port", async () => {
    const s = await start({ turns: [{ text: "hi" }] });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.port).toBeGreaterThan(0);
  });

  it("plays Gemini turns by the number of model turns in the request's history", async () => {
    const s = await start({
      turns: [{ write_file: { path: "a.txt", content: "A" } }, { shell: { command: "ls" } }, { json: { ok: true } }],
    });
    const ask = async (n: number) => {
      const res = await fetch(`${s.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
        method: "POST",
        headers: { "x-goog-api-key": "k1", "content-type": "application/json" },
        body: JSON.stringify(geminiBody(n)),
      });
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      return sseData(await res.text())[0] as { candidates: Array<{ content: { parts: unknown[] } }> };
    };
    expect((await ask(0)).candidates[0]!.content.parts).toEqual([
      { functionCall: { name: "write_file", args: { file_path: "a.txt", content: "A" } } },
    ]);
    expect((await ask(1)).candidates[0]!.content.parts).toEqual([{ functionCall: { name: "run_shell_command", args: { command: "ls" } } }]);
    expect((await ask(2)).candidates[0]!.content.parts).toEqual([{ text: '{"ok":true}' }]);
    // Retrying a request replays the same turn; past the end comes after_end.
    expect((await ask(2)).candidates[0]!.content.parts).toEqual([{ text: '{"ok":true}' }]);
    expect((await ask(3)).candidates[0]!.content.parts).toEqual([{ text: "Done." }]);
    expect(s.requests.map((r) => [r.api, r.turn, r.answer, r.apiKey, r.model])).toEqual([
      ["gemini", 0, "write_file", "k1", "gemini-2.5-flash"],
      ["gemini", 1, "shell", "k1", "gemini-2.5-flash"],
      ["gemini", 2, "json", "k1", "gemini-2.5-flash"],
      ["gemini", 2, "json", "k1", "gemini-2.5-flash"],
      ["gemini", 3, "text", "k1", "gemini-2.5-flash"],
    ]);
  });

  it("answers Gemini side calls without using a turn", async () => {
    const s = await start({ turns: [{ text: "only" }] });
    const res = await fetch(`${s.url}/v1beta/models/gemini-2.5-flash-lite:generateContent`, {
      method: "POST",
      body: JSON.stringify(geminiBody(0)),
    });
    const body = (await res.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> };
    expect(JSON.parse(body.candidates[0]!.content.parts[0]!.text)).toMatchObject({ next_speaker: "user" });
    expect(s.requests[0]).toMatchObject({ api: "gemini-side", answer: "side" });
  });

  it("plays OpenAI Responses turns as SSE events; a file write is codex's apply_patch", async () => {
    const s = await start({ turns: [{ write_file: { path: "out.txt", content: "line 1\nline 2\n" } }, { text: "done" }] });
    const first = await fetch(`${s.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: "Bearer sk-1" },
      body: JSON.stringify({ model: "gpt-x", input: [{ type: "message", role: "user" }] }),
    });
    const events = sseData(await first.text()) as Array<{ type: string; item?: { type: string; name: string; arguments: string } }>;
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.output_item.added",
      "response.output_item.done",
      "response.completed",
    ]);
    const call = events[2]!.item!;
    expect(call.type).toBe("function_call");
    expect(call.name).toBe("exec_command");
    expect(JSON.parse(call.arguments).cmd).toBe(
      "apply_patch <<'SKILLRIG_MOCK_PATCH_EOF'\n*** Begin Patch\n*** Add File: out.txt\n+line 1\n+line 2\n*** End Patch\nSKILLRIG_MOCK_PATCH_EOF\n",
    );
    const second = await fetch(`${s.url}/v1/responses`, {
      method: "POST",
      body: JSON.stringify({
        model: "gpt-x",
        input: [{ type: "message", role: "user" }, { type: "function_call" }, { type: "function_call_output" }],
      }),
    });
    const done = sseData(await second.text()) as Array<{ item?: { content?: Array<{ text: string }> } }>;
    expect(done[2]!.item!.content![0]!.text).toBe("done");
    expect(s.requests.map((r) => [r.api, r.turn, r.apiKey, r.model])).toEqual([
      ["responses", 0, "sk-1", "gpt-x"],
      ["responses", 1, undefined, "gpt-x"],
    ]);
  });

  it("waits with write_stdin on a codex command still running, without using a turn", async () => {
    const s = await start({ turns: [{ shell: { command: "sleep 20; echo slow" } }, { text: "done" }] });
    const ask = async (input: unknown[]) => {
      const res = await fetch(`${s.url}/v1/responses`, { method: "POST", body: JSON.stringify({ model: "gpt-x", input }) });
      return (sseData(await res.text()) as Array<{ item?: { name?: string; arguments?: string; content?: Array<{ text: string }> } }>)[2]!
        .item!;
    };
    const user = { type: "message", role: "user" };
    const exec = { type: "function_call", name: "exec_command" };
    const running = {
      type: "function_call_output",
      output: "Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID 41\nOutput:\n",
    };
    const wait = await ask([user, exec, running]);
    expect(wait.name).toBe("write_stdin");
    expect(JSON.parse(wait.arguments!)).toEqual({ session_id: 41, chars: "", yield_time_ms: 30_000 });
    // Still running after the first wait: wait again. Once it exited, the next turn (the wait was not one).
    const waitCall = { type: "function_call", name: "write_stdin" };
    expect((await ask([user, exec, running, waitCall, running])).name).toBe("write_stdin");
    const exited = { type: "function_call_output", output: "Process exited with code 0\nOutput:\nslow\n" };
    expect((await ask([user, exec, running, waitCall, exited])).content![0]!.text).toBe("done");
    expect(s.requests.map((r) => r.answer)).toEqual(["wait", "wait", "text"]);
  });

  it("echo_tool_output answers with the last tool output of the conversation, in both APIs", async () => {
    const s = await start({ turns: [{ shell: { command: "python3 count.py" } }, { echo_tool_output: true }] });
    const g = await fetch(`${s.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: "POST",
      body: JSON.stringify({
        contents: [
          { role: "user", parts: [{ text: "go" }] },
          { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: 'Output: {"n": 3}' } } }] },
        ],
      }),
    });
    const chunk = sseData(await g.text())[0] as { candidates: Array<{ content: { parts: unknown[] } }> };
    expect(chunk.candidates[0]!.content.parts).toEqual([{ text: 'Output: {"n": 3}' }]);
    const o = await fetch(`${s.url}/v1/responses`, {
      method: "POST",
      body: JSON.stringify({
        input: [
          { type: "message", role: "user" },
          { type: "function_call" },
          { type: "function_call_output", output: 'Process exited with code 0\nOutput:\n{"n": 4}\n' },
        ],
      }),
    });
    const events = sseData(await o.text()) as Array<{ item?: { content?: Array<{ text: string }> } }>;
    // codex's framing of an exec ("Process exited with code 0", "Output:") is not what the command printed.
    expect(events[2]!.item!.content![0]!.text).toBe('{"n": 4}\n');
  });

  it("answers scripted errors in each API's own error shape", async () => {
    const s = await start({ turns: [{ error: { status: 401 } }] });
    const g = await fetch(`${s.url}/v1beta/models/m:streamGenerateContent?alt=sse`, { method: "POST", body: "{}" });
    expect(g.status).toBe(401);
    expect(await g.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED", details: [{ reason: "API_KEY_INVALID" }] } });
    const o = await fetch(`${s.url}/v1/responses`, { method: "POST", body: "{}" });
    expect(o.status).toBe(401);
    expect(await o.json()).toMatchObject({ error: { code: "invalid_api_key", message: expect.stringContaining("Incorrect API key") } });
  });

  it("hangs until closed", async () => {
    const s = await start({ turns: [{ hang: true }] });
    const pending = fetch(`${s.url}/v1/responses`, { method: "POST", body: "{}" }).then(
      () => "answered",
      () => "dropped",
    );
    const early = await Promise.race([pending, new Promise((r) => setTimeout(() => r("still waiting"), 300))]);
    expect(early).toBe("still waiting");
    await s.close();
    server = undefined;
    expect(await pending).toBe("dropped");
  });

  it("records and 404s what it does not serve", async () => {
    const s = await start({ turns: [{ text: "x" }] });
    const res = await fetch(`${s.url}/v1/models`);
    expect(res.status).toBe(404);
    expect(s.requests[0]).toMatchObject({ api: "other", method: "GET", url: "/v1/models", answer: "404" });
  });

  it("rejects a bad scenario with the JSON pointer at fault", () => {
    expect(() => validateScenario({ turns: [{ text: "a", json: {} }] })).toThrow(/\/turns\/0/);
    expect(() => validateScenario({ turns: [{ error: { status: 200 } }] })).toThrow(/\/turns\/0\/error\/status must be >= 400/);
    expect(() => validateScenario({ turns: [] })).toThrow(/\/turns must NOT have fewer than 1 items/);
    const dir = mkdtempSync(join(tmpdir(), "mock-model-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, "{ turns: ");
    expect(() => loadScenario(file)).toThrow(/bad\.json is not valid JSON/);
  });

  it("branches: a request whose text holds a branch's prompt_contains plays that branch's turns from turn 0", async () => {
    const s = await start({
      turns: [{ text: "first run" }],
      branches: [{ prompt_contains: "repair your previous answer", turns: [{ text: "repaired" }] }],
    });
    const ask = (text: string) => askGemini(s, text);
    expect(await ask("do the task")).toContain("first run");
    expect(await ask("do the task\n## skillrig: repair your previous answer")).toContain("repaired");
    expect(() => validateScenario({ turns: [{ text: "x" }], branches: [{ prompt_contains: "", turns: [] }] })).toThrow(
      /invalid mock-model scenario: .*\/branches\/0/,
    );
  });

  it("branches: a list of prompt_contains texts matches only when every one appears (the query AND the listed skill)", async () => {
    const s = await start({
      turns: [{ text: "not listed" }],
      branches: [{ prompt_contains: ["sales report", "Builds sales reports"], turns: [{ activate_skill: { name: "sales" } }] }],
    });
    const ask = (text: string) => askGemini(s, text);
    expect(await ask("make the sales report")).toContain("not listed");
    expect(await ask("<skill>Builds sales reports</skill> make the sales report")).toContain(
      JSON.stringify({ functionCall: { name: "activate_skill", args: { name: "sales" } } }),
    );
    expect(() => validateScenario({ turns: [{ text: "x" }], branches: [{ prompt_contains: [], turns: [{ text: "x" }] }] })).toThrow(
      /invalid mock-model scenario: .*\/branches\/0\/prompt_contains/,
    );
  });

  it("activate_skill in Responses: codex's model cats the SKILL.md codex lists (short path through the skill roots)", async () => {
    const listing = [
      "### Skill roots",
      "- `r0` = `/home/x/.codex/skills/.system`",
      "- `r1` = `/ws/it's/.agents/skills`",
      "### Available skills",
      "- sales-v2: Other. (file: r1/sales-v2/SKILL.md)",
      "- sales: Builds sales reports. (file: r1/sales/SKILL.md)",
      "- abs: Absolute. (file: /opt/skills/abs/SKILL.md)",
    ].join("\n");
    const cmdFor = async (name: string, text: string) => {
      await server?.close();
      const s = await start({ turns: [{ activate_skill: { name } }] });
      const r = await fetch(`${s.url}/v1/responses`, {
        method: "POST",
        body: JSON.stringify({
          model: "gpt-x",
          instructions: "x",
          input: [{ type: "message", role: "developer", content: [{ type: "input_text", text }] }],
        }),
      });
      const item = (
        sseData(await r.text()) as Array<{ item?: { type: string; arguments?: string; content?: Array<{ text: string }> } }>
      )[2]!.item!;
      return item.type === "function_call" ? (JSON.parse(item.arguments!) as { cmd: string }).cmd : item.content![0]!.text;
    };
    expect(await cmdFor("sales", listing)).toBe("cat '/ws/it'\\''s/.agents/skills/sales/SKILL.md'");
    expect(await cmdFor("abs", listing)).toBe("cat '/opt/skills/abs/SKILL.md'");
    expect(await cmdFor("sales", "no skills listed")).toBe('mock-model: codex lists no skill named "sales" in this request');
  });
});
