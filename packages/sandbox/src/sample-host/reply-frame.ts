/**
 * Reads the header line of one reply frame from the harness, which is untrusted: every field is checked against
 * what the way the call ended may carry, and anything else (a field the runner does not know, a wrong type, a
 * value for a call that did not return) is a `FrameError`, which the client treats as the harness misbehaving.
 */
import type { CallEnd, LoadErrorMessage, ReadyMessage } from "./protocol.js";

/** The longest header line the runner reads; the harness clips messages and tracebacks well below it. */
export const FRAME_HEADER_BYTES = 256 * 1024;

export type FrameHeader = CallEnd & { id: number; ms: number; value_len: number; stdout_len: number; stderr_len: number; folder?: string };

export class FrameError extends Error {
  override name = "FrameError";
}

type FieldCheck = (value: unknown) => boolean;
const isString: FieldCheck = (v) => typeof v === "string";
const KILL_REASONS = new Set(["wall", "cpu", "disk", "stdout", "stderr", "value", "bad_result"]);

/** Per way a call can end: its fields beyond the common ones, each required unless marked optional. */
const END_FIELDS: Record<string, Record<string, { check: FieldCheck; optional?: boolean }>> = {
  returned: {},
  raised: {
    exception_type: { check: isString },
    exception_message: { check: isString, optional: true },
    traceback: { check: isString, optional: true },
    exit_code: { check: isString, optional: true },
  },
  unencodable: { return_type: { check: isString }, return_repr: { check: isString }, reason: { check: isString } },
  exited: { exit_code: { check: (v) => v === null || Number.isSafeInteger(v) } },
  signaled: { signal: { check: isString } },
  killed: {
    reason: { check: (v) => typeof v === "string" && KILL_REASONS.has(v) },
    cpu_ms: { check: (v) => typeof v === "number" && Number.isFinite(v) && v >= 0, optional: true },
  },
  failed_to_start: {
    message: { check: isString },
    // The fork server died under the case: "ran" (it was running) or "waiting"; the runner runs it again (open-sample.ts).
    fork_server_lost: { check: (v) => v === "ran" || v === "waiting", optional: true },
  },
};

const COMMON = new Set(["id", "end", "ms", "value_len", "stdout_len", "stderr_len", "folder"]);
const isLength = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * A "case started" line (`{"started":N}`, exactly as the harness writes it): case N left the harness's queue for its
 * fork. Anything else is not one (and is then read as a reply header, which it must be).
 */
export function readStartedFrame(line: string): number | undefined {
  const match = /^\{"started":([1-9][0-9]{0,14})\}$/.exec(line);
  return match ? Number(match[1]) : undefined;
}

export function readFrameHeader(line: string): FrameHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new FrameError(`the sample harness sent a line that is not JSON: ${line.slice(0, 200)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FrameError(`the sample harness sent a reply that is not an object: ${line.slice(0, 200)}`);
  }
  const header = value as Record<string, unknown>;
  const fields = typeof header.end === "string" ? END_FIELDS[header.end] : undefined;
  if (!fields || !Object.hasOwn(END_FIELDS, header.end as string)) {
    throw new FrameError(`the sample harness sent a reply with an unknown "end": ${JSON.stringify(header.end)?.slice(0, 100)}`);
  }
  if (!Number.isSafeInteger(header.id) || (header.id as number) < 1)
    throw new FrameError("the sample harness sent a reply without a valid id");
  if (typeof header.ms !== "number" || !Number.isFinite(header.ms) || header.ms < 0) {
    throw new FrameError(`the sample harness sent a reply for case ${header.id} with an invalid "ms"`);
  }
  for (const key of ["value_len", "stdout_len", "stderr_len"]) {
    if (!isLength(header[key])) throw new FrameError(`the sample harness sent a reply for case ${header.id} with an invalid "${key}"`);
  }
  if (header.folder !== undefined && typeof header.folder !== "string")
    throw new FrameError(`the function harness sent an invalid "folder" for case ${header.id}`);
  if (header.end !== "returned" && header.value_len !== 0) {
    throw new FrameError(`the sample harness sent a value for case ${header.id}, whose call ended "${header.end}"`);
  }
  for (const key of Object.keys(header)) {
    if (COMMON.has(key)) continue;
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!field) throw new FrameError(`the sample harness sent an unknown field "${key.slice(0, 60)}" for case ${header.id}`);
    if (!field.check(header[key])) throw new FrameError(`the sample harness sent an invalid "${key}" for case ${header.id}`);
  }
  for (const [key, field] of Object.entries(fields)) {
    if (!field.optional && !Object.hasOwn(header, key)) {
      throw new FrameError(`the sample harness sent a reply for case ${header.id} without "${key}"`);
    }
  }
  return header as FrameHeader;
}

const PARAMETER_KINDS = new Set(["POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD"]);

/** Checks the harness's first line (`ready` or `load_error`); throws FrameError when it is neither, well formed. */
export function readFirstLine(line: string): ReadyMessage | LoadErrorMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new FrameError(`the sample harness answered with something that is not JSON: ${line.slice(0, 200)}`);
  }
  const message = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const optionalString = (v: unknown) => v === undefined || v === null || typeof v === "string";
  if (message.op === "load_error") {
    const ok =
      typeof message.kind === "string" &&
      typeof message.message === "string" &&
      optionalString(message.traceback) &&
      optionalString(message.stdout) &&
      optionalString(message.stderr) &&
      (message.exit_code === undefined || (Number.isSafeInteger(message.exit_code) && (message.exit_code as number) >= 0));
    if (ok) return message as unknown as LoadErrorMessage;
  } else if (message.op === "ready") {
    const signature = message.signature as Record<string, unknown> | null;
    const signatureOk =
      signature === null ||
      (typeof signature === "object" &&
        typeof signature.display === "string" &&
        Array.isArray(signature.parameters) &&
        signature.parameters.every(
          (p: Record<string, unknown>) =>
            typeof p === "object" &&
            p !== null &&
            typeof p.name === "string" &&
            PARAMETER_KINDS.has(p.kind as string) &&
            typeof p.has_default === "boolean",
        ));
    const ok =
      signatureOk &&
      optionalString(message.signature_error) &&
      typeof message.import_stdout === "string" &&
      typeof message.import_stderr === "string";
    if (ok) return message as unknown as ReadyMessage;
  }
  throw new FrameError(`the sample harness's first line is neither a well-formed "ready" nor "load_error": ${line.slice(0, 200)}`);
}
