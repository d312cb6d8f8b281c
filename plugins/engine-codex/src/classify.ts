/**
 * Why a codex run failed. codex exec exits 1 after `turn.failed` (the API error is in its message) or on a
 * startup problem (printed to stderr); without network it never exits, which the wall-clock timeout ends.
 */
import type { EngineFailure, ProcessRunResult } from "@skillrig/engine-kit";
import type { CodexStreamParser } from "./stream-parser.js";

const AUTH_TEXT =
  /\b401\b|\b403\b|Unauthorized|Forbidden|invalid_api_key|Incorrect API key|API key|not logged in|authenticat|Missing environment variable: `?\w*(API_KEY|TOKEN)/i;

function stderrProblem(lines: string[]): string | undefined {
  const noise = /^(WARNING: proceeding|Reading additional input from stdin|\d{4}-\d\d-\d\dT[\d:.]+Z\s+(WARN|INFO|DEBUG))/;
  const useful = lines.filter((l) => l.trim() !== "" && !noise.test(l));
  return useful[useful.length - 1];
}

export function classifyCodexRun(run: ProcessRunResult, parser: CodexStreamParser): EngineFailure | undefined {
  const turnFailure = parser.turnFailure();
  if (run.exitCode === 0 && turnFailure === undefined) {
    if (!parser.completed()) return { kind: "malformed_output", message: "Codex CLI exited 0 without reporting a completed turn" };
    return undefined;
  }
  const message =
    turnFailure ??
    stderrProblem(parser.stderrLines()) ??
    parser.errors().at(-1) ??
    (run.signal ? `killed by ${run.signal}` : "no error message");
  const exitText = run.exitCode === null ? `signal ${run.signal}` : `exit code ${run.exitCode}`;
  if (AUTH_TEXT.test(message)) return { kind: "auth", message: `Codex CLI could not authenticate: ${message} [${exitText}]` };
  return { kind: "crash", message: `Codex CLI failed with ${exitText}: ${message}` };
}
