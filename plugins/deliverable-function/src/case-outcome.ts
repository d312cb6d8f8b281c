/**
 * The runner's decision for one case: the harness's reply is data about what the call did, and only this module
 * turns it into a status. A returned value is never judged here: it goes to the oracle's compare as JSON text,
 * against expected values that never entered the sandbox, so nothing the harness claims can make a case pass.
 */
import { type CaseOutcome, type CaseWork, DISK_ENTRY_LIMIT, type ResourceLimits, type SampleCaseReply } from "@skillrig/core";

export function outcomeOf(
  reply: SampleCaseReply,
  limits: Required<ResourceLimits>,
  work: CaseWork,
  isolation: string,
  expectedJson: string | undefined,
): CaseOutcome {
  const request = {
    value_bytes: limits.outputBytes,
    output_bytes: limits.outputBytes,
    memory_bytes: limits.memoryBytes,
    cpu_ms: limits.cpuMs,
    time_ms: limits.cpuTreeMs,
    wall_ms: limits.wallMs,
    disk_bytes: limits.diskBytes,
    disk_entries: DISK_ENTRY_LIMIT,
  };
  const details: Record<string, unknown> = {};
  if (reply.stdout) details.stdout = reply.stdout;
  if (reply.stderr) details.stderr = reply.stderr;
  details.call_ms = Math.round(reply.ms * 1000) / 1000;
  details.isolation = isolation;
  const stopped = (status: NonNullable<CaseOutcome["status"]>, message: string, extra: Record<string, unknown> = {}): CaseOutcome => ({
    actual: null,
    status,
    message,
    comparisons: [],
    details: { ...details, ...extra },
  });

  if (reply.overCap === "value") {
    return stopped("output_limit", `the return value's JSON text is longer than ${request.value_bytes} bytes`);
  }
  if (reply.overCap) {
    return stopped("output_limit", `the function wrote more than ${request.output_bytes} bytes to ${reply.overCap}`);
  }
  switch (reply.end) {
    case "returned": {
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
    case "raised":
      if (reply.exception_type === "MemoryError") {
        return stopped("memory_limit", `MemoryError: the function needed more than the memory limit of ${request.memory_bytes} bytes`);
      }
      if (reply.exception_type === "SystemExit") {
        return stopped("error", `the function called sys.exit(${reply.exit_code ?? ""}) instead of returning`, {
          exception_type: "SystemExit",
          ...(reply.traceback ? { traceback: reply.traceback } : {}),
        });
      }
      return stopped("error", reply.exception_message || reply.exception_type, {
        exception_type: reply.exception_type,
        ...(reply.traceback ? { traceback: reply.traceback } : {}),
      });
    case "unencodable":
      return stopped(
        "error",
        `the return value cannot be represented in JSON: ${reply.return_type} ${reply.return_repr} (${reply.reason})`,
        {
          return_type: reply.return_type,
          return_repr: reply.return_repr,
        },
      );
    case "exited":
      return stopped("error", `the case process exited with code ${reply.exit_code} before the function returned (did it call os._exit?)`, {
        exit_code: reply.exit_code,
      });
    case "signaled":
      if (reply.signal === "SIGXCPU")
        return stopped("timeout", `the call used more than ${request.cpu_ms} ms of CPU time; its process was killed`);
      return stopped("error", `the case process was killed by signal ${reply.signal} before the function returned`, {
        signal: reply.signal,
      });
    case "killed":
      switch (reply.reason) {
        case "cpu":
          return stopped("timeout", `the call used more than ${request.time_ms} ms of CPU time (its processes together); they were killed`);
        case "wall":
          return stopped(
            "timeout",
            `the call did not return within ${request.wall_ms} ms of wall-clock time (the backstop of its ${request.time_ms} ms CPU time limit: it slept, blocked or waited); its process was killed`,
          );
        case "disk":
          return stopped(
            "output_limit",
            `the call wrote more than the disk cap of ${formatBytes(request.disk_bytes)} (or ${request.disk_entries} entries) in its case folder and temp folder (sandbox.limits.disk_bytes); its process was killed`,
          );
        case "stdout":
        case "stderr":
          return stopped(
            "output_limit",
            `the function wrote more than ${request.output_bytes} bytes to ${reply.reason}; its process was killed`,
          );
        case "value":
          return stopped(
            "output_limit",
            `the return value's JSON text is longer than ${request.value_bytes} bytes; its process was killed`,
          );
        case "bad_result":
          return stopped("error", "the case process sent a result the harness could not read; it was killed");
      }
      break;
    case "failed_to_start":
      return stopped("error", reply.message.slice(0, 2000));
    case "lost":
      if (reply.stuck) return stopped("timeout", reply.message, { harness: "stopped" });
      return stopped("error", reply.message, { harness: "died", ...(reply.details ?? {}) });
  }
  // Unreachable for a frame reply-frame.ts accepted; said plainly rather than assumed.
  return stopped("error", "the sample harness sent a reply the runner does not know");
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
