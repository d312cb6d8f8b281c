/**
 * The loopback server. It binds 127.0.0.1 (port 0 = any free port) and serves both APIs at once:
 *   POST /v1beta/models/<model>:streamGenerateContent?alt=sse   Gemini (gemini-cli: GOOGLE_GEMINI_BASE_URL=<url>)
 *   POST /v1beta/models/<model>:generateContent                  Gemini side calls (fixed JSON answer)
 *   POST /v1/responses                                           OpenAI Responses (codex: provider base_url=<url>/v1)
 *   POST /v1/messages                                            Anthropic Messages (claude: ANTHROPIC_BASE_URL=<url>)
 * plus any dialect passed in `dialects` (asked first, in order; see dialect.ts). Anything else gets a 404 in JSON
 * and is still recorded, so a test can see what a CLI asked for.
 */
import { SkillrigError } from "@skillrig/core";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type Scenario, type Turn, turnAt, turnForAttempt, validateScenario } from "./scenario.js";
import { geminiChunk, geminiErrorBody, geminiLastToolOutput, geminiModelTurns, geminiSideAnswer } from "./gemini-api.js";
import {
  responsesErrorBody,
  responsesEvents,
  responsesLastToolOutput,
  responsesModelTurns,
  responsesRunningSession,
  responsesWaitEvents,
} from "./responses-api.js";
import { anthropicDialect } from "./anthropic-api.js";
import { defineDialect, type DialectReply, type DialectRequest, type MockDialect } from "./dialect.js";

export interface MockModelOptions {
  scenario: Scenario;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** More API dialects (see `defineDialect`), asked before the built-in ones, in order. */
  dialects?: MockDialect[];
  /**
   * Which attempt of a retried run the server plays (default 1): a turn with `fail` answers its error in the first
   * `fail.first_attempts` attempts (engine-kit passes the job's `options.attempt`).
   */
  attempt?: number;
}

/** One request the server received. */
export interface RecordedRequest {
  /** The dialect that served it ("gemini", "responses", "anthropic", a custom dialect's name; "<name>-side" for side calls), or "other". */
  api: "gemini" | "gemini-side" | "responses" | "anthropic" | "anthropic-side" | "other" | (string & {});
  method: string;
  /** Path and query. */
  url: string;
  /** The model named in the path (gemini) or body (responses). */
  model?: string;
  /** The API key the client sent (`x-goog-api-key`, `?key=` or `Authorization: Bearer`), for auth tests. */
  apiKey?: string;
  /** The scenario turn this request got (for scenario-playing requests). */
  turn?: number;
  /** What the server answered: "text", "json", "write_file", "shell", "error 401", "hang", "side", "404". */
  answer: string;
  /** The parsed JSON body (or the raw text when it was not JSON). */
  body: unknown;
}

export interface MockModel {
  /** `http://127.0.0.1:<port>`: the Gemini base URL; the OpenAI base URL is `${url}/v1`. */
  url: string;
  port: number;
  /** Every request received so far, in order. */
  requests: RecordedRequest[];
  /** Stops listening and drops every open connection (hanging requests included). */
  close(): Promise<void>;
}

const DEFAULT_USAGE = { input_tokens: 100, output_tokens: 10 };

function turnKind(turn: Turn): string {
  if ("error" in turn) return `error ${turn.error.status}`;
  for (const k of ["text", "json", "write_file", "shell", "activate_skill", "echo_tool_output", "hang"]) if (k in turn) return k;
  return "unknown";
}

function apiKeyOf(req: IncomingMessage, url: URL): string | undefined {
  const goog = req.headers["x-goog-api-key"];
  if (typeof goog === "string") return goog;
  const anthropic = req.headers["x-api-key"];
  if (typeof anthropic === "string") return anthropic;
  const auth = req.headers.authorization;
  if (typeof auth === "string" && auth.startsWith("Bearer ")) return auth.slice(7);
  return url.searchParams.get("key") ?? undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** The `Retry-After` header of an error turn that asks for one. */
function errorHeaders(turn: Turn): Record<string, string> {
  return "error" in turn && turn.error.retry_after_s !== undefined ? { "retry-after": String(turn.error.retry_after_s) } : {};
}

/** Server-sent events are two lines per event; writing them needs no library. */
function sendSse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}
/** The token counts every answer reports: the scenario's `usage`, or the defaults. */
interface PlayedUsage {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
  reasoning: number;
}

