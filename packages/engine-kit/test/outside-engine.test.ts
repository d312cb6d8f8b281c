/**
 * An outside team's engine on the kit, end to end: its own CLI (test/fixtures/line-cli.mjs, a real process) speaks
 * an API the mock model does not ship, so the adapter brings a dialect in `mockDialects` and `mock_scenario` jobs
 * get it; its parser gives up with a failure kind (`auth`) instead of letting the CLI retry a rejected key forever.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { EngineEvent, JobExecuteRequest } from "@skillrig/core";
import { type EngineAdapter, processesUsing, runEngineJob, type StreamParser } from "@skillrig/engine-kit";
import { defineDialect, scenario, turn, turnText } from "@skillrig/mock-model";
import { createSandbox } from "@skillrig/sandbox";

const jailSandbox = createSandbox();

const lineDialect = defineDialect({
  name: "line",
  matches: (request) => request.method === "POST" && request.path === "/line/chat",
  apiKey: (request) => request.headers["x-line-key"] as string | undefined,
  modelTurns: (request) => ((request.body as { history?: unknown[] } | undefined)?.history ?? []).length,
  reply: (answer, context) => ({ json: { say: turnText(answer, context.toolOutput) ?? "", final: "json" in answer } }),
  errorReply: (status, message) => ({ status, json: { problem: message ?? `status ${status}` } }),
});

function lineParser(): StreamParser {
  let final: string | undefined;
  let rejected: number | undefined;
  return {
    stdoutLine(line) {
      const event = JSON.parse(line) as { kind: string; text?: string; status?: number };
      if (event.kind === "retry" && (event.status === 401 || event.status === 403)) rejected = event.status;
      if (event.kind !== "say") return [];
      final = event.text;
      return [{ type: "message", role: "assistant", text: event.text ?? "" }];
    },
    finalMessage: () => final,
    usage: () => undefined,
    errors: () => [],
    completed: () => final !== undefined,
    giveUp: () => (rejected ? { kind: "auth", message: `the line API rejected the key (HTTP ${rejected})` } : undefined),
  };
}

const adapter: EngineAdapter = {
  engine: "line",
  displayName: "Line CLI",
  contextFileName: "AGENTS.md",
  optionProperties: {},
  defaultApiKeyEnv: "LINE_KEY",
  // The team's CLI is the script itself (its #! line names node): the agent jail binds the engine's installation,
  // which is the executable's, so a CLI passed as an argument to node would be outside the jail.
  defaultBinary: () => resolve(import.meta.dirname, "fixtures/line-cli.mjs"),
  mockBaseUrl: (url) => url,
  mockDialects: [lineDialect],
  invocation: (ctx) => ({
    args: [],
    env: { LINE_URL: ctx.baseUrl ?? "", LINE_KEY: ctx.apiKey ?? "" },
  }),
  createParser: () => lineParser(),
  classify: (run, parser) => (run.exitCode === 0 && parser.completed() ? undefined : { kind: "crash", message: `exit ${run.exitCode}` }),
};

// A CLI that needs no model: no key is asked for (auth: "none"); the same adapter without it is refused as auth.
const countAdapter = (auth: EngineAdapter["auth"]): EngineAdapter => ({
  ...adapter,
  engine: "line",
  displayName: "Count CLI",
  auth,
  defaultApiKeyEnv: auth === "none" ? undefined : "COUNT_KEY_NEVER_SET",
  defaultBinary: () => resolve(import.meta.dirname, "fixtures/count-cli.mjs"),
  invocation: (ctx) => ({ args: [ctx.prompt], env: {} }),
});

function job(mock_scenario: unknown, jobAdapter: EngineAdapter = adapter) {
  const root = mkdtempSync(join(tmpdir(), "engine-kit-outside-"));
  const events: EngineEvent[] = [];
  const request = {
    work: {
      jobId: "job-1",
      request: {},
      skill: { id: "greet", name: "Greet", schemas: {} },
      engine: "line",
      run: {
        root,
        workspace: join(root, "workspace"),
        uploads: join(root, "uploads"),
        logs: join(root, "logs"),
        skillSnapshot: join(root, "none"),
      },
      skillInstall: "referenced",
      engineOptions: {},
      context: {},
      signal: new AbortController().signal,
      emit: (e: EngineEvent) => events.push(e),
    },
    input: {},
    parameter: {},
    prompt: { text: "greet Ada", source: "test" },
    runtime: { env: {}, readOnly: [], context: {} },
  } as unknown as JobExecuteRequest;
  return {
    root,
    events,
    run: () =>
      runEngineJob({
        adapter: jobAdapter,
        request,
        options: { mock_scenario } as never,
        configDir: root,
        // The agent jail comes through the runner's sandbox hook in a project; here, the default sandbox directly.
        agentSandbox: () => jailSandbox,
      }),
  };
}

describe("an outside engine with its own API dialect", () => {
  it("plays a mock_scenario through the adapter's dialect", async () => {
    const { run, events } = job(scenario(turn.text("thinking"), turn.json({ greeting: "Hello, Ada" })));
    const outcome = await run();
    if (!outcome.ok) expect.fail(JSON.stringify(outcome.failure));
    expect(outcome.output).toEqual({ greeting: "Hello, Ada" });
    expect(events.filter((e) => e.type === "message").map((e) => (e as { text: string }).text)).toEqual([
      "thinking",
      '{"greeting":"Hello, Ada"}',
    ]);
    expect(outcome.trace?.mockModel).toMatchObject({ requests: 2 });
  });

  it("stops a CLI that retries a rejected key as auth, with the parser's message, and leaves no process", async () => {
    const { run, root } = job(scenario(turn.error(401)));
    const outcome = await run();
    expect(outcome.ok ? undefined : outcome.failure).toEqual({
      kind: "auth",
      message: "Line CLI was stopped: the line API rejected the key (HTTP 401); it and its child processes were killed",
    });
    expect(processesUsing(root)).toEqual([]);
  });

  it('runs a CLI that needs no key (auth: "none") with no key variable set and no mock model', async () => {
    expect(process.env.COUNT_KEY_NEVER_SET).toBeUndefined();
    const outcome = await job(undefined, countAdapter("none")).run();
    if (!outcome.ok) expect.fail(JSON.stringify(outcome.failure));
    expect(outcome.output).toEqual({ words: 2 });
    expect(outcome.engineVersion).toBe("1.0.0");
  });

  it("refuses the same CLI as auth when its adapter needs a key that is not set", async () => {
    const outcome = await job(undefined, countAdapter("api_key")).run();
    expect(outcome.ok ? undefined : outcome.failure).toEqual({
      kind: "auth",
      message: expect.stringContaining("Count CLI has no API key: the environment variable COUNT_KEY_NEVER_SET is not set"),
    });
  });
});
