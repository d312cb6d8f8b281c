/**
 * Drives the plugin straight through a core Runner's task hooks for type "function" (setUp, resolveInput for
 * every case, execute for the valid ones, tearDown), with the real @skillrig/sandbox, against a real Python module written to disk.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runner, type CaseOutcome, type CaseInputResolution, type Task, type TaskRun, type TestCase } from "@skillrig/core";
import sandboxPlugin from "@skillrig/sandbox";
import deliverableFunction, { type DeliverableFunctionOptions, type FunctionRunState } from "@skillrig/deliverable-function";

export interface DriveOptions {
  entrypoint: string;
  /** Source of solution.py. */
  source: string;
  tests: TestCase[];
  limits?: Task["limits"];
  jobs?: number;
  /** Called after setUp, with the run (to reach the harness). */
  afterStart?: (run: TaskRun) => void | Promise<void>;
  plugin?: DeliverableFunctionOptions;
  /** Called after every case ran, before tearDown stops the harness. */
  beforeEnd?: () => void | Promise<void>;
}

export interface Driven {
  resolutions: CaseInputResolution[];
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
  // SKILLRIG_TEST_SANDBOX_LEVEL=rlimits|none runs the same tests at a weaker isolation level. As root those run the
  // code as a per-run uid, which must be able to run python3: run them with PATH=/usr/bin:$PATH where the user's
  // python3 is a pyenv under /root (else every run is refused, sandbox_unavailable, naming /root).
  const level = (process.env.SKILLRIG_TEST_SANDBOX_LEVEL ?? "auto") as "auto" | "namespaces" | "rlimits" | "none";
  const plugin = deliverableFunction(options.plugin);
  const runner = new Runner().use(sandboxPlugin({ level })).use(plugin);
  sessions = (run) => plugin.sessionOf(run);
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
  };
  const hooks = runner.hooks.task;
  await hooks.setUp.for("function").promise(run);
  try {
    await options.afterStart?.(run);
    const resolutions: CaseInputResolution[] = [];
    for (const [index, testCase] of task.tests.entries()) {
      resolutions.push(
        await hooks.resolveInput.for("function").promise({ value: testCase.input, violations: [] }, { run, testCase, index }),
      );
    }
    const execute = async (testCase: TestCase, index: number) => {
      const resolution = resolutions[index] as CaseInputResolution;
      if (resolution.violations.length > 0) return undefined;
      const outcome = await hooks.execute.for("function").promise({ work: { run, testCase, index }, input: resolution.value });
      return outcome as CaseOutcome;
    };
    // jobs 1: one case after the other, as the oracle runs them; otherwise all at once.
    const outcomes: Array<CaseOutcome | undefined> = [];
    if (options.jobs === 1) for (const [index, testCase] of task.tests.entries()) outcomes.push(await execute(testCase, index));
    else outcomes.push(...(await Promise.all(task.tests.map(execute))));
    await options.beforeEnd?.();
    return { resolutions, outcomes, run };
  } finally {
    await hooks.tearDown.for("function").promise(run, {
      task_id: task.task_id,
      deliverable_type: "function",
      summary: { total: 0, passed: 0, failed: 0, errored: 0, invalid: 0 },
      cases: [],
    });
    await runner.close();
  }
}

let sessions: (run: TaskRun) => FunctionRunState | undefined = () => undefined;

/** The session of a run `drive` set up (its harness, restarts). */
export function harnessOf(run: TaskRun): FunctionRunState {
  const session = sessions(run);
  if (!session) throw new Error("harnessOf: the run is not set up");
  return session;
}