function usageOf(scenario: Scenario): PlayedUsage {
  return {
    input: scenario.usage?.input_tokens ?? DEFAULT_USAGE.input_tokens,
    output: scenario.usage?.output_tokens ?? DEFAULT_USAGE.output_tokens,
    cached: scenario.usage?.cached_input_tokens ?? 0,
    cacheWrite: scenario.usage?.cache_write_tokens ?? 0,
    reasoning: scenario.usage?.reasoning_tokens ?? 0,
  };
}

/** Answers a turn: never for `hang` (close() drops the connection), after `delay_ms` when it asks for one. */
function play(res: ServerResponse, turn: Turn, answer: () => void): void {
  if ("hang" in turn) return;
  if (turn.delay_ms) {
    const timer = setTimeout(answer, turn.delay_ms);
    res.on("close", () => clearTimeout(timer));
  } else answer();
}

/** One request as it arrived: its body (parsed JSON, else the raw text), URL, serial number and record. */
interface Arrival {
  req: IncomingMessage;
  res: ServerResponse;
  raw: string;
  body: unknown;
  url: URL;
  /** 1 for the first request the server received. */
  n: number;
  record: RecordedRequest;
}

/** Plays one scenario in one attempt: records every request and answers it by its API (a dialect, Gemini, Responses). */
class ScenarioPlayer {
  readonly requests: RecordedRequest[] = [];
  #served = 0;
  readonly usage: PlayedUsage;

  constructor(
    readonly scenario: Scenario,
    readonly attempt: number,
    readonly dialects: MockDialect[],
  ) {
    this.usage = usageOf(scenario);
  }

  /** The turn a request plays in this attempt (a `fail` turn answers its error in the first attempts). */
  pick(modelTurns: number, raw: string): { turn: Turn; index: number } {
    const { turn, index } = turnAt(this.scenario, modelTurns, raw);
    return { turn: turnForAttempt(turn, this.attempt), index };
  }

