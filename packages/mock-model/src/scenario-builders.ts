/**
 * Typed builders for scenarios, for a team's own engine tests: `scenario(turn.writeFile("a.txt", "A"), turn.json({ ok: true }))`.
 * They build the same plain JSON a scenario file holds, and `scenario()` validates it at once, so a wrong turn is
 * reported where the test builds it (with its JSON pointer), not by the server mid-run.
 */
import {
  type ActivateSkillTurn,
  type EchoToolOutputTurn,
  type ErrorTurn,
  type HangTurn,
  type JsonTurn,
  type Scenario,
  type ShellTurn,
  type TextTurn,
  type Turn,
  type TurnFailure,
  validateScenario,
  type WriteFileTurn,
} from "./scenario.js";

/** Any turn may wait (`delay_ms`) and fail in the first attempts of a retried run (`fail`). */
type Timing = { delay_ms?: number; fail?: TurnFailure };

export const turn = {
  /** The model says `text` (a message, or the final answer). */
  text: (text: string, timing: Timing = {}): TextTurn & Timing => ({ text, ...timing }),
  /** The model answers with `value` as JSON text. */
  json: (value: unknown, timing: Timing = {}): JsonTurn & Timing => ({ json: value, ...timing }),
  /** The model asks the CLI to write a file with its own tool (relative to the CLI's working directory). */
  writeFile: (path: string, content: string, timing: Timing = {}): WriteFileTurn & Timing => ({ write_file: { path, content }, ...timing }),
  /** The model asks the CLI to run a shell command with its own tool. */
  shell: (command: string, timing: Timing = {}): ShellTurn & Timing => ({ shell: { command }, ...timing }),
  /** The model activates the installed skill `name` the CLI's native way (Skill, activate_skill, reading SKILL.md). */
  activateSkill: (name: string, timing: Timing = {}): ActivateSkillTurn & Timing => ({ activate_skill: { name }, ...timing }),
  /** The model answers with the output of the last tool call. */
  echoToolOutput: (timing: Timing = {}): EchoToolOutputTurn & Timing => ({ echo_tool_output: true, ...timing }),
  /** The server answers with an HTTP error in the dialect's error shape. */
  error: (status: number, message?: string, timing: Timing = {}): ErrorTurn & Timing => ({
    error: message === undefined ? { status } : { status, message },
    ...timing,
  }),
  /** The server never answers (until it is closed). */
  hang: (): HangTurn => ({ hang: true }),
  /**
   * `fail` for another turn: the endpoint answers `status` (with `Retry-After: retry_after_s` when given) in the first
   * `firstAttempts` attempts of a retried run, e.g. `turn.json(v, { fail: turn.failFirst(2, 429) })`.
   */
  failFirst: (firstAttempts: number, status: number, extra: { message?: string; retry_after_s?: number } = {}): TurnFailure => ({
    status,
    first_attempts: firstAttempts,
    ...extra,
  }),
};

/** A validated scenario from turns; `options` adds `after_end`, `usage`, `name`, `description` or `branches`. */
export function scenario(...parts: Array<Turn | Omit<Scenario, "turns">>): Scenario {
  const turns: Turn[] = [];
  let options: Omit<Scenario, "turns"> = {};
  parts.forEach((part, index) => {
    // The options object, if given, is the last argument and has none of a turn's keys.
    const isOptions = index === parts.length - 1 && ["after_end", "usage", "name", "description", "branches"].some((k) => k in part);
    if (isOptions) options = part as Omit<Scenario, "turns">;
    else turns.push(part as Turn);
  });
  return validateScenario({ ...options, turns });
}
