/**
 * The HTTP side of `skillrig view`: the built web app, a read-only JSON API over the runs folder, and, with a
 * jobs server, a relay of its /v1 API (SSE streams and zip uploads pass through unchanged, the token is added here
 * so the browser never holds it).
 *
 *   GET  /api/info                       {runs_dir, server}
 *   GET  /api/runs                       every RunRecord, newest first
 *   GET  /api/runs/{id}                  {record, report, problem} (problem: the report against its schema, or null)
 *   GET  /api/runs/{id}/files/{path}     a file of the run folder (?download=1 as an attachment)
 *   GET  /api/evals                      every eval folder with its iterations (eval-folder.ts)
 *   GET  /api/evals/{id}                 one eval folder: the skill, its iterations newest first
 *   GET  /api/evals/{id}/iterations/{n}  iteration.json, benchmark.json, triggers.json (each checked, or why not)
 *   GET  /api/evals/{id}/iterations/{n}/assertions        every run's assertion results (to compare iterations)
 *   GET  /api/evals/{id}/iterations/{n}/run/{path}        one run: answer, grading, timing, its outputs/ listed
 *   GET  /api/evals/{id}/iterations/{n}/files/{path}      a file of the iteration, always as text (?download=1)
 *   GET  /api/trends/runs/{id}           the trend of the runs of the same kind and name as {id} (trends.ts)
 *   GET  /api/trends/evals/{id}          an eval folder's trend across its iterations
 *   ANY  /api/server/{path}              relayed to <server>/v1/{path}
 *   GET  /*                              the web app (dist/web)
 *
 * Loopback only by default. Requests must name this server in Host (a DNS-rebinding page cannot read runs), and
 * requests that change something must come from this origin (another site cannot submit jobs through it).
 */
import { createReadStream } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, resolve, sep, isAbsolute } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { loopbackRequestRefusal } from "@skillrig/core";
import sirv from "sirv";
import {
  isFolderName,
  isInside,
  listEvals,
  MAX_SHOWN_BYTES,
  readEval,
  readEvalRun,
  readIteration,
  readIterationAssertions,
} from "./eval-folder.js";
import { reportProblem } from "./report-schemas.js";
import { listRunRecords, readRunRecord } from "./runs-folder.js";
import { readEvalTrend, readRunTrend } from "./trend-read.js";

export interface ViewServerOptions {
  runsDir: string;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** A jobs server (`skillrig serve`) to relay to, e.g. http://127.0.0.1:8787. */
  server?: { url: string; token?: string };
  /** The built web app; default the package's dist/web. */
  assetsDir?: string;
}

export interface RunningView {
  url: string;
  port: number;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".json": "application/json; charset=utf-8",
  ".jsonl": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".log": "text/plain; charset=utf-8",
  ".py": "text/plain; charset=utf-8",
  ".csv": "text/plain; charset=utf-8",
  ".xml": "text/plain; charset=utf-8",
  ".html": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** The app's own pages: scripts and styles from this origin only (the bundle has no inline script). */
const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
/** Files from runs are what agents and deliverables wrote: opened directly they run no script and load nothing. */
const FILE_CSP = "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'";

/** Request headers relayed to the jobs server; everything else (cookies, the browser's own auth) stays here. */
const RELAYED_REQUEST_HEADERS = ["content-type", "accept", "last-event-id", "content-length"];
const RELAYED_RESPONSE_HEADERS = ["content-type", "content-disposition", "cache-control", "last-modified", "etag"];

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, code: string, message: string, extra: Record<string, unknown> = {}): void {
  sendJson(res, status, { error: { code, message, ...extra } });
}

const inside = isInside;
/** A run id is one folder name: no separators, no dot-only names. */
const validRunId = isFolderName;

