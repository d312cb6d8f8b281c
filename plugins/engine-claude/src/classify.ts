/**
 * Why a claude run failed. Claude Code exits 1 after an API error it gave up on (the result message has
 * `is_error` and `api_error_status`, and a synthetic assistant message says what went wrong, e.g. "Invalid API
 * key · Fix external API key"), and exits 1 with a line on stderr for a problem on its command line (an invalid
 * --json-schema, --dangerously-skip-permissions as root).
 */
import type { EngineFailure, ProcessRunResult } from "@skillrig/engine-kit";
import type { ClaudeStreamParser } from "./stream-parser.js";

const AUTH_TEXT = /Invalid API key|authentication_(error|failed)|\b401\b|Unauthorized|not logged in|Please run \/login|OAuth/i;
const ROOT_REFUSAL = /cannot be used with root\/sudo privileges/;

export function classifyClaudeRun(run: ProcessRunResult, parser: ClaudeStreamParser): EngineFailure | undefined {
  const result = parser.result();
  if (run.exitCode === 0 && result && !result.isError) return undefined;
  const stderr = parser.stderrLines();
  const message = parser.errors().at(-1) ?? stderr.at(-1) ?? (run.signal ? `killed by ${run.signal}` : "no error message");
  const status = parser.apiErrorStatus();
  const exitText = run.exitCode === null ? `signal ${run.signal}` : `exit code ${run.exitCode}`;
  const http = status !== undefined ? `, HTTP ${status}` : "";
  if (status === 401 || status === 403 || (status === undefined && AUTH_TEXT.test(message))) {
    return { kind: "auth", message: `Claude Code could not authenticate: ${message} [${exitText}${http}]` };
  }
  if (stderr.some((l) => ROOT_REFUSAL.test(l))) {
    return {
      kind: "crash",
      message: `Claude Code refuses permission_mode "bypassPermissions" when run as root (${stderr.find((l) => ROOT_REFUSAL.test(l))}); run skillrig as another user, allow the tools you need with "allowed_tools" (e.g. ["Bash"]), or, inside a sandbox, set env { "IS_SANDBOX": "1" }`,
    };
  }
  if (run.exitCode === 0 && !result) {
    return { kind: "malformed_output", message: "Claude Code exited 0 without a result message on its stream" };
  }
  if (run.exitCode === 0)
    return { kind: "crash", message: `Claude Code reported an error: ${message}${http ? ` [${http.slice(2)}]` : ""}` };
  return { kind: "crash", message: `Claude Code failed with ${exitText}${http}: ${message}` };
}
