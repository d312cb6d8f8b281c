/**
 * The client side of `skillrig test ... --server URL` and `skillrig solve ... --server URL`: oracle runs and solve
 * attempts submitted to a jobs server instead of run here, so grading scales with the server's workers. It speaks
 * only the public HTTP API (POST /v1/oracle/runs or /v1/solve/attempts, a deliverable as a zip upload, the job's SSE
 * stream for progress, GET /v1/jobs/{id}/result), and gives back what a local run would (a TaskReport, an
 * AttemptResult), or the server's error as a SkillrigError with its code.
 *
 * Cancelling (the `signal`) cancels the job on the server and keeps following it to its end, so the caller gets
 * what the job did before it stopped, as a local run reports canceled work.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import { PassThrough } from "node:stream";
import archiver from "archiver";
import { SkillrigError, type LoadedTask, type SerializedError, type TaskReport } from "@skillrig/core";
import { exactTaskText } from "@skillrig/oracle";
import type { AttemptResult } from "@skillrig/solve";

export interface RemoteOracleRunOptions {
  /** The server's base URL, `http://host:port`. */
  url: string;
  /** Bearer token (the CLI reads SKILLRIG_SERVER_TOKEN). */
  token?: string;
  /**
   * The task as loaded here (`loadTask`): it is sent as JSON text with each case's input and expected exactly as the
   * task file wrote them (`exactTaskText`), so the server grades the values a local run would. A plain value (a
   * task parsed some other way) is sent as JSON.stringify writes it.
   */
  task: LoadedTask | unknown;
  /** The deliverable: a file (sent alone, under its own name) or a folder (sent whole). */
  deliverable: string;
  /** Each case's verdict as the server decides it (name, index, status, duration_ms, message). */
  onCase?: (verdict: { name: string; index: number; status: string; duration_ms: number; message?: string }) => void;
  /** Aborting cancels the job on the server. */
  signal?: AbortSignal;
}

export interface ServerAccess {
  /** The server's base URL, `http://host:port`. */
  url: string;
  /** Bearer token (the CLI reads SKILLRIG_SERVER_TOKEN). */
  token?: string;
}

export interface RemoteSolveAttemptOptions extends ServerAccess {
  /** The task as the batch scores it, hidden tests included (they stay on the server's side of the engine); as for an oracle run. */
  task: LoadedTask | unknown;
  engine: { name: string; label: string; options?: Record<string, unknown> };
  attempt: number;
  timeoutMs?: number;
  /** Aborting cancels the attempt on the server; the attempt then ends `canceled`. */
  signal?: AbortSignal;
}

/** How a remote job ended: its status, its result when it has one of its own, else its error. */
export interface RemoteJobEnd<T> {
  id: string;
  status: string;
  result?: T;
  error?: SerializedError;
  reason?: string;
}

function isLoadedTask(task: unknown): task is LoadedTask {
  return typeof task === "object" && task !== null && "task" in task && "displayPath" in task;
}

/** The task's JSON text for a request body: exact when it was loaded from text, else as JSON.stringify writes it. */
function taskText(task: LoadedTask | unknown): string {
  return isLoadedTask(task) ? exactTaskText(task) : JSON.stringify(task);
}

/** A JSON body with `task` as exact text and the other members as JSON.stringify writes them. */
function bodyWithTask(task: LoadedTask | unknown, rest: Record<string, unknown> = {}): string {
  const others = JSON.stringify(rest).slice(1, -1);
  return `{"task":${taskText(task)}${others ? `,${others}` : ""}}`;
}

/** The server's error body as a SkillrigError; anything else as an `unhandled` one naming the status. */
async function failure(response: Response, what: string): Promise<SkillrigError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as { error: SerializedError };
    const { code, message, ...rest } = error;
    return new SkillrigError(code, `the server refused ${what}: ${message}`, rest);
  } catch {
    return new SkillrigError("unhandled", `the server answered ${response.status} to ${what}: ${text.slice(0, 300)}`);
  }
}

function zipOf(path: string): Promise<Buffer> {
  const archive = archiver("zip", { zlib: { level: 6 } });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    sink.on("end", () => resolve(Buffer.concat(chunks)));
    archive.on("error", reject);
  });
  archive.pipe(sink);
  if (statSync(path).isDirectory()) archive.directory(path, false);
  else archive.file(path, { name: basename(path) });
  void archive.finalize();
  return done;
}

/** Reads the job's event stream to its end, handing each event to `onEvent`; returns the last status seen. */
async function follow(
  call: Caller,
  id: string,
  onEvent: (event: { type: string; data: Record<string, unknown> }) => void,
): Promise<string> {
  const response = await call(`/v1/jobs/${id}/events`, { headers: { accept: "text/event-stream" } }, "following the job", false);
  if (response.status !== 200) throw await failure(response, "the event stream");
  let buffer = "";
  let status = "";
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      if (!data) continue;
      const event = JSON.parse(data) as { type: string; data: Record<string, unknown> };
      if (event.type === "status") status = String(event.data.status);
      onEvent(event);
    }
  }
  return status;
}

type Caller = (path: string, init: RequestInit, what: string, abortable?: boolean) => Promise<Response>;

