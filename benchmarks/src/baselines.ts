/**
 * What skillrig is compared with, measured in the same run on the same machine:
 * - the fresh-process baseline: a new python3 per function case (common harness practice);
 * - the floor: every call in one Python process, no runner;
 * - a bare spawn: `python3 main.py` with no sandbox, no case folder, no comparison;
 * - the forked-case floor: an interpreter already up runs main.py as `__main__` in a fork per case, nothing else.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { isDeepStrictEqual } from "node:util";
import { runPool, runProcess } from "./run-process.js";
import type { FunctionWorkload, ProcessWorkload } from "./workloads.js";

const FRESH_PROCESS_HARNESS = fileURLToPath(new URL("./python/fresh_process_case.py", import.meta.url));
const FLOOR_HARNESS = fileURLToPath(new URL("./python/floor.py", import.meta.url));
const FORK_MAIN = fileURLToPath(new URL("./python/fork_main.py", import.meta.url));

interface TaskCase {
  name: string;
  input: unknown[];
  expected: unknown;
}

function readCases(taskFile: string): TaskCase[] {
  return (JSON.parse(readFileSync(taskFile, "utf8")) as { tests: TaskCase[] }).tests;
}

/**
 * Runs the first `sample` cases, one fresh interpreter each, `concurrency` at a time; returns wall ms per case.
 * Every result is checked, so a broken baseline cannot look fast.
 */
export async function freshProcessPerCaseMs(
  python: string,
  workload: FunctionWorkload,
  sample: number,
  concurrency: number,
  interpreterFlags: string[] = [],
): Promise<number> {
  const cases = readCases(workload.taskFile).slice(0, sample);
  const started = performance.now();
  await runPool(cases.length, concurrency, async (index) => {
    const testCase = cases[index] as TaskCase;
    const run = await runProcess(python, [...interpreterFlags, FRESH_PROCESS_HARNESS, workload.deliverableFile, workload.functionName], {
      stdin: JSON.stringify(testCase),
    });
    const got = run.exitCode === 0 ? (JSON.parse(run.stdout) as { result: unknown }).result : undefined;
    if (!isDeepStrictEqual(got, testCase.expected)) {
      throw new Error(
        `fresh-process baseline got ${JSON.stringify(got)} for ${testCase.name}, expected ${JSON.stringify(testCase.expected)}: ${run.stderr.slice(0, 300)}`,
      );
    }
  });
  return (performance.now() - started) / cases.length;
}

/**
 * Seconds the floor's call loop took for every case of the workload (interpreter start and import excluded).
 * `forkPerCase`: the isolation floor, a fork of the importing process per case.
 */
export async function floorLoopSeconds(python: string, workload: FunctionWorkload, forkPerCase = false): Promise<number> {
  const mode = forkPerCase ? "fork" : "call";
  const run = await runProcess(python, [FLOOR_HARNESS, workload.deliverableFile, workload.functionName, workload.taskFile, mode]);
  if (run.exitCode !== 0) throw new Error(`floor run failed: ${run.stderr.slice(0, 400)}`);
  const result = JSON.parse(run.stdout) as { cases: number; passed: number; loop_seconds: number };
  if (result.passed !== result.cases)
    throw new Error(`floor run passed ${result.passed}/${result.cases}: the workload's expected values are wrong`);
  return result.loop_seconds;
}

/**
 * The floor for a forked script or cli case (fork_main.py): ms per case of a fork of an interpreter that is already
 * up, running the workload's file as `__main__` with its argv and stdin in a fresh folder; start and compile excluded.
 */
export async function forkMainPerCaseMs(python: string, workload: ProcessWorkload, count: number): Promise<number> {
  const [file, ...argv] = workload.bareArgs;
  const run = await runProcess(
    python,
    [FORK_MAIN, join(workload.deliverableDir, file as string), String(count), workload.bareStdin, workload.expectedStdout, ...argv],
    { cwd: workload.deliverableDir },
  );
  const result = run.exitCode === 0 ? (JSON.parse(run.stdout) as { cases: number; passed: number; loop_seconds: number }) : undefined;
  if (!result || result.passed !== count)
    throw new Error(`fork_main.py exited ${run.exitCode} with ${run.stdout.trim()}: ${run.stderr.slice(0, 300)}`);
  return (result.loop_seconds * 1000) / count;
}

/** `python3 main.py` spawned `count` times one after the other in the deliverable folder; wall ms per spawn. */
export async function bareSpawnPerCaseMs(
  python: string,
  workload: ProcessWorkload,
  count: number,
  interpreterFlags: string[] = [],
): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const run = await runProcess(python, [...interpreterFlags, ...workload.bareArgs], {
      cwd: workload.deliverableDir,
      stdin: workload.bareStdin,
    });
    if (run.exitCode !== 0 || run.stdout !== workload.expectedStdout) {
      throw new Error(
        `bare spawn of ${workload.bareArgs.join(" ")} exited ${run.exitCode} with ${JSON.stringify(run.stdout)}: ${run.stderr.slice(0, 300)}`,
      );
    }
  }
  return (performance.now() - started) / count;
}

/** Wall ms of `python3 [flags] -c pass`, one at a time: what merely starting the interpreter costs here. */
export async function interpreterStartMs(python: string, count: number, interpreterFlags: string[] = []): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const run = await runProcess(python, [...interpreterFlags, "-c", "pass"]);
    if (run.exitCode !== 0)
      throw new Error(`${python} ${interpreterFlags.join(" ")} -c pass exited ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
  }
  return (performance.now() - started) / count;
}