/** Percent-decoded route parameters, or undefined when one is malformed. */
function decoded(values: Array<string | undefined>): Array<string | undefined> | undefined {
  try {
    return values.map((v) => (v === undefined ? undefined : decodeURIComponent(v)));
  } catch {
    return undefined;
  }
}

interface FileServing {
  download: boolean;
  /** Serve as text/plain whatever the name (agent output never rendered by the browser), and refuse above this many bytes inline. */
  asText?: { maxInlineBytes: number };
}

/**
 * Serves the file at `path` (relative) inside `root` when its real path (through symlinks) is a regular file
 * inside root's real path; `what` names the folder in the 404's message.
 */
async function serveFileInside(res: ServerResponse, root: string, path: string, what: string, how: FileServing): Promise<void> {
  if (path.includes("\0") || isAbsolute(path)) return sendError(res, 400, "usage", `"${path}" is not a relative path`);
  const folder = await realpath(root);
  let real: string;
  try {
    // Through symlinks: a link an agent left in its workspace must not reach outside the folder.
    real = await realpath(resolve(folder, path));
  } catch {
    return sendError(res, 404, "file_not_found", `${what} has no file "${path}"`);
  }
  if (!inside(folder, real)) return sendError(res, 404, "file_not_found", `"${path}" is not a file inside ${what}`);
  const info = await stat(real);
  if (!info.isFile()) return sendError(res, 404, "file_not_found", `"${path}" is not a file inside ${what}`);
  if (how.asText && !how.download && info.size > how.asText.maxInlineBytes) {
    return sendError(
      res,
      413,
      "file_too_large",
      `"${path}" is ${info.size} bytes, over the ${how.asText.maxInlineBytes} the view shows: download it`,
    );
  }
  const name = real.split(sep).pop()!;
  const type = how.asText
    ? how.download
      ? "application/octet-stream"
      : "text/plain; charset=utf-8"
    : (CONTENT_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream");
  res.writeHead(200, {
    "content-type": type,
    "content-length": info.size,
    "content-security-policy": FILE_CSP,
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    ...(how.download ? { "content-disposition": `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, "_")}"` } : {}),
  });
  createReadStream(real).pipe(res);
}

/** What the routes read: the runs folder, the jobs server to relay to, and where this server listens. */
interface ViewState {
  runsDir: string;
  /** The jobs server's URL without a trailing slash, and its token; undefined without --server. */
  serverUrl: string | undefined;
  serverToken: string | undefined;
  host: string;
  /** Set once the server listens (0 picks a free port). */
  port: number;
}

export async function startViewServer(options: ViewServerOptions): Promise<RunningView> {
  const host = options.host ?? "127.0.0.1";
  const view: ViewState = {
    runsDir: resolve(options.runsDir),
    serverUrl: options.server?.url.replace(/\/+$/, ""),
    serverToken: options.server?.token,
    host,
    port: 0,
  };
  const assets = sirv(options.assetsDir ?? join(here, "web"), {
    etag: true,
    dev: false,
    setHeaders: (res) => {
      res.setHeader("content-security-policy", APP_CSP);
      res.setHeader("x-content-type-options", "nosniff");
    },
  });
  const server: Server = createServer((req, res) => {
    handle(view, req, res, (next) => assets(req, res, next)).catch((error) => {
      if (!res.headersSent) sendError(res, 500, "internal", `the view server failed: ${(error as Error).message}`);
      else res.destroy();
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, host, () => ok());
  });
  view.port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${view.port}/`,
    port: view.port,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** One request: refused unless it names this server (and, to change something, comes from it), then routed. */
async function handle(view: ViewState, req: IncomingMessage, res: ServerResponse, app: (notFound: () => void) => void): Promise<void> {
  const { runsDir, serverUrl } = view;
  // The app's own pages read with GETs; only requests that change something must carry this origin.
  const refusal = loopbackRequestRefusal(
    { host: req.headers.host, origin: req.headers.origin, method: req.method },
    { host: view.host, port: view.port, origin: "unsafe" },
  );
  if (refusal) return sendError(res, 403, refusal.code, refusal.message);
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
  const path = url.pathname;
  const download = url.searchParams.get("download") === "1";
  if (path === "/api/info") return sendJson(res, 200, { runs_dir: runsDir, server: serverUrl ?? null });
  if (path === "/api/runs") return sendJson(res, 200, { runs: await listRunRecords(runsDir) });
  if (path.startsWith("/api/server/")) return relay(view, req, res, path.slice("/api/server/".length) + url.search);
  const evalMatch = /^\/api\/evals\/([^/]+)(?:\/iterations\/([1-9][0-9]{0,8})(?:\/(assertions|run|files)(?:\/(.+))?)?)?$/.exec(path);
  if (path === "/api/evals") return sendJson(res, 200, { evals: await listEvals(runsDir) });
  if (evalMatch) return evalRoute(runsDir, res, method, evalMatch, download);
  if (path.startsWith("/api/trends/")) return trendRoute(runsDir, res, path);
  const run = /^\/api\/runs\/([^/]+)(?:\/files\/(.+))?$/.exec(path);
  if (run) return runRoute(runsDir, res, method, run, download);
  if (path.startsWith("/api/")) return sendError(res, 404, "not_found", `no API route ${path}`);
  app(() => sendError(res, 404, "not_found", `no page ${path}`));
}

/** GET /api/runs/{id}: the record, its report and the report's problem; /api/runs/{id}/files/{path}: a file. */
async function runRoute(runsDir: string, res: ServerResponse, method: string, match: RegExpExecArray, download: boolean): Promise<void> {
  if (method !== "GET" && method !== "HEAD") return sendError(res, 405, "method_not_allowed", "runs are read-only here");
  let id: string;
  let file: string | undefined;
  try {
    id = decodeURIComponent(match[1]!);
    file = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
  } catch {
    return sendError(res, 400, "usage", "malformed percent-encoding in the path");
  }
  if (!validRunId(id)) return sendError(res, 400, "usage", `"${id}" is not a run id`);
  if (file !== undefined) return serveRunFile(runsDir, res, id, file, download);
  const record = await readRunRecord(runsDir, id);
  if (!record) return sendError(res, 404, "run_not_found", `no run "${id}" in ${runsDir}`);
  let report: unknown = null;
  let problem: string | null = null;
  try {
    const reportPath = resolve(runsDir, id, record.report);
    if (inside(resolve(runsDir, id), reportPath)) report = JSON.parse(await readFile(reportPath, "utf8"));
    problem = reportProblem(record.kind, record.report, report);
  } catch (error) {
    report = null;
    problem = `${record.report} cannot be read as JSON: ${(error as Error).message}`;
  }
  return sendJson(res, 200, { record, report, problem });
}

async function serveRunFile(runsDir: string, res: ServerResponse, id: string, path: string, download: boolean): Promise<void> {
  const record = await readRunRecord(runsDir, id);
  if (!record) return sendError(res, 404, "run_not_found", `no run "${id}" in ${runsDir}`);
  return serveFileInside(res, join(runsDir, id), path, `run "${id}"`, { download });
}

/** GET /api/evals/{id}[/iterations/{n}[/assertions | /run/{path} | /files/{path}]]. */
async function evalRoute(runsDir: string, res: ServerResponse, method: string, match: RegExpExecArray, download: boolean): Promise<void> {
  if (method !== "GET" && method !== "HEAD") return sendError(res, 405, "method_not_allowed", "evals are read-only here");
  const parts = decoded([match[1], match[2], match[3], match[4]]);
  if (!parts) return sendError(res, 400, "usage", "malformed percent-encoding in the path");
  const [id, n, what, rest] = parts as [string, string | undefined, string | undefined, string | undefined];
  if (!validRunId(id)) return sendError(res, 400, "usage", `"${id}" is not an eval folder's name`);
  if (n === undefined) {
    const found = await readEval(runsDir, id);
    return found ? sendJson(res, 200, found) : sendError(res, 404, "eval_not_found", `no eval folder "${id}" in ${runsDir}`);
  }
  const number = Number(n);
  const detail = await readIteration(runsDir, id, number);
  if (!detail) return sendError(res, 404, "iteration_not_found", `eval "${id}" has no iteration ${n}`);
  const where = `iteration ${n} of eval "${id}"`;
  if (what === undefined) return sendJson(res, 200, detail);
  if (what === "assertions") {
    const runs = await readIterationAssertions(runsDir, id, number);
    if (!runs)
      return sendError(res, 409, "no_benchmark", `${where} has no valid benchmark.json: ${detail.benchmark_problem ?? "not written yet"}`);
    return sendJson(res, 200, { runs });
  }
  if (!rest) return sendError(res, 404, "not_found", `no API route for ${what} without a path`);
  if (what === "run") {
    const run = await readEvalRun(runsDir, id, number, rest);
    return run ? sendJson(res, 200, run) : sendError(res, 404, "run_not_found", `"${rest}" is not a run folder inside ${where}`);
  }
  return serveFileInside(res, join(runsDir, id, `iteration-${number}`), rest, where, {
    download,
    asText: { maxInlineBytes: MAX_SHOWN_BYTES },
  });
}

/** GET /api/trends/runs/{id} and /api/trends/evals/{id}. */
async function trendRoute(runsDir: string, res: ServerResponse, path: string): Promise<void> {
  const match = /^\/api\/trends\/(runs|evals)\/([^/]+)$/.exec(path);
  if (!match) return sendError(res, 404, "not_found", `no API route ${path}`);
  let id: string;
  try {
    id = decodeURIComponent(match[2]!);
  } catch {
    return sendError(res, 400, "usage", "malformed percent-encoding in the path");
  }
  const trend = match[1] === "runs" ? await readRunTrend(runsDir, id) : await readEvalTrend(runsDir, id);
  if (!trend)
    return sendError(
      res,
      404,
      "trend_not_found",
      `no trend for "${id}": not a recorded test or solve run, nor an eval folder, in ${runsDir}`,
    );
  return sendJson(res, 200, trend);
}

/** ANY /api/server/{path}: relayed to the jobs server's /v1/{path} with its token, the answer streamed back. */
async function relay(view: ViewState, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const { serverUrl } = view;
  if (!serverUrl) return sendError(res, 404, "no_server", "no jobs server: start skillrig view with --server <url>");
  const headers: Record<string, string> = {};
  for (const name of RELAYED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  if (view.serverToken) headers.authorization = `Bearer ${view.serverToken}`;
  const abort = new AbortController();
  // An EventSource the browser closes must close the stream to the jobs server too.
  res.on("close", () => abort.abort());
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  let upstream: Response;
  try {
    upstream = await fetch(`${serverUrl}/v1/${path}`, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
      signal: abort.signal,
      // Node's fetch needs duplex "half" to send a streamed request body.
      duplex: hasBody ? "half" : undefined,
    } as RequestInit);
  } catch (error) {
    if (abort.signal.aborted) return;
    return sendError(res, 502, "server_unreachable", `the jobs server at ${serverUrl} did not answer: ${(error as Error).message}`);
  }
  const out: Record<string, string> = { "x-content-type-options": "nosniff" };
  for (const name of RELAYED_RESPONSE_HEADERS) {
    const value = upstream.headers.get(name);
    if (value) out[name] = value;
  }
  // Artifacts are agent output: never let one run as a page of this origin.
  if (path.includes("/artifacts/") || path.endsWith("/bundle")) out["content-security-policy"] = FILE_CSP;
  res.writeHead(upstream.status, out);
  if (!upstream.body) return void res.end();
  try {
    for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  } catch {
    res.destroy();
  }
}
