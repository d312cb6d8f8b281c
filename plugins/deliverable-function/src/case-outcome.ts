/**
 * The runner's decision for one case: the harness's reply is data about what the call did, and only this module
 * turns it into a status. A returned value is never judged here: it goes to the oracle's compare as JSON text,
 * against expected values that never entered the sandbox, so nothing the harness claims can make a case pass.
 */
import { type CaseOutcome, type CaseWork, DISK_ENTRY_LIMIT, type ResourceLimits, type SampleCaseReply } from "@skillrig/core";

/** The limits a message names, by the names the reports use. */
type LimitsShown = ReturnType<typeof limitsShown>;

/** A case that did not return a value: no comparison, a status and why, the reply's details and any of its own. */
type Stop = (status: NonNullable<CaseOutcome["status"]>, message: string, extra?: Record<string, unknown>) => CaseOutcome;

/** What each step reads: the limits named in messages, the details every outcome carries, and `stop`. */
interface OutcomeContext {
  limits: LimitsShown;
  details: Record<string, unknown>;
  stop: Stop;
}

type ReplyOf<E extends SampleCaseReply["end"]> = Extract<SampleCaseReply, { end: E }>;

export function outcomeOf(
  reply: SampleCaseReply,
  limits: Required<ResourceLimits>,
  work: CaseWork,
  isolation: string,
  expectedJson: string | undefined,
): CaseOutcome {
  const context = outcomeContext(reply, limits, isolation);
  const { stop } = context;
  if (reply.overCap === "value")
    return stop("output_limit", `the return value's JSON text is longer than ${context.limits.value_bytes} bytes`);
  if (reply.overCap) return stop("output_limit", `the function wrote more than ${context.limits.output_bytes} bytes to ${reply.overCap}`);
  switch (reply.end) {
    case "returned":
      return returnedOutcome(reply, work, expectedJson, context.details);
    case "raised":
      return raisedOutcome(reply, context);
    case "unencodable":
      return stop("error", `the return value cannot be represented in JSON: ${reply.return_type} ${reply.return_repr} (${reply.reason})`, {
        return_type: reply.return_type,
        return_repr: reply.return_repr,
      });
    case "exited":
      return stop("error", `the case process exited with code ${reply.exit_code} before the function returned (did it call os._exit?)`, {
        exit_code: reply.exit_code,
      });
    case "signaled":
      if (reply.signal === "SIGXCPU")
        return stop("timeout", `the call used more than ${context.limits.cpu_ms} ms of CPU time; its process was killed`);
      return stop("error", `the case process was killed by signal ${reply.signal} before the function returned`, { signal: reply.signal });
    case "killed": {
      const killed = killedOutcome(reply, context);
      if (killed) return killed;
      break;
    }
    case "failed_to_start":
      return stop("error", reply.message.slice(0, 2000));
    case "lost":
      if (reply.stuck) return stop("timeout", reply.message, { harness: "stopped" });
      return stop("error", reply.message, { harness: "died", ...(reply.details ?? {}) });
  }
  // Unreachable for a frame reply-frame.ts accepted; said plainly rather than assumed.
  return stop("error", "the sample harness sent a reply the runner does not know");
}

function limitsShown(limits: Required<ResourceLimits>) {
  return {
    value_bytes: limits.outputBytes,
    output_bytes: limits.outputBytes,
    memory_bytes: limits.memoryBytes,
    cpu_ms: limits.cpuMs,
    time_ms: limits.cpuTreeMs,
    wall_ms: limits.wallMs,
    disk_bytes: limits.diskBytes,
    disk_entries: DISK_ENTRY_LIMIT,
  };
}

