/**
 * The judge: the plain-string assertions of one run, graded in one job of the built-in judge skill
 * (packages/evals/judge-skill) on the engine `judge.engine` names, through `runJob` like any skill job.
 *
 * The run's outputs reach the judge as files, never as prompt text: before the engine starts (runJob's `onPrompt`,
 * after the run folder exists), a copy of outputs/ is put in the judge's workspace as `run-outputs/` and the final
 * answer as `run-answer/answer.txt`. A folder in the workspace rather than one file input per output file, because
 * the judge skill's input schema is fixed (file inputs are named fields, one file each, and outputs are any number
 * of files in folders), and the workspace is where every engine's file tools already look. The inline input holds
 * only what the eval's author wrote (the prompt, the expected output, the assertions) and the paths.
 *
 * The answer is checked, not trusted: exactly one result per assertion, in order, each with its assertion's text.
 * Anything else (missing, extra or reordered results, no JSON answer, a failed job) and no judge result is used:
 * every judge assertion fails with evidence saying what was wrong, and grading's `errors` says so too. A result
 * that passes with empty evidence fails (the specification's rule: a PASS needs concrete evidence).
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isSkillrigError, type JobResult, type Runner, type SkillManifest } from "@skillrig/core";
import { loadSkill, runJob } from "@skillrig/skills";
import { copyOutputs } from "../outputs.js";
import { agentName } from "../result-names.js";
import type { Verdict } from "./deterministic.js";

/** The built-in judge skill (SKILL.md, assets/runner.json with the default prompt template). */
export const JUDGE_SKILL_DIR = fileURLToPath(new URL("../../judge-skill", import.meta.url));
/** Where the judge finds the run's files, relative to its workspace. */
export const JUDGE_OUTPUTS_DIR = "run-outputs";
export const JUDGE_ANSWER_FILE = "run-answer/answer.txt";
/** Output file names listed in the judge's input (the folder holds them all). */
const LISTED_FILES = 500;

export interface JudgeContext {
  runner: Runner;
  engine: string;
  /** The user's prompt template file (replaces the judge skill's). */
  template?: string;
  prompt: string;
  expectedOutput?: string;
  outputsDir: string;
  answer: unknown;
  runsDir: string;
  signal?: AbortSignal;
}

export interface JudgeGrading {
  verdicts: Verdict[];
  /** What went wrong with the judge as a whole (for grading.json's `errors`). */
  error?: string;
  job?: { job_id: string; run_dir: string };
}

function allFailed(count: number, evidence: string, error: string, job?: JudgeGrading["job"]): JudgeGrading {
  return { verdicts: Array.from({ length: count }, () => ({ passed: false, evidence })), error, ...(job ? { job } : {}) };
}

async function judgeSkill(engine: string, template: string | undefined): Promise<SkillManifest> {
  const skill = loadSkill(JUDGE_SKILL_DIR);
  const text = template === undefined ? skill.prompts.gemini! : await readFile(template, "utf8");
  return { ...skill, prompts: { [engine]: text } };
}

/** What is wrong with the judge's answer for these assertions, or undefined when it is one result per assertion, in order. */
export function answerProblem(assertions: string[], output: unknown): string | undefined {
  const results = (output as { assertion_results?: unknown } | undefined)?.assertion_results;
  if (!Array.isArray(results)) return "has no assertion_results list";
  for (const [i, text] of assertions.entries()) {
    const result = results[i] as { text?: unknown } | undefined;
    if (result === undefined)
      return `is missing a result for assertion ${i + 1} (${JSON.stringify(text)}): ${results.length} results for ${assertions.length} assertions`;
    if (result.text !== text) {
      const elsewhere = results.findIndex((r) => (r as { text?: unknown }).text === text);
      return elsewhere >= 0
        ? `has its results out of order: assertion ${i + 1} (${JSON.stringify(text)}) is result ${elsewhere + 1}`
        : `has result ${i + 1} for ${JSON.stringify(result.text)}, not for assertion ${i + 1} (${JSON.stringify(text)})`;
    }
  }
  if (results.length > assertions.length)
    return `has ${results.length - assertions.length} extra results (${results.length} for ${assertions.length} assertions)`;
  return undefined;
}

export async function gradeWithJudge(assertions: string[], ctx: JudgeContext): Promise<JudgeGrading> {
  let skill: SkillManifest;
  try {
    skill = await judgeSkill(ctx.engine, ctx.template);
  } catch (error) {
    const why = `the judge's prompt template ${ctx.template} could not be read: ${(error as Error).message}`;
    return allFailed(assertions.length, why, why);
  }
  const staging = await mkdtemp(join(tmpdir(), "skillrig-eval-judge-"));
  try {
    const files = copyOutputs(ctx.outputsDir, join(staging, "outputs"), { rename: agentName }).paths;
    const answer = ctx.answer === undefined ? "" : typeof ctx.answer === "string" ? ctx.answer : JSON.stringify(ctx.answer, null, 2);
    const job = await runJob(
      ctx.runner,
      {
        skill_id: skill.id,
        engine: ctx.engine,
        input: {
          assertions,
          prompt: ctx.prompt,
          ...(ctx.expectedOutput !== undefined ? { expected_output: ctx.expectedOutput } : {}),
          outputs_dir: JUDGE_OUTPUTS_DIR,
          output_files: files.slice(0, LISTED_FILES),
          answer_file: JUDGE_ANSWER_FILE,
        },
      },
      {
        skill,
        runsDir: ctx.runsDir,
        signal: ctx.signal,
        onPrompt: ({ work }) => {
          // The staged copy holds only folders and regular files (copyOutputs), so a plain recursive copy is safe.
          cpSync(join(staging, "outputs"), join(work.run.workspace, JUDGE_OUTPUTS_DIR), { recursive: true });
          mkdirSync(join(work.run.workspace, "run-answer"));
          writeFileSync(join(work.run.workspace, JUDGE_ANSWER_FILE), answer);
        },
      },
    ).catch((error: unknown): JobResult | string => {
      if (isSkillrigError(error)) return `[${error.code}] ${error.message}`;
      throw error;
    });
    if (typeof job === "string") {
      const why = `the judge's job was refused: ${job}`;
      return allFailed(assertions.length, why, why);
    }
    const ref = { job_id: job.job_id, run_dir: job.run_dir };
    if (job.status !== "succeeded") {
      const why = `the judge's job ${job.job_id} ${job.status}: ${job.error ? `[${job.error.code}] ${job.error.message}` : "no reason given"}`;
      return allFailed(assertions.length, why, why, ref);
    }
    const problem = answerProblem(assertions, job.output);
    if (problem) {
      const why = `the judge's answer ${problem} (job ${job.job_id}); no judge result was used`;
      return allFailed(assertions.length, why, why, ref);
    }
    const results = (job.output as { assertion_results: Array<{ passed: boolean; evidence: string }> }).assertion_results;
    return {
      job: ref,
      verdicts: results
        .slice(0, assertions.length)
        .map((r) =>
          r.passed && r.evidence.trim() === ""
            ? { passed: false, evidence: "the judge said passed but gave no evidence; a pass needs concrete evidence" }
            : { passed: r.passed, evidence: r.evidence },
        ),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
