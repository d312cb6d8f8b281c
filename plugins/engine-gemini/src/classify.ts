/**
 * Why a gemini run failed, from its exit code, its result event and its stderr. gemini-cli exits with
 * its own codes (41 no usable auth, 42 bad input, 52 bad config, 53 turn limit, 55 untrusted folder) or,
 * after an API error, with the HTTP status truncated to 8 bits (400 -> 144, 401 -> 145, 500 -> 244).
 */
import type { EngineFailure, ProcessRunResult } from "@skillrig/engine-kit";
import type { GeminiStreamParser } from "./stream-parser.js";

const CLI_EXIT: Record<number, string> = {
  41: "no usable authentication",
  42: "invalid input",
  44: "sandbox error",
  52: "invalid configuration",
  53: "turn limit reached",
  55: "the workspace folder is not trusted",
  130: "interrupted",
};

/** The HTTP status an exit code stands for when gemini exited after an API error, if any. */
export function httpStatusOfExit(code: number | null): number | undefined {
  if (code === null || code < 128) return undefined;
  for (const status of [400, 401, 403, 404, 408, 429, 500, 502, 503, 504]) if ((status & 255) === code) return status;
  return undefined;
}

const AUTH_TEXT =
  /API key not valid|API_KEY_INVALID|UNAUTHENTICATED|PERMISSION_DENIED|invalid[ _]api[ _]key|Please set an Auth method|\b401\b|Unauthorized/i;

/** `[API Error: {"error":{"message":"..."}}]` -> the inner message; anything else as it is. */
export function apiErrorMessage(text: string): string {
  const inner = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text);
  if (!inner) return text.trim();
  try {
    return JSON.parse(`"${inner[1]}"`) as string;
  } catch {
    return inner[1]!;
  }
}

function firstUsefulStderr(lines: string[]): string | undefined {
  const noise = /^(Warning: 256-color|Ripgrep is not available|\[STARTUP\]|YOLO mode is enabled|\s+at |Loaded cached credentials)/;
  return lines.find((l) => l.trim() !== "" && !noise.test(l) && l.trim() !== "{" && l.trim() !== "}");
}

export function classifyGeminiRun(run: ProcessRunResult, parser: GeminiStreamParser): EngineFailure | undefined {
  const errors = parser.errors();
  if (run.exitCode === 0 && parser.resultStatus() !== "error") return undefined;
  const reported = errors[errors.length - 1];
  const stderrLine = firstUsefulStderr(parser.stderrLines());
  const cliMessage = reported ?? stderrLine ?? (run.signal ? `killed by ${run.signal}` : "no error message");
  const http = httpStatusOfExit(run.exitCode);
  const exitText =
    run.exitCode === null
      ? `signal ${run.signal}`
      : `exit code ${run.exitCode}${http ? ` (HTTP ${http} truncated to 8 bits)` : CLI_EXIT[run.exitCode] ? ` (${CLI_EXIT[run.exitCode]})` : ""}`;
  if (run.exitCode === 41 || http === 401 || http === 403 || AUTH_TEXT.test(cliMessage) || (http === 400 && /key/i.test(cliMessage))) {
    return { kind: "auth", message: `Gemini CLI could not authenticate: ${apiErrorMessage(cliMessage)} [${exitText}]` };
  }
  if (run.exitCode === 0) {
    return { kind: "crash", message: `Gemini CLI reported an error: ${apiErrorMessage(cliMessage)}` };
  }
  return { kind: "crash", message: `Gemini CLI failed with ${exitText}: ${apiErrorMessage(cliMessage)}` };
}
