/**
 * Drives the plugin straight through a core Runner's hooks (taskStart, resolveInput for every case, execute for
 * the valid ones, taskEnd), with the real @skillrig/sandbox, against a real Python module written to disk.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runner, type CaseOutcome, type InputResolution, type Task, type TaskRun, type TestCase } from "@skillrig/core";
import sandboxPlugin from "@skillrig/sandbox";
import deliverableFunction, { PLUGIN_NAME, type DeliverableFunctionOptions, type FunctionRunState } from "@skillrig/deliverable-function";

export interface DriveOptions {
  entrypoint: string;
  /** Source of solution.py. */
  source: string;
  tests: TestCase[];
  limits?: Task["limits"];
  jobs?: number;
  /** Called after taskStart, with the run (to reach the harness). */
  afterStart?: (run: TaskRun) => void | Promise<void>;
  plugin?: DeliverableFunctionOptions;
  /** Called after every case ran, before taskEnd stops the harness. */
  beforeEnd?: () => void | Promise<void>;
}

export interface Driven {
  resolutions: InputResolution[];
  /** One per case; undefined for cases found invalid. */
  outcomes: Array<CaseOutcome | undefined>;
  run: TaskRun;
}

const folders: string[] = [];

export async function writeModule(source: string, name = "solution.py"): Promise<{ dir: string; entryFile: string }> {
  const dir = await mkdtemp(join(tmpdir(), "skillrig-function-test-"));
  folders.push(dir);
  await chmod(dir, 0o755);
  const entryFile = join(dir, name);
  await writeFile(entryFile, source);
  return { dir, entryFile };
}

export async function removeModules(): Promise<void> {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export function makeCase(input: unknown, expected: unknown = null, extra: Partial<TestCase> = {}): TestCase {
  return { name: `case ${JSON.stringify(input)?.slice(0, 40)}`, input, expected, ...extra };
}

export async function drive(options: DriveOptions): Promise<Driven> {
  // SKILLRIG_TEST_SANDBOX_LEVEL=rlimits|none runs the same tests at a weaker isolation level.
  const level = (process.env.SKILLRIG_TEST_SANDBOX_LEVEL ?? "auto") as "auto" | "namespaces" | "rlimits" | "none";
  const runner = new Runner().use(sandboxPlugin({ level })).use(deliverableFunction(options.plugin));
  const deliverable = await writeModule(options.source);
  const task: Task = {
    contract_version: "1.0",
    task_id: "function-test",
    deliverable_type: "function",
    entrypoint: options.entrypoint,
    tests: options.tests,
    ...(options.limits ? { limits: options.limits } : {}),
  };
  const run: TaskRun = {
    loaded: { task, displayPath: "task.json" },
    deliverable: deliverable,
    sandbox: runner.sandbox({ purpose: "function" }),
    jobs: options.jobs ?? 2,
    signal: new AbortController().signal,
    state: new Map(),
  };
  await runner.hooks.taskStart.promise(run);
  try {
    await options.afterStart?.(run);
    const resolutions: InputResolution[] = [];
    for (const [index, testCase] of task.tests.entries()) {
      resolutions.push(
        await runner.hooks.resolveInput.promise({ value: testCase.input, violations: [] }, { kind: "case", run, testCase, index }),
      );
    }
    const execute = async (testCase: TestCase, index: number) => {
      const resolution = resolutions[index] as InputResolution;
      if (resolution.violations.length > 0) return undefined;
      const outcome = await runner.hooks.execute.promise({ work: { kind: "case", run, testCase, index }, input: resolution.value });
      return outcome as CaseOutcome;
    };
    // jobs 1: one case after the other, as the oracle runs them; otherwise all at once.
    const outcomes: Array<CaseOutcome | undefined> = [];
    if (options.jobs === 1) for (const [index, testCase] of task.tests.entries()) outcomes.push(await execute(testCase, index));
    else outcomes.push(...(await Promise.all(task.tests.map(execute))));
    await options.beforeEnd?.();
    return { resolutions, outcomes, run };
  } finally {
    await runner.hooks.taskEnd.promise(run, {
      task_id: task.task_id,
      deliverable_type: "function",
      summary: { total: 0, passed: 0, failed: 0, errored: 0, invalid: 0 },
      cases: [],
    });
    await runner.close();
  }
}

export function harnessOf(run: TaskRun): FunctionRunState {
  return run.state.get(PLUGIN_NAME) as FunctionRunState;
}
