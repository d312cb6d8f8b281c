/**
 * A scenario is the script the mock model plays: a list of model turns. It is plain JSON so a skill's
 * offline test can keep it in a file next to the skill.
 *
 * Which turn a request gets is decided from the request itself, not from a counter: it is the number of
 * model turns already in the conversation the CLI sends (the CLIs resend the whole history each time).
 * So a retried request gets the same turn again, and one server can serve many jobs one after another
 * or at once, each starting at turn 0.
 */
import { readFileSync } from "node:fs";
import { compileSchema, formatViolations, parseJsonText, SkillrigError } from "@skillrig/core";

/** The model answers with text (the CLI shows it as the assistant's message). */
export interface TextTurn {
  text: string;
}
/** The model answers with JSON text (a final answer); `json` is serialised with JSON.stringify. */
export interface JsonTurn {
  json: unknown;
}
/** The model asks the CLI to write a file with the CLI's own tool (gemini `write_file`, codex `apply_patch`). */
export interface WriteFileTurn {
  write_file: { path: string; content: string };
}
/** The model asks the CLI to run a shell command (gemini `run_shell_command`, codex `exec_command`). */
export interface ShellTurn {
  shell: { command: string };
}
/**
 * The model answers with the output of the last tool call, as text: the CLI ran a command for it (a skill's
 * script) and the script's printout becomes the final answer, so the answer is real, not scripted.
 */
export interface EchoToolOutputTurn {
  echo_tool_output: true;
}
/**
 * The model activates an installed skill the CLI's native way: Gemini `activate_skill` {name}, Claude Code's `Skill`
 * tool {skill}, Codex a shell command reading the skill's SKILL.md at the path codex lists in the request.
 */
export interface ActivateSkillTurn {
  activate_skill: { name: string };
}
/**
 * The server answers with an HTTP error in the API's own error shape; `retry_after_s` adds a `Retry-After` header
 * (seconds), as a rate-limited (429) or overloaded (503) endpoint sends.
 */
export interface ErrorTurn {
  error: { status: number; message?: string; retry_after_s?: number };
}
/** The server accepts the request and never answers (until it is closed). */
export interface HangTurn {
  hang: true;
}

/**
 * Makes a turn an infrastructure failure in the first attempts of a retried run: in attempts 1 to `first_attempts`
 * (every attempt when absent) the turn answers this HTTP error instead of itself. The attempt is the job's
 * (`JobOptions.attempt`, set by `--retries`; a job that is no retry is attempt 1), not a count the server keeps, so
 * the CLI's own retries within an attempt get the error again, and concurrent jobs stay deterministic.
 */
export interface TurnFailure {
  status: number;
  first_attempts?: number;
  message?: string;
  retry_after_s?: number;
}

export type Turn = (TextTurn | JsonTurn | WriteFileTurn | ShellTurn | ActivateSkillTurn | EchoToolOutputTurn | ErrorTurn | HangTurn) & {
  /** Wait this long before answering. */
  delay_ms?: number;
  /** Answer an HTTP error instead in the first attempts of a retried run (see TurnFailure). */
  fail?: TurnFailure;
};

export interface Scenario {
  name?: string;
  description?: string;
  turns: Turn[];
  /** The turn played for requests past the end of `turns`. Default `{ "text": "Done." }`. */
  after_end?: Turn;
  /**
   * Token counts reported with every answer, each dialect in its own words: `input_tokens` is every input token
   * (cached ones included), `cached_input_tokens` and `cache_write_tokens` parts of it; `output_tokens` every output
   * token, `reasoning_tokens` part of it.
   */
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cached_input_tokens?: number;
    cache_write_tokens?: number;
    reasoning_tokens?: number;
  };
  /**
   * Other scripts for other conversations: the first branch whose `prompt_contains` text appears in the request
   * plays its own `turns` (a repair turn's prompt, say, gets a different answer than the first run's). A list of
   * texts matches when every one appears (this query AND the skill's description in the CLI's skill list).
   */
  branches?: Array<{ prompt_contains: string | string[]; turns: Turn[] }>;
}

const turnSchema = {
  type: "object",
  properties: {
    delay_ms: { type: "integer", minimum: 0 },
    text: { type: "string" },
    json: {},
    write_file: {
      type: "object",
      required: ["path", "content"],
      additionalProperties: false,
      properties: { path: { type: "string", minLength: 1 }, content: { type: "string" } },
    },
    shell: {
      type: "object",
      required: ["command"],
      additionalProperties: false,
      properties: { command: { type: "string", minLength: 1 } },
    },
    error: {
      type: "object",
      required: ["status"],
      additionalProperties: false,
      properties: {
        status: { type: "integer", minimum: 400, maximum: 599 },
        message: { type: "string" },
        retry_after_s: { type: "integer", minimum: 0, maximum: 86400 },
      },
    },
    fail: {
      type: "object",
      required: ["status"],
      additionalProperties: false,
      properties: {
        status: { type: "integer", minimum: 400, maximum: 599 },
        first_attempts: { type: "integer", minimum: 1, maximum: 1000 },
        message: { type: "string" },
        retry_after_s: { type: "integer", minimum: 0, maximum: 86400 },
      },
    },
    activate_skill: {
      type: "object",
      required: ["name"],
      additionalProperties: false,
      properties: { name: { type: "string", minLength: 1 } },
    },
    hang: { const: true },
    echo_tool_output: { const: true },
  },
  additionalProperties: false,
  oneOf: ["text", "json", "write_file", "shell", "activate_skill", "echo_tool_output", "error", "hang"].map((k) => ({ required: [k] })),
};

