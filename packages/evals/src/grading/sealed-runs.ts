/**
 * Sealed runs: how a `script` checker runs the agent's program without handing it what the checker can read.
 *
 * The checker holds the skill's evals/ (hidden inputs, expected outputs, oracle tasks) and the answer file; a program
 * it started itself would inherit them all (a `solve.py` that reads `evals/hidden/cases.json` passes). So the runner
 * serves a Unix socket, bound into the checker's sandbox and named in `$SKILLRIG_SEALED_SOCKET`; the checker's helper
 * (`skillrig_sealed.py`, on its PYTHONPATH) sends one JSON request per connection, and the runner starts the program
 * in a sandbox of its own (`sandbox.run`: as root a per-run uid of its own, not the checker's) holding a fresh copy of
 * the run's outputs/ plus the files the checker named, with the argv and stdin the checker gave, nothing else. The
 * reply says how it ended, its output bounded by the sandbox's output limit.
 *
 * A socket rather than a pipe or fd: the sandbox already binds folders, a socket file needs nothing new from it, and
 * every language can connect to one. One request at a time (the machine is shared), a bounded number per check.
 */
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type ResourceLimits, type Sandbox, type SandboxResult, isSkillrigError } from "@skillrig/core";
import { copyOutputs } from "../outputs.js";
import { agentName } from "../result-names.js";

/** The Python helper a checker imports (or runs with -m); bound read-only into the checker's sandbox. */
export const SEALED_HELPER_FILE = fileURLToPath(new URL("./skillrig_sealed.py", import.meta.url));

export interface SealedRunBounds {
  maxRuns: number;
  maxRequestBytes: number;
  /** Default time limit of a run, and the most a request may ask for. */
  timeoutMs: number;
  /** Connections open at once; past it a new one is closed unanswered. */
  maxConnections: number;
}

export interface SealedChannelOptions {
  sandbox: Sandbox;
  /** The run's outputs/, copied afresh for every sealed run. */
  outputsDir: string;
  /** Where the channel's folders go (the check's scratch folder). */
  scratch: string;
  bounds: SealedRunBounds;
  /** The sandbox limits of one run; its time limit comes from the request (bounded). */
  limitsFor(timeoutMs: number): ResourceLimits;
  signal?: AbortSignal;
}

export interface SealedChannel {
  /** The socket, for `$SKILLRIG_SEALED_SOCKET`. */
  socketPath: string;
  /** Folders the checker's sandbox must be able to read: the socket's and the helper's. */
  readOnlyPaths: string[];
  /** `$PYTHONPATH` for the checker: the helper's folder. */
  pythonPath: string;
  /** Sealed runs served so far. */
  runs(): number;
  close(): Promise<void>;
}

interface SealedRequest {
  argv: string[];
  stdin: Buffer;
  files: Array<{ name: string; content: Buffer }>;
  timeoutMs: number;
}

type Reply = Record<string, unknown>;

const refuse = (code: string, message: string): Reply => ({ error: { code, message } });

/** A named file's path: relative, inside the run's folder, no `..`, no empty or dot parts. */
function fileNameProblem(name: string): string | undefined {
  if (name === "" || name.startsWith("/") || name.includes("\0")) return "must be a non-empty relative path";
  const parts = name.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return "must not have empty, '.' or '..' parts";
  return undefined;
}

function decode(value: unknown, what: string): Buffer | string {
  if (value === undefined) return Buffer.alloc(0);
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return `${what} must be base64 text`;
  return Buffer.from(value, "base64");
}

