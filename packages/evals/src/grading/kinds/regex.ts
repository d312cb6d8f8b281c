/** `regex`: a file of outputs/ (or the final answer) matches a JavaScript regular expression, searched with a time limit. */
import { defineAssertionKind } from "@skillrig/assertion-kit";
import type { Violation } from "@skillrig/core";
import type { DeterministicAssertion } from "../../format.js";
import { subjectOf } from "../describe.js";
import { builtinFieldsSchema } from "./builtin-schema.js";

type Regex = Extract<DeterministicAssertion, { kind: "regex" }>;

export const regexKind = defineAssertionKind<Regex>({
  name: "@skillrig/evals",
  kind: "regex",
  runsIn: "runner",
  description: "a file of outputs/ (or the final answer) matches a regular expression",
  schema: builtinFieldsSchema("regex"),
  check(a) {
    const problems: Violation[] = [];
    try {
      new RegExp(a.pattern, a.flags);
    } catch (error) {
      problems.push({ pointer: "/pattern", message: `is not a valid regular expression: ${(error as Error).message}` });
    }
    return problems;
  },
  describe: (a) => `${subjectOf(a)} matches /${a.pattern}/${a.flags ?? ""}`,
  grade: async (a, run) => (await gradingOnDemand()).gradeTextAssertion(a, run, run.runner.config.evals?.regex_time_limit_ms),
});

/** The graders (and the regex worker they start) are loaded when an assertion is graded, not by every command. */
const gradingOnDemand = () => import("../deterministic.js");
