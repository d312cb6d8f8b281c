/** `script`: the eval author's command, run in the sandbox on a copy of outputs/; exit 0 is passed (../script.ts). */
import { defineAssertionKind } from "@skillrig/assertion-kit";
import type { DeterministicAssertion } from "../../format.js";
import { builtinFieldsSchema } from "./builtin-schema.js";

type Script = Extract<DeterministicAssertion, { kind: "script" }>;

export const scriptKind = defineAssertionKind<Script>({
  name: "@skillrig/evals",
  kind: "script",
  runsIn: "sandbox",
  description: "a command run in the sandbox on a copy of outputs/ exits 0",
  schema: builtinFieldsSchema("script"),
  describe: (a) => `the check \`${a.command}\` passes`,
  async grade(a, run) {
    const { gradeScript } = await import("../script.js");
    // runsIn "sandbox": grading always hands the sandbox over.
    return gradeScript(a, { ...run, sandbox: run.sandbox! });
  },
});
