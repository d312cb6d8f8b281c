/**
 * One plugin class for both process deliverables: it claims its type, validates case inputs and `expected`
 * in `resolveInput`, and runs cases in `execute`. The script and cli packages each make one instance.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyDeliverable, pointer, type Runner, type SkillrigPlugin, type TaskRun } from "@skillrig/core";
import { runProcessCase } from "./run-process-case.js";
import { validateProcessExpected, validateProcessInput, type ProcessDeliverableType, type ProcessInput } from "./validate-process-case.js";

export interface ProcessDeliverablePluginOptions {
  type: ProcessDeliverableType;
  /** Plugin name (the package name). */
  name: string;
}

export interface ProcessRunState {
  /** Temp folder holding this task run's deliverable copy and case folders; removed at taskEnd. */
  root: string;
  /** The entry file inside the copy of the deliverable. */
  entryFile: string;
}

export class ProcessDeliverablePlugin implements SkillrigPlugin {
  readonly name: string;
  readonly type: ProcessDeliverableType;

  constructor(options: ProcessDeliverablePluginOptions) {
    if (options.type !== "script" && options.type !== "cli")
      throw new TypeError(`type must be "script" or "cli", not ${JSON.stringify(options.type)}`);
    this.type = options.type;
    this.name = options.name;
  }

  apply(runner: Runner): void {
    const { name, type } = this;
    const mine = (run: TaskRun) => run.loaded.task.deliverable_type === type;
    runner.claim("deliverable", type, name, {
      description:
        type === "cli"
          ? "a Python command-line tool: python3 <entrypoint> argv..."
          : "a Python script: python3 <entrypoint>, fed stdin and files",
    });

    runner.hooks.taskStart.tapPromise(name, async (run) => {
      if (!mine(run)) return;
      const root = await mkdtemp(join(tmpdir(), `skillrig-${type}-`));
      // The sandbox runs cases as an unprivileged user, which must be able to read the copy.
      await chmod(root, 0o755);
      run.state.set(name, { root, entryFile: await copyDeliverable(run.deliverable, join(root, "deliverable")) } satisfies ProcessRunState);
    });

    runner.hooks.resolveInput.tap(name, (resolution, work) => {
      if (work.kind !== "case" || !mine(work.run)) return resolution;
      const casePointer = pointer("tests", work.index);
      const input = validateProcessInput(type, work.testCase.input, casePointer);
      const expected = validateProcessExpected(work.testCase.expected, casePointer);
      const violations = [...input.violations, ...expected.violations].map((v) => ({ ...v, file: work.run.loaded.displayPath }));
      return {
        ...resolution,
        value: input.value ?? resolution.value,
        violations: [...resolution.violations, ...violations],
      };
    });

    runner.hooks.execute.tapPromise(name, async (request) => {
      if (request.work.kind !== "case" || !mine(request.work.run)) return undefined;
      const state = request.work.run.state.get(name) as ProcessRunState | undefined;
      if (!state) throw new Error(`${name}: taskStart did not run for this task`);
      return runProcessCase({ runner, work: request.work, input: request.input as ProcessInput, ...state });
    });

    runner.hooks.taskEnd.tapPromise(name, async (run) => {
      const state = run.state.get(name) as ProcessRunState | undefined;
      if (!mine(run) || !state) return;
      await rm(state.root, { recursive: true, force: true });
      run.state.delete(name);
    });
  }
}
