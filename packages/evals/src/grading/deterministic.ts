/**
 * The kinds code decides on text: `file_contains`, `regex` and `json_schema`, on a file of outputs/ (read by
 * output-file.ts, links never followed, capped) or, without `path`, on the final answer (a string as is, any other
 * JSON value serialised for contains/regex, itself for json_schema).
 */
import { compileSchema } from "@skillrig/core";
import type { DeterministicAssertion } from "../format.js";
import { excerpt, quote, subjectOf } from "./describe.js";
import { readOutputFile } from "./output-file.js";
import { searchRegex } from "./regex-match.js";

export interface Verdict {
  passed: boolean;
  evidence: string;
  /** Why the assertion could not be graded at all (goes to grading.json's `errors` too). */
  error?: string;
}

type TextAssertion = Extract<DeterministicAssertion, { kind: "file_contains" | "regex" | "json_schema" }>;

type Subject = { ok: true; text: string; value?: unknown; isAnswer: boolean } | { ok: false; reason: string };

async function subject(assertion: TextAssertion, outputsDir: string, answer: unknown): Promise<Subject> {
  if (assertion.path !== undefined) {
    const read = await readOutputFile(outputsDir, assertion.path);
    return read.ok ? { ok: true, text: read.text, isAnswer: false } : read;
  }
  if (answer === undefined) return { ok: false, reason: "the run gave no final answer" };
  if (typeof answer === "string") return { ok: true, text: answer, value: answer, isAnswer: true };
  return { ok: true, text: JSON.stringify(answer), value: answer, isAnswer: true };
}

export async function gradeTextAssertion(assertion: TextAssertion, outputsDir: string, answer: unknown): Promise<Verdict> {
  const found = await subject(assertion, outputsDir, answer);
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
      const result = await searchRegex(assertion.pattern, assertion.flags ?? "", found.text);
      if ("timedOut" in result)
        return {
          passed: false,
          evidence: `the search for /${assertion.pattern}/ in ${name} took too long and was stopped`,
          error: `regex /${assertion.pattern}/ on ${name}: search stopped at its time limit`,
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
      let validate: ReturnType<typeof compileSchema>;
      try {
        validate = compileSchema(assertion.schema);
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
