/**
 * `gradeRun`: every assertion of one finished run, graded into grading.json's `Grading` by the kind it names, as
 * the runner's `assertion` hook declares it (kind-registry.ts; the built-in kinds are builtin-kinds.ts). A plain
 * string is a `judge` assertion. Kinds that grade together (the judge: one engine job) get all of theirs at once,
 * after the others. Results keep the assertions' order. Never throws for what the run left: a bad output is a
 * failed assertion whose evidence says why; something that stopped grading itself is also listed in `errors`, and
 * a kind's plugin that throws or answers out of shape fails its assertion with an error naming the plugin.
 *
 * `pass_rate` is passed / total, and 0 when the run has no assertions: grading nothing is never a pass (loadEvals
 * refuses such a case before anything runs; this is the backstop for a caller of gradeRun).
 */
import { readOutputFile } from "@skillrig/assertion-kit";
import { type AssertionObject, type AssertionRun, type AssertionVerdict, isSkillrigError } from "@skillrig/core";
import type { Assertion, AssertionResult, Grading } from "../format.js";
import type { GradeRun, GradeRunInput } from "../grading-contract.js";
import { storedPath } from "../result-names.js";
import { registeredKind, type RegisteredKind } from "./kind-registry.js";
import { requireGradingLevel } from "./sandbox-level.js";

export { OUTPUT_READ_CAP_BYTES } from "@skillrig/assertion-kit";
export { assertionText } from "./describe.js";
export { NO_JUDGE_EVIDENCE } from "./kinds/judge.js";
export { SCRIPT_TIMEOUT_MS } from "./script.js";
export { JUDGE_SKILL_DIR, JUDGE_OUTPUTS_DIR, JUDGE_ANSWER_FILE } from "./judge.js";
export { REGEX_SEARCH_LIMIT_MS } from "./regex-match.js";
export { BUILTIN_ASSERTION_KINDS, builtinAssertionKinds } from "./builtin-kinds.js";
export { registeredKind, registeredKindNames } from "./kind-registry.js";
export type { RegisteredKind } from "./kind-registry.js";

export function summarizeResults(results: AssertionResult[]): Grading["summary"] {
  const total = results.length;
  const passed = results.filter((r) => r.passed).length;
  // Four decimals, as every rate in benchmark.json.
  // Fail closed: nothing graded is not a pass (evals.json refuses a case without assertions; this is the backstop).
  return { passed, failed: total - passed, total, pass_rate: total === 0 ? 0 : Math.round((passed / total) * 10_000) / 10_000 };
}

/** A plain string is shorthand for a judge assertion. */
function asObject(assertion: Assertion): AssertionObject {
  return typeof assertion === "string" ? { kind: "judge", text: assertion } : (assertion as AssertionObject);
}

/** The verdict as the kind's plugin gave it, when it has the shape; else a failed verdict saying what was wrong. */
function checkedVerdict(verdict: unknown, kind: RegisteredKind): AssertionVerdict {
  const v = verdict as Partial<AssertionVerdict> | undefined;
  if (typeof v !== "object" || v === null || typeof v.passed !== "boolean" || typeof v.evidence !== "string") {
    const why = `plugin "${kind.plugin}" answered for assertion kind "${kind.name}" without { passed: boolean, evidence: string }`;
    return { passed: false, evidence: why, error: why };
  }
  // The specification's rule: a pass needs concrete evidence.
  if (v.passed && v.evidence.trim() === "")
    return { passed: false, evidence: `plugin "${kind.plugin}" said passed but gave no evidence; a pass needs concrete evidence` };
  return { passed: v.passed, evidence: v.evidence, ...(typeof v.error === "string" ? { error: v.error } : {}) };
}

/** What a plugin's throw becomes: the assertion fails, naming the plugin (a throw is a bug, not a verdict). */
function thrownVerdict(error: unknown, kind: RegisteredKind): AssertionVerdict {
  const why = isSkillrigError(error)
    ? `[${error.code}] ${error.message}`
    : `plugin "${kind.plugin}" threw while grading: ${error instanceof Error ? error.message : String(error)}`;
  return { passed: false, evidence: `the assertion could not be graded: ${why}`, error: why };
}

