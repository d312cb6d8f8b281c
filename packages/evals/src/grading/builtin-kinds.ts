/**
 * The assertion kinds @skillrig/evals brings, one line each, declared on core's `assertion` hook like any plugin's
 * (`skillrig` applies `builtinAssertionKinds()` after the config's plugins). A new kind is a module in kinds/ and a
 * line here.
 */
import type { SkillrigPlugin } from "@skillrig/core";
import type { AssertionKindPlugin } from "@skillrig/assertion-kit";
import { fileContainsKind } from "./kinds/file-contains.js";
import { jsonSchemaKind } from "./kinds/json-schema.js";
import { judgeKind } from "./kinds/judge.js";
import { oracleKind } from "./kinds/oracle.js";
import { regexKind } from "./kinds/regex.js";
import { scriptKind } from "./kinds/script.js";
import { fileChangedKind, skillActivatedKind, stepCountKind, toolNotUsedKind, toolSequenceKind, toolUsedKind } from "./kinds/trajectory.js";

export const BUILTIN_ASSERTION_KINDS: readonly AssertionKindPlugin[] = [
  fileContainsKind,
  regexKind,
  jsonSchemaKind,
  scriptKind,
  oracleKind,
  judgeKind,
  // Trajectory kinds: graded on the job's event log (the run's jobDir), not its outputs.
  toolUsedKind,
  toolNotUsedKind,
  toolSequenceKind,
  stepCountKind,
  fileChangedKind,
  skillActivatedKind,
];

/** One plugin applying every built-in kind. */
export function builtinAssertionKinds(): SkillrigPlugin {
  return {
    name: "@skillrig/evals",
    apply(runner) {
      for (const kind of BUILTIN_ASSERTION_KINDS) kind.apply(runner);
    },
  };
}