/** The details every outcome of this reply carries (what the call printed, how long it took, the isolation). */
function outcomeContext(reply: SampleCaseReply, limits: Required<ResourceLimits>, isolation: string): OutcomeContext {
  const details: Record<string, unknown> = {};
  if (reply.stdout) details.stdout = reply.stdout;
  if (reply.stderr) details.stderr = reply.stderr;
  details.call_ms = Math.round(reply.ms * 1000) / 1000;
  details.isolation = isolation;
  const stop: Stop = (status, message, extra = {}) => ({
    actual: null,
    status,
    message,
    comparisons: [],
    details: { ...details, ...extra },
  });
  return { limits: limitsShown(limits), details, stop };
}

/** The function returned: its value goes to the oracle's compare as JSON text, never judged here. */
function returnedOutcome(
  reply: ReplyOf<"returned">,
  work: CaseWork,
  expectedJson: string | undefined,
  details: Record<string, unknown>,
): CaseOutcome {
  const { value: actual, exact } = displayValue(reply.valueJson);
  if (!exact) details.return_json = reply.valueJson;
  return {
    actual,
    comparisons: [
      {
        field: "return value",
        expected: work.testCase.expected,
        actual,
        defaultMode: "json",
        decoded: true,
        exactJson: { expected: expectedJson ?? JSON.stringify(work.testCase.expected ?? null), actual: reply.valueJson },
      },
    ],
    details,
  };
}

/** The function raised: a MemoryError is the memory limit, a SystemExit is said as such, anything else is an error. */
function raisedOutcome(reply: ReplyOf<"raised">, { limits, stop }: OutcomeContext): CaseOutcome {
  if (reply.exception_type === "MemoryError") {
    return stop("memory_limit", `MemoryError: the function needed more than the memory limit of ${limits.memory_bytes} bytes`);
  }
  if (reply.exception_type === "SystemExit") {
    return stop("error", `the function called sys.exit(${reply.exit_code ?? ""}) instead of returning`, {
      exception_type: "SystemExit",
      ...(reply.traceback ? { traceback: reply.traceback } : {}),
    });
  }
  return stop("error", reply.exception_message || reply.exception_type, {
    exception_type: reply.exception_type,
    ...(reply.traceback ? { traceback: reply.traceback } : {}),
  });
}

/** The harness killed the case's process: which limit it crossed. Undefined for a reason the runner does not know. */
function killedOutcome(reply: ReplyOf<"killed">, { limits, stop }: OutcomeContext): CaseOutcome | undefined {
  switch (reply.reason) {
    case "cpu":
      return stop("timeout", `the call used more than ${limits.time_ms} ms of CPU time (its processes together); they were killed`);
    case "wall":
      return stop(
        "timeout",
        `the call did not return within ${limits.wall_ms} ms of wall-clock time (the backstop of its ${limits.time_ms} ms CPU time limit: it slept, blocked or waited); its process was killed`,
      );
    case "disk":
      return stop(
        "output_limit",
        `the call wrote more than the disk cap of ${formatBytes(limits.disk_bytes)} (or ${limits.disk_entries} entries) in its case folder and temp folder (sandbox.limits.disk_bytes); its process was killed`,
      );
    case "stdout":
    case "stderr":
      return stop("output_limit", `the function wrote more than ${limits.output_bytes} bytes to ${reply.reason}; its process was killed`);
    case "value":
      return stop("output_limit", `the return value's JSON text is longer than ${limits.value_bytes} bytes; its process was killed`);
    case "bad_result":
      return stop("error", "the case process sent a result the harness could not read; it was killed");
  }
  return undefined;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${bytes} bytes`;
}

/**
 * The value for reports: JSON.parse where it can. Where that is not exact (NaN and infinities, numbers with more
 * digits than a double holds) the report also gets the text itself as `details.return_json`; the comparison
 * always works on the text.
 */
function displayValue(valueJson: string): { value: unknown; exact: boolean } {
  try {
    return { value: JSON.parse(valueJson), exact: !/\d{16,}/.test(valueJson) };
  } catch {
    return { value: valueJson, exact: false };
  }
}
