/** `oracle`: the code the agent left graded by the Task Oracle on a task's hidden cases (../oracle.ts). */
import { lstatSync } from "node:fs";
import { defineAssertionKind } from "@skillrig/assertion-kit";
import type { Violation } from "@skillrig/core";
import type { DeterministicAssertion } from "../../format.js";
import { insideFolder } from "../../skill-paths.js";
import { builtinFieldsSchema } from "./builtin-schema.js";
import { join } from "node:path";

type Oracle = Extract<DeterministicAssertion, { kind: "oracle" }>;

export const oracleKind = defineAssertionKind<Oracle>({
  name: "@skillrig/evals",
  kind: "oracle",
  runsIn: "sandbox",
  description: "the deliverable the agent left passes every case of a task",
  schema: builtinFieldsSchema("oracle"),
  check(a, { skillDir }) {
    const problems: Violation[] = [];
    // Relative to the skill folder, as a case's files are (grading resolves it there), and inside its evals/.
    const parts = a.task.split(/[\\/]/).filter((x) => x !== "" && x !== ".");
    const found: ReturnType<typeof insideFolder> =
      parts[0] !== "evals" || parts.length < 2
        ? { ok: false, why: `is ${JSON.stringify(a.task)}, not a path under evals/ (relative to the skill folder)` }
        : insideFolder(join(skillDir, "evals"), parts.slice(1).join("/"));
    if (!found.ok)
      problems.push({
        pointer: "/task",
        message: `the oracle task file ${found.why}; it must be a file inside the skill's evals/ folder (which never enters the agent's jail)`,
      });
    else if (!lstatSync(found.abs).isFile()) problems.push({ pointer: "/task", message: "is not a file" });
    return problems;
  },
  describe: (a) => `${a.deliverable} passes every case of ${a.task}`,
  async grade(a, run) {
    const { gradeOracle } = await import("../oracle.js");
    return gradeOracle(a, run);
  },
});
