/**
 * `gradeRun`: every assertion of one finished run, graded into grading.json's `Grading`. Deterministic kinds are
 * decided by code (deterministic.ts, script.ts, oracle.ts), plain strings by the judge (judge.ts, one job for all
 * of them). Results keep the assertions' order. Never throws for what the run left: a bad output is a failed
 * assertion whose evidence says why; something that stopped grading itself is also listed in `errors`.
 *
 * `pass_rate` is passed / total, and 1 when the run has no assertions: nothing was asserted, so nothing failed
 * (skill-creator's aggregation counts a run without expectations the same way; the specification says nothing).
 * A run with no assertions is still listed in the benchmark with total 0, so a reader can tell it apart.
 */
import type { AssertionResult, DeterministicAssertion, Grading } from "../format.js";
import type { GradeRun, GradeRunInput } from "../grading-contract.js";
import { assertionText } from "./describe.js";
import { gradeTextAssertion, type Verdict } from "./deterministic.js";
import { gradeWithJudge } from "./judge.js";
import { gradeOracle } from "./oracle.js";
import { gradeScript } from "./script.js";

export { OUTPUT_READ_CAP_BYTES } from "./output-file.js";
export { assertionText } from "./describe.js";

/** The evidence of a plain-string assertion when no judge engine was given. */
export const NO_JUDGE_EVIDENCE = "no judge: pass --judge <engine> to grade plain-string assertions";
export { SCRIPT_TIMEOUT_MS } from "./script.js";
export { JUDGE_SKILL_DIR, JUDGE_OUTPUTS_DIR, JUDGE_ANSWER_FILE } from "./judge.js";
export { REGEX_SEARCH_LIMIT_MS } from "./regex-match.js";

async function gradeDeterministic(assertion: DeterministicAssertion, input: GradeRunInput): Promise<Verdict> {
  switch (assertion.kind) {
    case "script":
      return gradeScript(assertion, input);
    case "oracle":
      return gradeOracle(assertion, input);
    default:
      return gradeTextAssertion(assertion, input.outputsDir, input.answer);
  }
}

export function summarizeResults(results: AssertionResult[]): Grading["summary"] {
  const total = results.length;
  const passed = results.filter((r) => r.passed).length;
  // Four decimals, as every rate in benchmark.json.
  return { passed, failed: total - passed, total, pass_rate: total === 0 ? 1 : Math.round((passed / total) * 10_000) / 10_000 };
}

export const gradeRun: GradeRun = async (input) => {
  const results: AssertionResult[] = new Array(input.assertions.length);
  const errors: string[] = [];
  const judged: Array<{ index: number; text: string }> = [];

  for (const [index, assertion] of input.assertions.entries()) {
    if (typeof assertion === "string") {
      judged.push({ index, text: assertion });
      continue;
    }
    // One at a time: scripts and the oracle run in the sandbox, and the machine is shared.
    const verdict = await gradeDeterministic(assertion, input);
    results[index] = { text: assertionText(assertion), passed: verdict.passed, evidence: verdict.evidence, graded_by: assertion.kind };
    if (verdict.error) errors.push(`assertion ${index + 1} (${assertion.kind}): ${verdict.error}`);
  }

  if (judged.length > 0) {
    const texts = judged.map((j) => j.text);
    if (!input.judge) {
      // A judge is an engine run of its own for every graded run, so none is picked silently.
      for (const { index, text } of judged) results[index] = { text, passed: false, evidence: NO_JUDGE_EVIDENCE, graded_by: "judge" };
    } else {
      const graded = await gradeWithJudge(texts, {
        runner: input.runner,
        engine: input.judge.engine,
        template: input.judge.template,
        prompt: input.prompt,
        expectedOutput: input.expectedOutput,
        outputsDir: input.outputsDir,
        answer: input.answer,
        runsDir: input.runsDir,
        signal: input.signal,
      });
      for (const [i, { index, text }] of judged.entries()) {
        const verdict = graded.verdicts[i]!;
        results[index] = { text, passed: verdict.passed, evidence: verdict.evidence, graded_by: "judge" };
      }
      if (graded.error) errors.push(graded.error);
    }
  }

  return { assertion_results: results, summary: summarizeResults(results), ...(errors.length > 0 ? { errors } : {}) };
};