/** Checks a request as sent; a problem is a refusal naming the field, never a guess. */
export function parseSealedRequest(text: string, bounds: SealedRunBounds): SealedRequest | Reply {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return refuse("sealed_bad_request", `the request is not JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return refuse("sealed_bad_request", "the request must be a JSON object");
  const r = raw as Record<string, unknown>;
  if (!Array.isArray(r.argv) || r.argv.length === 0 || !r.argv.every((a) => typeof a === "string" && !a.includes("\0")))
    return refuse("sealed_bad_request", "/argv must be a non-empty array of strings");
  const stdin = decode(r.stdin_b64, "/stdin_b64");
  if (typeof stdin === "string") return refuse("sealed_bad_request", stdin);
  const files: SealedRequest["files"] = [];
  if (r.files !== undefined) {
    if (typeof r.files !== "object" || r.files === null || Array.isArray(r.files))
      return refuse("sealed_bad_request", "/files must be an object of name -> base64 content");
    for (const [name, value] of Object.entries(r.files)) {
      const problem = fileNameProblem(name);
      if (problem) return refuse("sealed_bad_request", `/files/${name}: the name ${problem}`);
      const content = decode(value, `/files/${name}`);
      if (typeof content === "string") return refuse("sealed_bad_request", content);
      files.push({ name, content });
    }
  }
  let timeoutMs = bounds.timeoutMs;
  if (r.timeout_ms !== undefined) {
    if (!Number.isInteger(r.timeout_ms) || (r.timeout_ms as number) < 1)
      return refuse("sealed_bad_request", "/timeout_ms must be a positive integer");
    if ((r.timeout_ms as number) > bounds.timeoutMs)
      return refuse(
        "sealed_limit",
        `/timeout_ms ${r.timeout_ms} is above evals.sealed_runs.timeout_ms (${bounds.timeoutMs} ms), the most a sealed run may take`,
      );
    timeoutMs = r.timeout_ms as number;
  }
  return { argv: r.argv as string[], stdin, files, timeoutMs };
}

function endedOf(result: SandboxResult): string {
  if (result.timedOut || result.cpuLimited) return "timeout";
  if (result.memoryLimited) return "memory_limit";
  if (result.outputLimited) return "output_limit";
  if (result.diskLimited || result.fileSizeLimited) return "disk_limit";
  if (result.signal) return "signal";
  return "exited";
}

async function runSealed(options: SealedChannelOptions, request: SealedRequest): Promise<Reply> {
  const dir = await mkdtemp(join(options.scratch, "sealed-run-"));
  try {
    const work = join(dir, "work");
    // The run's own outputs/, never the checker's copy (which the checker may have changed).
    copyOutputs(options.outputsDir, work, { rename: agentName });
    for (const file of request.files) {
      const target = resolve(work, file.name);
      if (relative(work, target).startsWith(`..${sep}`)) return refuse("sealed_bad_request", `/files/${file.name} leaves the folder`);
      await mkdir(dirname(target), { recursive: true });
      // A name the agent made a folder or link at is replaced: the checker's file is what the program gets.
      await rm(target, { recursive: true, force: true });
      await writeFile(target, file.content);
    }
    const result = await options.sandbox.run({
      command: request.argv,
      cwd: work,
      stdin: request.stdin,
      env: { HOME: work },
      limits: options.limitsFor(request.timeoutMs),
      signal: options.signal,
    });
    return {
      ended: endedOf(result),
      exit_code: result.exitCode,
      signal: result.signal,
      stdout: result.stdout,
      stderr: result.stderr,
      duration_ms: result.durationMs,
    };
  } catch (error) {
    if (!isSkillrigError(error)) return refuse("sealed_failed", `the sealed run could not start: ${(error as Error).message}`);
    return refuse(error.code, error.message);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads one request from a connection, at most `max` bytes; undefined (and the connection answered) past that. */
function readRequest(socket: Socket, max: number): Promise<string | Reply> {
  if (socket.destroyed) return Promise.resolve(refuse("sealed_bad_request", "the connection was closed"));
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (value: string | Reply) => {
      if (settled) return;
      settled = true;
      socket.removeAllListeners("data");
      socket.removeAllListeners("end");
      done(value);
    };
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        finish(refuse("sealed_limit", `the request is larger than evals.sealed_runs.max_request_bytes (${max} bytes)`));
        return;
      }
      chunks.push(chunk);
      // Only the new chunk is searched for the end of the line: the request is read in linear time.
      if (chunk.includes(10)) {
        const whole = Buffer.concat(chunks);
        finish(whole.subarray(0, whole.indexOf(10)).toString("utf8"));
      }
    });
    socket.on("end", () => finish(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", () => finish(refuse("sealed_bad_request", "the connection failed")));
    socket.on("close", () => finish(refuse("sealed_bad_request", "the connection was closed")));
  });
}

/** Opens the channel: a socket in a folder of its own, served until `close`. */
export async function openSealedChannel(options: SealedChannelOptions): Promise<SealedChannel> {
  const socketDir = join(options.scratch, "sealed");
  await mkdir(socketDir, { mode: 0o755 });
  await chmod(socketDir, 0o755);
  const socketPath = join(socketDir, "run.sock");
  // The helper goes in a folder of its own: the checker sees that file, not this package's.
  const helperDir = join(options.scratch, "sealed-helper");
  await mkdir(helperDir, { mode: 0o755 });
  await chmod(helperDir, 0o755);
  await copyFile(SEALED_HELPER_FILE, join(helperDir, "skillrig_sealed.py"));
  await chmod(join(helperDir, "skillrig_sealed.py"), 0o644);
  const open = new Set<Socket>();
  let served = 0;
  // One at a time: each request waits for the one before it.
  let queue: Promise<unknown> = Promise.resolve();
  // Half-open: the helper shuts its side after the request, and the reply still goes back.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => undefined);
    queue = queue
      .then(async () => {
        const request = await readRequest(socket, options.bounds.maxRequestBytes);
        let reply: Reply;
        if (typeof request !== "string") reply = request;
        else if (served >= options.bounds.maxRuns)
          reply = refuse(
            "sealed_limit",
            `this check already made ${served} sealed runs, evals.sealed_runs.max_runs (${options.bounds.maxRuns})`,
          );
        else if (options.signal?.aborted) reply = refuse("canceled", "the eval was canceled");
        else {
          const parsed = parseSealedRequest(request, options.bounds);
          if ("error" in parsed) reply = parsed as Reply;
          else {
            served++;
            reply = await runSealed(options, parsed as SealedRequest);
          }
        }
        if (!socket.destroyed) await new Promise<void>((written) => socket.end(`${JSON.stringify(reply)}\n`, () => written()));
      })
      .catch(() => socket.destroy());
  });
  // A checker opening connections without end must not run the runner out of descriptors.
  server.maxConnections = options.bounds.maxConnections;
  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(socketPath, () => listening());
  });
  // The checker runs as another uid (root: its per-run uid): it must be able to connect.
  await chmod(socketPath, 0o666);
  return {
    socketPath,
    readOnlyPaths: [socketDir, helperDir],
    pythonPath: helperDir,
    runs: () => served,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        // A checker that left a connection open must not hold the grading.
        for (const socket of open) socket.destroy();
      }),
  };
}
