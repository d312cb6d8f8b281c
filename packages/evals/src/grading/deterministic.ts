/**
 * How code decides the text kinds `file_contains`, `regex` and `json_schema`: on a file of outputs/ (read by
 * `run.readOutput`, links never followed, capped) or, without `path`, on the final answer (a string as is, any other
 * JSON value serialised for contains/regex, itself for json_schema). The kinds themselves are declared in kinds/.
 */
import type { AssertionRun, AssertionVerdict, CompiledSchema } from "@skillrig/core";
import type { DeterministicAssertion } from "../format.js";
import { compileAuthorSchema } from "./author-schema.js";
import { excerpt, quote, subjectOf } from "./describe.js";
import { REGEX_SEARCH_LIMIT_MS, searchRegex } from "./regex-match.js";

/** A kind's answer for one assertion (core's `AssertionVerdict`). */
export type Verdict = AssertionVerdict;

type TextAssertion = Extract<DeterministicAssertion, { kind: "file_contains" | "regex" | "json_schema" }>;

type Subject = { ok: true; text: string; value?: unknown; isAnswer: boolean } | { ok: false; reason: string };

async function subject(assertion: TextAssertion, run: Pick<AssertionRun, "readOutput">, answer: unknown): Promise<Subject> {
  if (assertion.path !== undefined) {
    const read = await run.readOutput(assertion.path);
    return read.ok ? { ok: true, text: read.text, isAnswer: false } : read;
  }
  if (answer === undefined) return { ok: false, reason: "the run gave no final answer" };
  if (typeof answer === "string") return { ok: true, text: answer, value: answer, isAnswer: true };
  return { ok: true, text: JSON.stringify(answer), value: answer, isAnswer: true };
}

/** `regexLimitMs`: a regex search's time limit (`evals.regex_time_limit_ms`). */
export async function gradeTextAssertion(
  assertion: TextAssertion,
  run: Pick<AssertionRun, "readOutput" | "answer">,
  regexLimitMs = REGEX_SEARCH_LIMIT_MS,
): Promise<Verdict> {
  const found = await subject(assertion, run, run.answer);
  if (!found.ok) return { passed: false, evidence: found.reason };
  const name = subjectOf(assertion);
  const size = `${found.text.length} characters`;
  switch (assertion.kind) {
    case "file_contains": {
      const at = found.text.indexOf(assertion.value);
      if (at >= 0)
        return { passed: true, evidence: `${name} contains it at character ${at}: ${excerpt(found.text, at, assertion.value.length)}` };
      return {
        passed: false,
        evidence: `${name} (${size}) does not contain ${quote(assertion.value)}; it begins ${quote(found.text, 120)}`,
      };
    }
    case "regex": {
      const result = await searchRegex(assertion.pattern, assertion.flags ?? "", found.text, regexLimitMs);
      if ("timedOut" in result)
        return {
          passed: false,
          evidence: `the search for /${assertion.pattern}/ in ${name} (${size}) passed its time limit of ${regexLimitMs} ms (evals.regex_time_limit_ms) and was stopped`,
          error: `regex /${assertion.pattern}/ on ${name}: search stopped at its time limit of ${regexLimitMs} ms`,
        };
      if ("error" in result)
        return {
          passed: false,
          evidence: `the pattern /${assertion.pattern}/ is invalid: ${result.error}`,
          error: `regex /${assertion.pattern}/: ${result.error}`,
        };
      if (result.matched)
        return {
          passed: true,
          evidence: `${name} matches at character ${result.index}: ${excerpt(found.text, result.index, result.match.length)}`,
        };
      return {
        passed: false,
        evidence: `${name} (${size}) has no match for /${assertion.pattern}/${assertion.flags ?? ""}; it begins ${quote(found.text, 120)}`,
      };
    }
    case "json_schema": {
      let value: unknown;
      if (found.isAnswer && typeof found.value !== "string") value = found.value;
      else {
        try {
          value = JSON.parse(found.text);
        } catch (error) {
          return { passed: false, evidence: `${name} is not JSON (${(error as Error).message}); it begins ${quote(found.text, 120)}` };
        }
      }
      let validate: CompiledSchema;
      try {
        validate = compileAuthorSchema(assertion.schema);
      } catch (error) {
        const why = `the assertion's schema is invalid: ${(error as Error).message}`;
        return { passed: false, evidence: why, error: why };
      }
      const violations = validate.validate(value);
      if (violations.length === 0) return { passed: true, evidence: `${name} is JSON valid against the schema` };
      const first = violations[0]!;
      return {
        passed: false,
        evidence: `${name} does not match the schema: ${first.pointer || "/"} ${first.message}${violations.length > 1 ? ` (and ${violations.length - 1} more)` : ""}`,
      };
    }
  }
}
