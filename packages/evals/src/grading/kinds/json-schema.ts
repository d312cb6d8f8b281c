/** `json_schema`: a file of outputs/ (or the final answer) is JSON valid against an inline schema (patterns in RE2). */
import { defineAssertionKind } from "@skillrig/assertion-kit";
import type { Violation } from "@skillrig/core";
import type { DeterministicAssertion } from "../../format.js";
import { compileAuthorSchema } from "../author-schema.js";
import { subjectOf } from "../describe.js";
import { builtinFieldsSchema } from "./builtin-schema.js";

type JsonSchemaAssertion = Extract<DeterministicAssertion, { kind: "json_schema" }>;

export const jsonSchemaKind = defineAssertionKind<JsonSchemaAssertion>({
  name: "@skillrig/evals",
  kind: "json_schema",
  runsIn: "runner",
  description: "a file of outputs/ (or the final answer) is JSON valid against a schema",
  schema: builtinFieldsSchema("json_schema"),
  check(a) {
    const problems: Violation[] = [];
    if (typeof a.schema === "object" && a.schema !== null) {
      try {
        compileAuthorSchema(a.schema);
      } catch (error) {
        problems.push({ pointer: "/schema", message: `is not a usable JSON Schema: ${(error as Error).message}` });
      }
    }
    return problems;
  },
  describe: (a) => `${subjectOf(a)} is JSON valid against the schema`,
  grade: async (a, run) => (await gradingOnDemand()).gradeTextAssertion(a, run),
});

/** The graders (and the regex worker they start) are loaded when an assertion is graded, not by every command. */
const gradingOnDemand = () => import("../deterministic.js");
