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
import { DEFAULT_LIMITS, isSkillrigError, resolveCaseLimits, type Runner, type Sandbox, type SandboxResult } from "@skillrig/core";
// The `sandbox` config section (its limits) is declared by @skillrig/sandbox.
import type {} from "@skillrig/sandbox";
import type { DeterministicAssertion } from "../format.js";
import { copyOutputs } from "../outputs.js";
import { agentName } from "../result-names.js";
import type { Verdict } from "./deterministic.js";
import { openSealedChannel, type SealedChannel, type SealedRunBounds } from "./sealed-runs.js";
import { DEFAULT_EVALS_BOUNDS } from "../config-section.js";

/** A script's time limit when the assertion gives none. */
export const SCRIPT_TIMEOUT_MS = 60_000;
/** Characters of the script's output quoted in the evidence (its tail). */
const TAIL_CHARS = 600;

export interface ScriptContext {
  runner: Runner;
  skillDir: string;
  outputsDir: string;
  answer?: unknown;
  /** The deliverable sandbox (purpose "script"), its level already checked (grading does, for every sandbox kind). */
  sandbox: Sandbox;
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

/** The sealed-run bounds of the config (`evals.sealed_runs`), defaults filled in. */
function sealedBounds(runner: Runner): SealedRunBounds {
  const own = runner.config.evals?.sealed_runs ?? {};
  const d = DEFAULT_EVALS_BOUNDS.sealed_runs;
  return {
    maxRuns: own.max_runs ?? d.max_runs,
    maxRequestBytes: own.max_request_bytes ?? d.max_request_bytes,
    timeoutMs: own.timeout_ms ?? d.timeout_ms,
    maxConnections: own.max_connections ?? d.max_connections,
  };
}

export async function gradeScript(assertion: Extract<DeterministicAssertion, { kind: "script" }>, ctx: ScriptContext): Promise<Verdict> {
  const timeoutMs = assertion.timeout_ms ?? SCRIPT_TIMEOUT_MS;
  const scratch = await mkdtemp(join(tmpdir(), "skillrig-eval-script-"));
  let channel: SealedChannel | undefined;
  try {
    const work = join(scratch, "outputs");
    const answerDir = join(scratch, "answer");
    copyOutputs(ctx.outputsDir, work, { rename: agentName });
    await mkdir(answerDir);
    const answerFile = join(answerDir, "answer.txt");
    await writeFile(answerFile, answerText(ctx.answer));
    const evalsDir = resolve(ctx.skillDir, "evals");
    const sandbox = ctx.sandbox;
    const limitsFor = (ms: number) => {
      const limits = resolveCaseLimits({ limits: { timeout_ms: ms } }, undefined, { limits: ctx.runner.config.sandbox?.limits });
      return { ...limits, outputBytes: limits.outputBytes ?? DEFAULT_LIMITS.outputBytes };
    };
    channel = await openSealedChannel({
      sandbox,
      outputsDir: ctx.outputsDir,
      scratch,
      bounds: sealedBounds(ctx.runner),
      limitsFor,
      signal: ctx.signal,
    });
    const result = await sandbox.run({
      command: ["/bin/sh", "-c", assertion.command],
      cwd: work,
      readOnlyPaths: [evalsDir, answerDir, ...channel.readOnlyPaths],
      env: {
        SKILLRIG_EVALS_DIR: evalsDir,
        SKILLRIG_ANSWER_FILE: answerFile,
        SKILLRIG_OUTPUTS_DIR: work,
        SKILLRIG_SEALED_SOCKET: channel.socketPath,
        PYTHONPATH: channel.pythonPath,
        PYTHONSAFEPATH: "1",
        PYTHONNOUSERSITE: "1",
        HOME: answerDir,
      },
      limits: limitsFor(timeoutMs),
      signal: ctx.signal,
    });
    const passed = result.exitCode === 0 && result.signal === null && !result.timedOut && !result.cpuLimited && !result.outputLimited;
    return { passed, evidence: `${passed ? "exit code 0" : howItEnded(result, timeoutMs)}; output: ${tail(result)}` };
  } catch (error) {
    if (!isSkillrigError(error)) throw error;
    const why = `[${error.code}] ${error.message}`;
    return { passed: false, evidence: `the check could not run: ${why}`, error: `script \`${assertion.command}\`: ${why}` };
  } finally {
    await channel?.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
