/**
 * Checked at `POST`, before a job is stored: what a request asks of a worker's time must fit the server's caps
 * (server-bounds.ts), so a task of 10,000 cases of a day each, or an engine asked to run for a week, is a 422
 * naming the config key, the numbers and the pointer at fault rather than a job that holds a slot until it is cut.
 */
import { DEFAULT_LIMITS, SkillrigError, type Task } from "@skillrig/core";
import type { ServerBounds } from "./server-bounds.js";

/** A case's time limit as the oracle resolves it: the case's, the task's, the config's `oracle.timeout_ms`, the default. */
function caseTimeMs(task: Task, index: number, configTimeoutMs: number | undefined): number {
  return task.tests[index]?.timeout_ms ?? task.limits?.timeout_ms ?? configTimeoutMs ?? DEFAULT_LIMITS.wallMs;
}

/** The sum of the task's case time limits against `server.task_max_case_time_ms`; throws `invalid_task` (422). */
export function checkTaskCaseTime(task: Task, bounds: ServerBounds, configTimeoutMs: number | undefined): void {
  const max = bounds.taskMaxCaseTimeMs;
  let total = 0;
  let longest = 0;
  let longestAt = 0;
  for (let i = 0; i < task.tests.length; i++) {
    const ms = caseTimeMs(task, i, configTimeoutMs);
    total += ms;
    if (ms > longest) {
      longest = ms;
      longestAt = i;
    }
  }
  if (total <= max) return;
  // The value that sets the time: the longest case's own timeout_ms, else the task's, else the cases as a whole.
  const pointer =
    task.tests[longestAt]?.timeout_ms !== undefined
      ? `/task/tests/${longestAt}/timeout_ms`
      : task.limits?.timeout_ms !== undefined
        ? "/task/limits/timeout_ms"
        : "/task/tests";
  const message = `the task's ${task.tests.length} cases may run for ${total} ms together (each up to its time limit, the longest ${longest} ms); this server takes at most ${max} ms of case time per task (server.task_max_case_time_ms)`;
  throw new SkillrigError("invalid_task", message, {
    pointer,
    field: "server.task_max_case_time_ms",
    violations: [{ pointer, message, rule: "server.task_max_case_time_ms" }],
    details: {
      limit: "server.task_max_case_time_ms",
      max_ms: max,
      case_time_ms: total,
      cases: task.tests.length,
      longest_case_ms: longest,
    },
    hint: "lower the cases' timeout_ms (or the task's limits.timeout_ms), split the task, or raise server.task_max_case_time_ms",
  });
}

/** Time limits a request sets (`[pointer, ms]`) against `server.job_max_running_ms`; throws `schema_violation` (422). */
export function checkRequestedTime(requested: Array<[string, unknown]>, bounds: ServerBounds): void {
  const max = bounds.jobMaxRunningMs;
  const over = requested.filter((entry): entry is [string, number] => typeof entry[1] === "number" && entry[1] > max);
  if (over.length === 0) return;
  const violations = over.map(([pointer, ms]) => ({
    pointer,
    rule: "server.job_max_running_ms",
    message: `asks for ${ms} ms; a job runs at most ${max} ms on this server (server.job_max_running_ms)`,
  }));
  throw new SkillrigError("schema_violation", `the request ${violations.map((v) => `${v.pointer} ${v.message}`).join("; ")}`, {
    pointer: violations[0]!.pointer,
    field: "server.job_max_running_ms",
    violations,
    details: { limit: "server.job_max_running_ms", max_ms: max },
    hint: "ask for less time, or raise server.job_max_running_ms in the server's config",
  });
}
