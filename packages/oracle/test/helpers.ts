/** Test helpers: a runner with the real plugins, and task files written to a temp folder. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { Runner, type SkillrigPlugin, type Task, type TestCase } from "@skillrig/core";
import scriptPlugin from "@skillrig/deliverable-script";
import cliPlugin from "@skillrig/deliverable-cli";
import sandboxPlugin from "@skillrig/sandbox";
import { compareModesPlugin, loadTask, resolveDeliverable, runTask, type RunTaskOptions } from "@skillrig/oracle";

const runners: Runner[] = [];
afterAll(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
});

/** A runner with the real plugins, closed after the test file's tests. */
export function makeRunner(extra: SkillrigPlugin[] = []): Runner {
  const runner = new Runner();
  runners.push(runner);
  for (const plugin of extra) runner.use(plugin);
  runner.use(compareModesPlugin()).use(scriptPlugin()).use(cliPlugin()).use(sandboxPlugin());
  return runner;
}

const created: string[] = [];
afterAll(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A temp folder removed after the test file's tests. */
export function tempDir(prefix = "oracle-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Writes files (path -> content) under a fresh temp folder; returns the folder. */
export function writeTree(files: Record<string, string>, dir = tempDir()): string {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return dir;
}

export function scriptTask(tests: TestCase[], extra: Partial<Task> = {}): Task {
  return { contract_version: "1.0", task_id: "t", deliverable_type: "script", entrypoint: "main.py", tests, ...extra };
}

/** Writes the task and the deliverable's files, loads and resolves both, and runs the task. */
export async function runTaskWith(
  task: Task | Record<string, unknown>,
  deliverableFiles: Record<string, string>,
  options: { runner?: Runner; jobs?: number; strict?: boolean; signal?: AbortSignal } = {},
) {
  const dir = writeTree({
    "task.json": JSON.stringify(task),
    ...Object.fromEntries(Object.entries(deliverableFiles).map(([p, c]) => [`deliverable/${p}`, c])),
  });
  const loaded = await loadTask(join(dir, "task.json"));
  const runner = options.runner ?? makeRunner();
  const deliverable = await resolveDeliverable(runner, join(dir, "deliverable"), loaded.task);
  const runOptions: RunTaskOptions = { loaded, deliverable, jobs: options.jobs ?? 2, strict: options.strict, signal: options.signal };
  const report = await runTask(runner, runOptions);
  const byName = Object.fromEntries(report.cases.map((c) => [c.name, c]));
  return { report, byName, dir, runner };
}
