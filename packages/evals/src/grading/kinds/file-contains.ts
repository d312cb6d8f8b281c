/** `file_contains`: a file of outputs/ (or the final answer) contains `value`. */
import { defineAssertionKind } from "@skillrig/assertion-kit";
import type { DeterministicAssertion } from "../../format.js";
import { quote, subjectOf } from "../describe.js";
import { builtinFieldsSchema } from "./builtin-schema.js";

type FileContains = Extract<DeterministicAssertion, { kind: "file_contains" }>;

export const fileContainsKind = defineAssertionKind<FileContains>({
  name: "@skillrig/evals",
  kind: "file_contains",
  runsIn: "runner",
  description: "a file of outputs/ (or the final answer) contains a string",
  schema: builtinFieldsSchema("file_contains"),
  describe: (a) => `${subjectOf(a)} contains ${quote(a.value)}`,
  grade: async (a, run) => (await gradingOnDemand()).gradeTextAssertion(a, run),
});

/** The graders (and the regex worker they start) are loaded when an assertion is graded, not by every command. */
const gradingOnDemand = () => import("../deterministic.js");
