/**
 * `script` assertions: the eval author's command, run in the deliverable sandbox (the level and limits a deliverable
 * gets; as root a per-run uid) with a fresh copy of outputs/ as its working folder. It reads the skill's evals/
 * (read-only) at `$SKILLRIG_EVALS_DIR` and the final answer at `$SKILLRIG_ANSWER_FILE`. Exit 0 is passed.
 *
 * The agent's files sit in the checker's working folder, so they must not change what the checker runs:
 * `PYTHONSAFEPATH=1` keeps the working folder off Python's path (an agent's `json.py` or `sitecustomize.py` does not
 * shadow the checker's imports), `PYTHONNOUSERSITE=1` and HOME outside the copy keep a `.local/.../usercustomize.py`
 * or a dotfile (`.gitconfig`) of the agent's from being read, and the answer and evals/ folders are read-only.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_LIMITS, isSkillrigError, resolveCaseLimits, type Runner, type SandboxResult } from "@skillrig/core";
// The `sandbox` config section (its limits) is declared by @skillrig/sandbox.
import type {} from "@skillrig/sandbox";
import type { DeterministicAssertion } from "../format.js";
import { copyOutputs } from "../outputs.js";
import type { Verdict } from "./deterministic.js";
import { requireGradingLevel } from "./sandbox-level.js";

/** A script's time limit when the assertion gives none. */
export const SCRIPT_TIMEOUT_MS = 60_000;
/** Characters of the script's output quoted in the evidence (its tail). */
const TAIL_CHARS = 600;

export interface ScriptContext {
  runner: Runner;
  skillDir: string;
  outputsDir: string;
  answer?: unknown;
  signal?: AbortSignal;
}

function answerText(answer: unknown): string {
  if (answer === undefined) return "";
  return typeof answer === "string" ? answer : JSON.stringify(answer);
}

function tail(result: SandboxResult): string {
  const out = `${result.stdout}${result.stdout && result.stderr ? "\n" : ""}${result.stderr}`.trimEnd();
  if (!out) return "no output";
  return out.length > TAIL_CHARS ? `...${out.slice(-TAIL_CHARS)}` : out;
}

function howItEnded(result: SandboxResult, timeoutMs: number): string {
  if (result.timedOut || result.cpuLimited) return `it passed its time limit (${timeoutMs} ms) and was killed`;
  if (result.memoryLimited) return "it passed its memory limit";
  if (result.outputLimited) return "it printed more than its output limit";
  if (result.diskLimited) return "its working folder passed its disk limit";
  if (result.fileSizeLimited) return "it wrote a file past its size limit";
  if (result.signal) return `it was killed by ${result.signal}`;
  return `it exited with code ${result.exitCode}`;
}

export async function gradeScript(assertion: Extract<DeterministicAssertion, { kind: "script" }>, ctx: ScriptContext): Promise<Verdict> {
  const timeoutMs = assertion.timeout_ms ?? SCRIPT_TIMEOUT_MS;
  const scratch = await mkdtemp(join(tmpdir(), "skillrig-eval-script-"));
  try {
    const work = join(scratch, "outputs");
    const answerDir = join(scratch, "answer");
    copyOutputs(ctx.outputsDir, work);
    await mkdir(answerDir);
    const answerFile = join(answerDir, "answer.txt");
    await writeFile(answerFile, answerText(ctx.answer));
    const evalsDir = resolve(ctx.skillDir, "evals");
    const sandbox = ctx.runner.sandbox({ purpose: "script" });
    requireGradingLevel(sandbox);
    const limits = resolveCaseLimits({ limits: { timeout_ms: timeoutMs } }, undefined, { limits: ctx.runner.config.sandbox?.limits });
    const result = await sandbox.run({
      command: ["/bin/sh", "-c", assertion.command],
      cwd: work,
      readOnlyPaths: [evalsDir, answerDir],
      env: {
        SKILLRIG_EVALS_DIR: evalsDir,
        SKILLRIG_ANSWER_FILE: answerFile,
        SKILLRIG_OUTPUTS_DIR: work,
        PYTHONSAFEPATH: "1",
        PYTHONNOUSERSITE: "1",
        HOME: answerDir,
      },
      limits: { ...limits, outputBytes: limits.outputBytes ?? DEFAULT_LIMITS.outputBytes },
      signal: ctx.signal,
    });
    const passed = result.exitCode === 0 && result.signal === null && !result.timedOut && !result.cpuLimited && !result.outputLimited;
    return { passed, evidence: `${passed ? "exit code 0" : howItEnded(result, timeoutMs)}; output: ${tail(result)}` };
  } catch (error) {
    if (!isSkillrigError(error)) throw error;
    const why = `[${error.code}] ${error.message}`;
    return { passed: false, evidence: `the check could not run: ${why}`, error: `script \`${assertion.command}\`: ${why}` };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