export const SCENARIO_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "skillrig mock-model scenario",
  type: "object",
  required: ["turns"],
  additionalProperties: false,
  properties: {
    $schema: { type: "string" },
    name: { type: "string" },
    description: { type: "string" },
    turns: { type: "array", minItems: 1, items: turnSchema },
    after_end: turnSchema,
    usage: {
      type: "object",
      additionalProperties: false,
      properties: {
        input_tokens: { type: "integer", minimum: 0 },
        output_tokens: { type: "integer", minimum: 0 },
        cached_input_tokens: { type: "integer", minimum: 0 },
        cache_write_tokens: { type: "integer", minimum: 0 },
        reasoning_tokens: { type: "integer", minimum: 0 },
      },
    },
    branches: {
      type: "array",
      items: {
        type: "object",
        required: ["prompt_contains", "turns"],
        additionalProperties: false,
        properties: {
          prompt_contains: {
            oneOf: [
              { type: "string", minLength: 1 },
              { type: "array", minItems: 1, items: { type: "string", minLength: 1 } },
            ],
          },
          turns: { type: "array", minItems: 1, items: turnSchema },
        },
      },
    },
  },
} as const;

const validator = compileSchema<Scenario>(SCENARIO_SCHEMA as unknown as Record<string, unknown>);

/** Validates a scenario value; throws `invalid_config` naming each bad place by JSON pointer. */
export function validateScenario(value: unknown, file?: string): Scenario {
  const violations = validator.validate(value);
  if (violations.length > 0) {
    throw new SkillrigError(
      "invalid_config",
      `invalid mock-model scenario${file ? ` in ${file}` : ""}: ${formatViolations(violations)} (each turn needs exactly one of text, json, write_file, shell, activate_skill, echo_tool_output, error, hang)`,
      { file, pointer: violations[0]?.pointer, violations: violations.map((v) => ({ ...v, file })) },
    );
  }
  return value as Scenario;
}

/** Reads and validates a scenario JSON file. */
export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new SkillrigError("invalid_config", `cannot read mock-model scenario ${file}: ${(error as Error).message}`, { file });
  }
  return validateScenario(parseJsonText(text, { file, what: "mock-model scenario", code: "invalid_config" }), file);
}

/**
 * The turn for a request whose history already holds `modelTurns` model turns; `requestText` (the raw body)
 * picks a branch.
 */
export function turnAt(scenario: Scenario, modelTurns: number, requestText = ""): { turn: Turn; index: number } {
  // A text is found as is or as it reads inside the request's JSON (quotes and newlines escaped).
  const contains = (text: string) => requestText.includes(text) || requestText.includes(JSON.stringify(text).slice(1, -1));
  const branch = scenario.branches?.find((b) =>
    typeof b.prompt_contains === "string" ? contains(b.prompt_contains) : b.prompt_contains.every(contains),
  );
  const turns = branch?.turns ?? scenario.turns;
  if (modelTurns < turns.length) return { turn: turns[modelTurns]!, index: modelTurns };
  return { turn: scenario.after_end ?? { text: "Done." }, index: modelTurns };
}

/**
 * The turn as attempt `attempt` of a run plays it: its `fail` error while the attempt is one of the failing ones,
 * else the turn itself (without `fail`).
 */
export function turnForAttempt(turn: Turn, attempt: number): Turn {
  const { fail, ...rest } = turn;
  if (!fail) return turn;
  if (fail.first_attempts !== undefined && attempt > fail.first_attempts) return rest as Turn;
  const error: ErrorTurn["error"] = {
    status: fail.status,
    ...(fail.message !== undefined ? { message: fail.message } : {}),
    ...(fail.retry_after_s !== undefined ? { retry_after_s: fail.retry_after_s } : {}),
  };
  return { error, ...(turn.delay_ms !== undefined ? { delay_ms: turn.delay_ms } : {}) };
}

/** The text a text, json or echo_tool_output turn answers with (`toolOutput`: the last tool output in the request). */
export function turnText(turn: Turn, toolOutput?: string): string | undefined {
  if ("text" in turn) return turn.text;
  if ("json" in turn) return JSON.stringify(turn.json);
  if ("echo_tool_output" in turn) return toolOutput ?? "(no tool output in the conversation)";
  return undefined;
}
