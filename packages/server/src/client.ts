/**
 * The client side of `skillrig test ... --server URL`: an oracle run submitted to a jobs server instead of run
 * here, so grading scales with the server's workers. It speaks only the public HTTP API (POST /v1/oracle/runs,
 * the deliverable as a zip upload, the job's SSE stream for each case's verdict, GET /v1/jobs/{id}/result), and
 * gives back the same TaskReport a local run would, or the server's error as a SkillrigError with its code.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import { PassThrough } from "node:stream";
import archiver from "archiver";
import { SkillrigError, type SerializedError, type TaskReport } from "@skillrig/core";

export interface RemoteOracleRunOptions {
  /** The server's base URL, `http://host:port`. */
  url: string;
  /** Bearer token (the CLI reads SKILLRIG_SERVER_TOKEN). */
  token?: string;
  /** The task as JSON (Task Oracle Input Contract v1.0), already validated here. */
  task: unknown;
  /** The deliverable: a file (sent alone, under its own name) or a folder (sent whole). */
  deliverable: string;
  /** Each case's verdict as the server decides it (name, index, status, duration_ms, message). */
  onCase?: (verdict: { name: string; index: number; status: string; duration_ms: number; message?: string }) => void;
  /** Aborting cancels the job on the server. */
  signal?: AbortSignal;
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

/** Reads the job's event stream to its end, handing `case` events to `onCase`; returns the last status. */
async function follow(base: string, id: string, headers: Record<string, string>, options: RemoteOracleRunOptions): Promise<string> {
  const response = await fetch(`${base}/v1/jobs/${id}/events`, {
    headers: { ...headers, accept: "text/event-stream" },
    signal: options.signal,
  });
  if (response.status !== 200) throw await failure(response, "the event stream");
  let buffer = "";
  let status = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
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
      if (event.type === "case") options.onCase?.(event.data as Parameters<NonNullable<RemoteOracleRunOptions["onCase"]>>[0]);
      if (event.type === "status") status = String(event.data.status);
    }
  }
  return status;
}

export async function runOracleRemotely(options: RemoteOracleRunOptions): Promise<TaskReport> {
  const base = options.url.replace(/\/+$/, "");
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const call = async (path: string, init: RequestInit, what: string): Promise<Response> => {
    try {
      return await fetch(base + path, {
        ...init,
        headers: { ...headers, ...(init.headers as Record<string, string>) },
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new SkillrigError("unhandled", `cannot reach the server at ${base} (${what}): ${(error as Error).message}`, {
        field: "--server",
        hint: "check the URL and that `skillrig serve` runs there",
      });
    }
  };
  const created = await call(
    "/v1/oracle/runs",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ task: options.task }) },
    "submitting the task",
  );
  if (created.status !== 201) throw await failure(created, "the task");
  const { id } = (await created.json()) as { id: string };
  const cancel = () => void fetch(`${base}/v1/jobs/${id}/cancel`, { method: "POST", headers }).catch(() => undefined);
  options.signal?.addEventListener("abort", cancel, { once: true });
  try {
    const zip = await zipOf(options.deliverable);
    const uploaded = await call(
      `/v1/jobs/${id}/upload`,
      { method: "POST", headers: { "content-type": "application/zip" }, body: zip },
      "uploading the deliverable",
    );
    if (uploaded.status !== 202) throw await failure(uploaded, "the deliverable");
    await follow(base, id, headers, options);
    const result = await call(`/v1/jobs/${id}/result`, {}, "reading the report");
    if (result.status !== 200) throw await failure(result, "the report request");
    const report = (await result.json()) as TaskReport & { status?: string; error?: SerializedError };
    // A run that ended without a report of its own (canceled, interrupted, failed) carries the job's error instead.
    if (!Array.isArray(report.cases)) {
      const error = report.error ?? { code: "unhandled", message: `the oracle run ended ${report.status ?? "without a report"}` };
      const { code, message, ...rest } = error;
      throw new SkillrigError(code, `the oracle run on ${base} (job ${id}) did not finish: ${message}`, rest);
    }
    return report;
  } finally {
    options.signal?.removeEventListener("abort", cancel);
  }
}