/** The run as a kind sees it; a `sandbox` kind gets the deliverable sandbox, refused at a weak level nobody named. */
function runFor(input: GradeRunInput, kind: RegisteredKind): AssertionRun {
  const run: AssertionRun = {
    runner: input.runner,
    skillDir: input.skillDir,
    prompt: input.prompt,
    ...(input.expectedOutput !== undefined ? { expectedOutput: input.expectedOutput } : {}),
    outputsDir: input.outputsDir,
    // outputs/ keeps the agent's `grading.json` as `grading.json.from-agent` (result-names.ts).
    readOutput: (path) => readOutputFile(input.outputsDir, storedPath(path)),
    ...(input.answer !== undefined ? { answer: input.answer } : {}),
    ...(input.jobDir !== undefined ? { jobDir: input.jobDir } : {}),
    ...(input.judge ? { judge: input.judge } : {}),
    runsDir: input.runsDir,
    ...(input.signal ? { signal: input.signal } : {}),
  };
  if (kind.kind.runsIn !== "sandbox") return run;
  const sandbox = input.runner.sandbox({ purpose: "script" });
  requireGradingLevel(sandbox);
  return { ...run, sandbox };
}

export const gradeRun: GradeRun = async (input) => {
  if (input.assertions.length === 0)
    return { assertion_results: [], summary: summarizeResults([]), errors: ["the run has no assertions: nothing was graded"] };
  const results: AssertionResult[] = new Array(input.assertions.length);
  const errors: string[] = [];
  const together = new Map<string, { kind: RegisteredKind; items: Array<{ index: number; assertion: AssertionObject }> }>();

  const record = (index: number, assertion: AssertionObject, kind: RegisteredKind | undefined, verdict: AssertionVerdict) => {
    const name = kind?.name ?? assertion.kind;
    const text = assertion.text ?? (kind ? safeDescribe(kind, assertion) : `${name} assertion`);
    results[index] = { text, passed: verdict.passed, evidence: verdict.evidence, graded_by: name };
  };

  for (const [index, original] of input.assertions.entries()) {
    const assertion = asObject(original);
    const kind = registeredKind(input.runner, assertion.kind);
    if (!kind) {
      // loadEvals refuses this before anything runs; the backstop for a caller of gradeRun.
      const why = `no plugin handles assertion kind "${assertion.kind}"`;
      record(index, assertion, undefined, { passed: false, evidence: why });
      errors.push(`assertion ${index + 1} (${assertion.kind}): ${why}`);
      continue;
    }
    if (kind.kind.gradeTogether) {
      const group = together.get(kind.name) ?? { kind, items: [] };
      group.items.push({ index, assertion });
      together.set(kind.name, group);
      continue;
    }
    // One at a time: scripts and the oracle run in the sandbox, and the machine is shared.
    let verdict: AssertionVerdict;
    try {
      verdict = checkedVerdict(await kind.kind.grade(assertion, runFor(input, kind)), kind);
    } catch (error) {
      verdict = thrownVerdict(error, kind);
    }
    record(index, assertion, kind, verdict);
    if (verdict.error) errors.push(`assertion ${index + 1} (${kind.name}): ${verdict.error}`);
  }

  for (const { kind, items } of together.values()) {
    let verdicts: AssertionVerdict[];
    let error: string | undefined;
    try {
      const graded = await kind.kind.gradeTogether!(
        items.map((i) => i.assertion),
        runFor(input, kind),
      );
      error = graded.error;
      verdicts =
        graded.verdicts.length === items.length
          ? graded.verdicts.map((v) => checkedVerdict(v, kind))
          : items.map(() => {
              const why = `plugin "${kind.plugin}" gave ${graded.verdicts.length} verdicts for ${items.length} "${kind.name}" assertions`;
              error = why;
              return { passed: false, evidence: why };
            });
    } catch (thrown) {
      const verdict = thrownVerdict(thrown, kind);
      error = verdict.error;
      verdicts = items.map(() => verdict);
    }
    for (const [i, { index, assertion }] of items.entries()) record(index, assertion, kind, verdicts[i]!);
    if (error) errors.push(error);
  }

  return { assertion_results: results, summary: summarizeResults(results), ...(errors.length > 0 ? { errors } : {}) };
};

function safeDescribe(kind: RegisteredKind, assertion: AssertionObject): string {
  try {
    return kind.kind.describe(assertion);
  } catch {
    return `${kind.name} assertion`;
  }
}