  /** Reads the request's body to its end, records it, then answers it. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => this.answer(this.arrival(req, res, Buffer.concat(chunks).toString("utf8"))));
  }

  arrival(req: IncomingMessage, res: ServerResponse, raw: string): Arrival {
    let body: unknown = raw;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      // Keep the raw text: recorded as sent.
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const record: RecordedRequest = {
      api: "other",
      method: req.method ?? "GET",
      url: req.url ?? "/",
      apiKey: apiKeyOf(req, url),
      answer: "404",
      body,
    };
    this.requests.push(record);
    this.#served += 1;
    return { req, res, raw, body, url, n: this.#served, record };
  }

  answer(arrival: Arrival): void {
    const { req, res, body, url, record } = arrival;
    const request: DialectRequest = { method: record.method, path: url.pathname, url, headers: req.headers, body };
    let dialect: MockDialect | undefined;
    try {
      dialect = this.dialects.find((d) => d.matches(request));
    } catch (error) {
      // A custom dialect's matches() that throws must not take the server down.
      sendJson(res, 500, { error: { message: `mock-model dialect matching failed: ${(error as Error)?.message ?? String(error)}` } });
      return;
    }
    if (dialect) {
      this.serveDialect(dialect, request, arrival);
      return;
    }
    const gemini = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(url.pathname);
    if (req.method === "POST" && gemini) {
      this.serveGemini(decodeURIComponent(gemini[1]!), gemini[2]!, arrival);
      return;
    }
    if (req.method === "POST" && /\/responses$/.test(url.pathname)) {
      this.serveResponses(arrival);
      return;
    }
    sendJson(res, 404, { error: { code: 404, message: `mock-model does not serve ${req.method} ${url.pathname}` } });
  }

  serveGemini(model: string, method: string, { res, raw, body, record }: Arrival): void {
    const usage = this.usage;
    record.model = model;
    if (method === "countTokens") {
      record.api = "gemini-side";
      record.answer = "side";
      sendJson(res, 200, { totalTokens: usage.input });
      return;
    }
    if (method === "generateContent") {
      record.api = "gemini-side";
      record.answer = "side";
      sendJson(res, 200, geminiSideAnswer(model, usage));
      return;
    }
    record.api = "gemini";
    const { turn, index } = this.pick(geminiModelTurns(body), raw);
    record.turn = index;
    record.answer = turnKind(turn);
    play(res, turn, () => {
      if ("error" in turn) sendJson(res, turn.error.status, geminiErrorBody(turn.error.status, turn.error.message), errorHeaders(turn));
      else sendSse(res, [{ data: geminiChunk(turn, model, usage, geminiLastToolOutput(body)) }]);
    });
  }

  serveResponses({ res, raw, body, n, record }: Arrival): void {
    const usage = this.usage;
    record.api = "responses";
    record.model = (body as { model?: string } | undefined)?.model;
    const session = responsesRunningSession(body);
    if (session !== undefined) {
      record.answer = "wait";
      sendSse(
        res,
        responsesWaitEvents(session, n, usage, body).map((e) => ({ event: e.type as string, data: e })),
      );
      return;
    }
    const { turn, index } = this.pick(responsesModelTurns(body), raw);
    record.turn = index;
    record.answer = turnKind(turn);
    play(res, turn, () => {
      if ("error" in turn) sendJson(res, turn.error.status, responsesErrorBody(turn.error.status, turn.error.message), errorHeaders(turn));
      else
        sendSse(
          res,
          responsesEvents(turn, n, usage, responsesLastToolOutput(body), body).map((e) => ({ event: e.type as string, data: e })),
        );
    });
  }

  serveDialect(dialect: MockDialect, request: DialectRequest, { res, raw, n, record }: Arrival): void {
    const usage = this.usage;
    // A dialect's bug answers 500 naming the dialect, so a test sees it instead of a hung request.
    const failed = (error: unknown) =>
      sendJson(res, 500, { error: { message: `mock-model dialect "${dialect.name}": ${(error as Error)?.message ?? String(error)}` } });
    const send = (reply: () => DialectReply, headers?: Record<string, string>) => {
      try {
        const out = reply();
        if ("sse" in out) sendSse(res, out.sse);
        else sendJson(res, out.status ?? 200, out.json, headers);
      } catch (error) {
        failed(error);
      }
    };
    try {
      record.api = dialect.name;
      record.model = dialect.model?.(request);
      record.apiKey = dialect.apiKey?.(request) ?? record.apiKey;
      const side = dialect.sideReply?.(request, { request, model: record.model, usage, serial: n });
      if (side) {
        record.api = `${dialect.name}-side`;
        record.answer = "side";
        send(() => side);
        return;
      }
      const modelTurns = dialect.modelTurns(request);
      if (!Number.isInteger(modelTurns) || modelTurns < 0)
        throw new Error(`modelTurns() returned ${String(modelTurns)}, not a count of turns`);
      const { turn, index } = this.pick(modelTurns, raw);
      record.turn = index;
      record.answer = turnKind(turn);
      play(res, turn, () => {
        if ("error" in turn) send(() => dialect.errorReply(turn.error.status, turn.error.message, request), errorHeaders(turn));
        else if (!("hang" in turn))
          send(() =>
            dialect.reply(turn, { request, model: record.model, usage, toolOutput: dialect.lastToolOutput?.(request), serial: n }),
          );
      });
    } catch (error) {
      failed(error);
    }
  }
}

/** Starts a mock model server playing `scenario`. */
export async function startMockModel(options: MockModelOptions): Promise<MockModel> {
  const scenario = validateScenario(options.scenario);
  const attempt = options.attempt ?? 1;
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new SkillrigError("invalid_config", `mock-model attempt must be a whole number from 1, not ${String(options.attempt)}`, {
      field: "attempt",
    });
  const player = new ScenarioPlayer(scenario, attempt, [...(options.dialects ?? []).map(defineDialect), anthropicDialect]);
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => player.handle(req, res));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    requests: player.requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
