/**
 * The metering proxy: an HTTP server on the runner's loopback that the engine's base URL points at. It forwards
 * every request to the real model endpoint (http or https) as it comes, passes every response back chunk by chunk
 * as it arrives (a streamed answer is never held back), and reads each response's usage on the side
 * (response-meter.ts). In the agent jail the egress relay forwards to this proxy, so the jail's only way out is
 * metered too.
 *
 * What it never does: log a request's headers or body (the API key is in them), or rewrite anything but the Host
 * header and Accept-Encoding (asked as identity, so usage can be read; the CLIs do not need compression on loopback).
 */
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import type { UsageCounts } from "@skillrig/core";
import { responseMeter, type ResponseMeterBounds } from "./response-meter.js";
import type { UsageReading } from "./usage-readers.js";

/** The defaults of `cost.meter_max_json_bytes` and `cost.meter_max_line_bytes`. */
export const DEFAULT_METER_BOUNDS: ResponseMeterBounds = { maxJsonBytes: 16 * 1024 * 1024, maxLineBytes: 4 * 1024 * 1024 };

/** The model id figures are kept under when a response names none. */
export const UNNAMED_MODEL = "(unnamed model)";

export interface MeteringProxyOptions {
  /** The real endpoint's base URL (only its origin is used: the request's path is forwarded as is). */
  upstream: string;
  bounds?: ResponseMeterBounds;
  /** Called after every response that reported usage, with the running totals. */
  onCall?(totals: MeteredTotals): void;
  /** A reason to refuse model calls from now on (the budget is spent): answered 429, never forwarded. */
  refusal?(): string | undefined;
}

export interface MeteredTotals {
  /** Per model id, summed over its calls. */
  models: Record<string, UsageCounts>;
  /** Responses that reported usage. */
  calls: number;
  /** Responses whose usage could not be read (a bound was crossed): their tokens are missing from the totals. */
  unreadCalls: number;
  /** Requests refused because the budget was spent. */
  refusedCalls: number;
  /** Requests forwarded to the model endpoint (HEAD probes aside), whatever their answer. */
  forwardedCalls: number;
  /** How the last forwarded request ended (infrastructure-failure.ts reads it: "the model answered 429"). */
  lastCall?: ModelCallEnd;
}

/** How a forwarded model call ended: the endpoint's HTTP status, or no answer at all (why, in Node's words). */
export type ModelCallEnd = { status: number } | { unreachable: string };

export interface MeteringProxy {
  /** The proxy's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /** `baseUrl` with its origin replaced by the proxy's (its path kept). */
  proxied(baseUrl: string): string;
  readonly totals: MeteredTotals;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "accept-encoding",
]);

function add(into: UsageCounts, reading: UsageReading): void {
  const keys = ["inputTokens", "cachedInputTokens", "cacheWriteTokens", "outputTokens", "reasoningTokens"] as const;
  for (const key of keys) if (reading[key] !== undefined) into[key] = (into[key] ?? 0) + reading[key]!;
  into.totalTokens = (into.inputTokens ?? 0) + (into.outputTokens ?? 0);
  into.modelCalls = (into.modelCalls ?? 0) + 1;
}

function refuse(res: ServerResponse, reason: string): void {
  const body = JSON.stringify({
    error: { code: "cost_limit", type: "cost_limit", status: "RESOURCE_EXHAUSTED", message: `skillrig: ${reason}` },
  });
  res.writeHead(429, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export async function startMeteringProxy(options: MeteringProxyOptions): Promise<MeteringProxy> {
  const upstream = new URL(options.upstream);
  const bounds = options.bounds ?? DEFAULT_METER_BOUNDS;
  const send = upstream.protocol === "https:" ? httpsRequest : httpRequest;
  // Connections to the model are kept open between calls, as the CLI's own client keeps its: no new TCP (and TLS)
  // handshake per model call.
  const agent = upstream.protocol === "https:" ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const totals: MeteredTotals = { models: {}, calls: 0, unreadCalls: 0, refusedCalls: 0, forwardedCalls: 0 };
  const sockets = new Set<Socket>();

  const record = (reading: UsageReading | undefined, unread: boolean) => {
    if (unread) totals.unreadCalls += 1;
    if (!reading || (reading.inputTokens === undefined && reading.outputTokens === undefined)) return;
    const model = reading.model ?? UNNAMED_MODEL;
    add((totals.models[model] ??= {}), reading);
    totals.calls += 1;
    options.onCall?.(totals);
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const reason = options.refusal?.();
    if (reason !== undefined) {
      totals.refusedCalls += 1;
      req.resume();
      return refuse(res, reason);
    }
    // A HEAD is a CLI's start-up probe (Claude Code's), not a model call: its answer does not say how the model is.
    const modelCall = req.method !== "HEAD";
    if (modelCall) totals.forwardedCalls += 1;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers.host = upstream.host;
    headers["accept-encoding"] = "identity";
    const out = send(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname.replace(/^\[|\]$/g, ""),
        port: upstream.port || undefined,
        method: req.method,
        path: req.url,
        headers,
        agent,
      },
      (answer) => {
        if (modelCall) totals.lastCall = { status: answer.statusCode ?? 502 };
        const meter = responseMeter(answer.headers["content-type"], bounds);
        const back: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) back[name] = value;
        res.writeHead(answer.statusCode ?? 502, back);
        res.flushHeaders();
        // Written first, read after: the meter never delays a chunk.
        answer.on("data", (chunk: Buffer) => {
          res.write(chunk);
          meter.feed(chunk);
        });
        answer.on("end", () => {
          res.end();
          const { reading, unread } = meter.end();
          record(reading, unread);
        });
        answer.on("error", () => res.destroy());
      },
    );
    // A model that cannot be reached stays unreachable to the engine: its connection is dropped, not answered 502.
    // The engines' parsers know their CLI's own words for a lost connection (and stop it instead of letting it retry
    // for minutes); a 502 would read as a flaky server worth retrying.
    out.on("error", (error: NodeJS.ErrnoException) => {
      if (modelCall && !res.headersSent) totals.lastCall = { unreachable: error.code ?? error.message };
      res.destroy();
      req.socket.destroy();
    });
    req.on("aborted", () => out.destroy());
    res.on("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const server: Server = createServer({ noDelay: true }, forward);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    proxied(baseUrl) {
      const url = new URL(baseUrl);
      return `${origin}${url.pathname === "/" && !baseUrl.endsWith("/") ? "" : url.pathname}${url.search}`;
    },
    totals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
