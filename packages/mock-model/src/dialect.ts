/**
 * An API dialect: how the mock model speaks one vendor's wire format. The server does everything that is the
 * same for every API (recording requests, choosing the scenario turn, delays, hangs); a dialect says which
 * requests are its own, how many model turns a request's history holds, and how a turn, an error and a side
 * call look on its wire. The Anthropic Messages dialect is written against this interface, and a team adds its
 * own the same way: `startMockModel({ scenario, dialects: [myDialect] })`, no edit of this package.
 */
import type { IncomingHttpHeaders } from "node:http";
import { SkillrigError } from "@skillrig/core";
import type { ErrorTurn, HangTurn, Turn } from "./scenario.js";

/** One HTTP request as a dialect sees it. */
export interface DialectRequest {
  method: string;
  /** The URL path without the query (`/v1/messages`). */
  path: string;
  /** The full URL (for the query). */
  url: URL;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, the raw text when it was not JSON, or undefined when empty. */
  body: unknown;
}

/** One server-sent event: `event: <event>` (when given) and `data: <JSON>`. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/** What the server sends back: a JSON body (any status), or a 200 stream of server-sent events. */
export type DialectReply = { status?: number; json: unknown } | { sse: SseEvent[] };

/** A scenario turn the model answers (error and hang turns are the server's, through `errorReply` and silence). */
export type AnswerTurn = Exclude<Turn, ErrorTurn | HangTurn>;

export interface TurnContext {
  request: DialectRequest;
  /** The model the request named (from `model()`), if any. */
  model?: string;
  /** Token counts to report (the scenario's `usage`, or the defaults). */
  usage: { input: number; output: number; cached?: number; cacheWrite?: number; reasoning?: number };
  /** The output of the last tool call in the request's history (from `lastToolOutput()`), for `echo_tool_output`. */
  toolOutput?: string;
  /** The request's serial number on this server (1, 2, ...): unique ids for messages and tool calls. */
  serial: number;
}

export interface MockDialect {
  /** Recorded as the `api` of each request this dialect serves (`"<name>-side"` for side calls). */
  name: string;
  /** Whether this dialect serves the request. Dialects are asked in order; the first that says yes answers. */
  matches(request: DialectRequest): boolean;
  /**
   * The answer to a request that is not a model turn (a health check, a token count, a CLI's own side question),
   * or undefined when the request plays the scenario. Side calls never use a turn.
   */
  sideReply?(request: DialectRequest, context: Omit<TurnContext, "toolOutput">): DialectReply | undefined;
  /** The model the request names (path or body), recorded and passed to `reply`. */
  model?(request: DialectRequest): string | undefined;
  /** The API key the client sent; default: `Authorization: Bearer`, `x-api-key`, `x-goog-api-key` or `?key=`. */
  apiKey?(request: DialectRequest): string | undefined;
  /** How many model turns the request's history already holds: the scenario turn it gets is that index. */
  modelTurns(request: DialectRequest): number;
  /** The output of the last tool call in the request's history, as text (for `echo_tool_output` turns). */
  lastToolOutput?(request: DialectRequest): string | undefined;
  /** The model's answer for a turn, in this API's shape. Throw for a turn kind the dialect cannot play. */
  reply(turn: AnswerTurn, context: TurnContext): DialectReply;
  /** An `error` turn in this API's error shape (the reply's status should be `status`). */
  errorReply(status: number, message: string | undefined, request: DialectRequest): DialectReply;
}

/**
 * Checks a dialect once, where it is defined, so a wrong one fails with its name and the missing member
 * instead of a TypeError in the middle of a request. Returns the dialect (typed).
 */
export function defineDialect(dialect: MockDialect): MockDialect {
  const problems: string[] = [];
  if (typeof dialect !== "object" || dialect === null) {
    throw new SkillrigError("invalid_config", "mock-model dialect must be an object with name, matches, modelTurns, reply and errorReply");
  }
  if (typeof dialect.name !== "string" || !/^[a-z][a-z0-9_-]*$/.test(dialect.name)) {
    problems.push(`name must be a lowercase word (letters, digits, "-", "_"), got ${JSON.stringify(dialect.name)}`);
  }
  for (const key of ["matches", "modelTurns", "reply", "errorReply"] as const) {
    if (typeof dialect[key] !== "function") problems.push(`${key} must be a function`);
  }
  for (const key of ["sideReply", "model", "apiKey", "lastToolOutput"] as const) {
    if (dialect[key] !== undefined && typeof dialect[key] !== "function") problems.push(`${key}, when given, must be a function`);
  }
  if (problems.length > 0) {
    const name = typeof dialect.name === "string" ? ` "${dialect.name}"` : "";
    throw new SkillrigError("invalid_config", `mock-model dialect${name}: ${problems.join("; ")}`, { field: "dialects" });
  }
  return dialect;
}
