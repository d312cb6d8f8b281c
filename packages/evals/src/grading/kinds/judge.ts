/**
 * `judge`: what only a model can decide, graded by the judge engine (`--judge`), all of a run's judge assertions in
 * one job (../judge.ts). A plain string in evals.json is this kind: `"the summary names the top customer"` reads as
 * `{ "kind": "judge", "text": "the summary names the top customer" }`.
 */
import { defineAssertionKind } from "@skillrig/assertion-kit";
import type { AssertionRun, AssertionVerdict } from "@skillrig/core";

type Judge = { kind: "judge"; text?: string };

/** The evidence of a judge assertion when no judge engine was given. */
export const NO_JUDGE_EVIDENCE = "no judge: pass --judge <engine> to grade plain-string assertions";

async function gradeTogether(assertions: Judge[], run: AssertionRun): Promise<{ verdicts: AssertionVerdict[]; error?: string }> {
  const texts = assertions.map((a) => a.text ?? "");
  // A judge is an engine run of its own for every graded run, so none is picked silently.
  if (!run.judge) return { verdicts: texts.map(() => ({ passed: false, evidence: NO_JUDGE_EVIDENCE })) };
  const { gradeWithJudge } = await import("../judge.js");
  const graded = await gradeWithJudge(texts, {
    runner: run.runner,
    engine: run.judge.engine,
    template: run.judge.template,
    prompt: run.prompt,
    expectedOutput: run.expectedOutput,
    outputsDir: run.outputsDir,
    answer: run.answer,
    runsDir: run.runsDir,
    signal: run.signal,
  });
  return { verdicts: graded.verdicts, ...(graded.error ? { error: graded.error } : {}) };
}

export const judgeKind = defineAssertionKind<Judge>({
  name: "@skillrig/evals",
  kind: "judge",
  runsIn: "runner",
  description: "a plain-language assertion graded by the judge engine (--judge)",
  schema: { type: "object", properties: {}, additionalProperties: false },
  check: (a) =>
    typeof a.text === "string" && a.text.trim() !== "" ? [] : [{ pointer: "/text", message: "a judge assertion needs its text" }],
  describe: (a) => a.text ?? "",
  async grade(a, run) {
    const graded = await gradeTogether([a], run);
    return { ...graded.verdicts[0]!, ...(graded.error ? { error: graded.error } : {}) };
  },
  gradeTogether,
});