function caller(access: ServerAccess, signal?: AbortSignal): { base: string; call: Caller } {
  const base = access.url.replace(/\/+$/, "");
  const headers: Record<string, string> = access.token ? { authorization: `Bearer ${access.token}` } : {};
  const call: Caller = async (path, init, what, abortable = true) => {
    try {
      return await fetch(base + path, {
        ...init,
        headers: { ...headers, ...(init.headers as Record<string, string>) },
        ...(abortable && signal ? { signal } : {}),
      });
    } catch (error) {
      if (abortable && signal?.aborted) throw error;
      throw new SkillrigError("unhandled", `cannot reach the server at ${base} (${what}): ${(error as Error).message}`, {
        field: "--server",
        hint: "check the URL and that `skillrig serve` runs there",
      });
    }
  };
  return { base, call };
}

/**
 * Creates a job (`create`: the POST path and JSON body), uploads `zip` when given, follows the job's events to its
 * end and reads its result. Once created, an abort of `signal` cancels the job on the server and the job is still
 * followed to its end (the stream is not tied to `signal`), so what it did before it stopped comes back.
 */
async function runRemoteJob<T>(
  access: ServerAccess,
  create: { path: string; body: string; what: string },
  options: {
    zip?: () => Promise<Buffer>;
    signal?: AbortSignal;
    onEvent?: (event: { type: string; data: Record<string, unknown> }) => void;
  },
): Promise<RemoteJobEnd<T>> {
  const { base, call } = caller(access, options.signal);
  const created = await call(
    create.path,
    { method: "POST", headers: { "content-type": "application/json" }, body: create.body },
    `submitting ${create.what}`,
  );
  if (created.status !== 201) throw await failure(created, create.what);
  const { id } = (await created.json()) as { id: string };
  const cancel = () => void call(`/v1/jobs/${id}/cancel`, { method: "POST" }, "canceling", false).catch(() => undefined);
  options.signal?.addEventListener("abort", cancel, { once: true });
  try {
    if (options.signal?.aborted) cancel();
    else if (options.zip) {
      const uploaded = await call(
        `/v1/jobs/${id}/upload`,
        { method: "POST", headers: { "content-type": "application/zip" }, body: await options.zip() },
        "uploading the deliverable",
      ).catch((error: unknown) => {
        // Canceled while uploading: the cancel above ends the job; follow it to that end.
        if (options.signal?.aborted) return undefined;
        throw error;
      });
      if (uploaded && uploaded.status !== 202 && !options.signal?.aborted) throw await failure(uploaded, "the deliverable");
    }
    const status = await follow(call, id, options.onEvent ?? (() => undefined));
    const answer = await call(`/v1/jobs/${id}/result`, {}, "reading the result", false);
    if (answer.status !== 200) throw await failure(answer, "the result request");
    const body = (await answer.json()) as T & { status?: string; error?: SerializedError; reason?: string; task_id?: unknown };
    // A job that ended without a result of its own (canceled before it ran, interrupted) answers with its record.
    const own = !(body.task_id === null && typeof body.status === "string");
    return own
      ? { id, status, result: body }
      : { id, status, ...(body.error ? { error: body.error } : {}), ...(body.reason ? { reason: body.reason } : {}) };
  } finally {
    options.signal?.removeEventListener("abort", cancel);
  }
}

export async function runOracleRemotely(options: RemoteOracleRunOptions): Promise<TaskReport> {
  const end = await runRemoteJob<TaskReport>(
    options,
    { path: "/v1/oracle/runs", body: bodyWithTask(options.task), what: "the task" },
    {
      zip: () => zipOf(options.deliverable),
      signal: options.signal,
      onEvent: (event) => {
        if (event.type === "case") options.onCase?.(event.data as Parameters<NonNullable<RemoteOracleRunOptions["onCase"]>>[0]);
      },
    },
  );
  // A run that ended without a report of its own (canceled, interrupted, failed) carries the job's error instead.
  if (!end.result || !Array.isArray(end.result.cases)) {
    const error = end.error ?? { code: "unhandled", message: `the oracle run ended ${end.status} without a report` };
    const { code, message, ...rest } = error;
    throw new SkillrigError(code, `the oracle run on ${options.url} (job ${end.id}) did not finish: ${message}`, rest);
  }
  return end.result;
}

/**
 * One solve attempt on the server (`POST /v1/solve/attempts`): the engine runs the solve skill on a worker and the
 * deliverable is graded there on the hidden tests. The result is the AttemptResult a local attempt gives; a job
 * that ended without one (canceled before it started, interrupted by a worker's death) comes back with its error.
 */
export function runSolveAttemptRemotely(options: RemoteSolveAttemptOptions): Promise<RemoteJobEnd<AttemptResult>> {
  return runRemoteJob<AttemptResult>(
    options,
    {
      path: "/v1/solve/attempts",
      body: bodyWithTask(options.task, {
        engine: options.engine,
        attempt: options.attempt,
        ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}),
      }),
      what: `attempt ${options.attempt} with ${options.engine.label}`,
    },
    { signal: options.signal },
  );
}
