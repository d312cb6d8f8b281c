/**
 * Validates a task against its own reference solution before any engine is scored on it.
 *
 * Choice: a case the reference solution does not pass is flagged and taken out of scoring for every engine, rather
 * than failing the batch or scoring it anyway. A case the task's own author cannot pass says more about the case
 * (a wrong `expected`, an input breaking the contract, a flaky limit) than about an engine, and scoring it would
 * make every engine look worse by the same unfair amount. The flagged cases stay in the report, with the
 * reference's verdict, so the task's author can fix them. A task whose reference passes no case at all cannot
 * be scored and is refused as invalid input before any engine runs.
 */
import { dirname } from "node:path";
import { type Deliverable, isSkillrigError, type LoadedTask, type Runner, SkillrigError, type TaskReport } from "@skillrig/core";
import { resolveDeliverable, runTask } from "@skillrig/oracle";
import type { ReferenceCheck } from "./report.js";

export async function checkReference(
  runner: Runner,
  loaded: LoadedTask,
  options: {
    jobs?: number;
    signal?: AbortSignal;
    /** Grades the reference elsewhere (a jobs server) instead of with `runTask` on `runner`. */
    grade?: (loaded: LoadedTask, deliverable: Deliverable) => Promise<TaskReport>;
  } = {},
): Promise<ReferenceCheck | undefined> {
  const ref = loaded.task.reference_solution;
  if (ref === undefined) return undefined;
  const base = loaded.file ? dirname(loaded.file) : runner.cwd;
  let deliverable: Deliverable;
  try {
    deliverable = await resolveDeliverable(runner, ref, loaded.task, base);
  } catch (error) {
    if (!isSkillrigError(error)) throw error;
    throw new SkillrigError("invalid_task", `the reference solution of ${loaded.displayPath} cannot be used: ${error.message}`, {
      file: loaded.displayPath,
      pointer: "/reference_solution",
      cause: error,
      hint: "reference_solution is a path relative to the task file",
    });
  }
  const report = options.grade
    ? await options.grade(loaded, deliverable)
    : await runTask(runner, { loaded, deliverable, jobs: options.jobs, signal: options.signal });
  const flagged = report.cases
    .filter((c) => c.status !== "passed")
    .map((c) => ({ name: c.name, index: c.index, status: c.status, message: c.message }));
  if (report.cases.length > 0 && flagged.length === report.cases.length) {
    throw new SkillrigError(
      "invalid_task",
      `the reference solution ${ref} of ${loaded.displayPath} passes none of its ${report.cases.length} cases, so the task cannot be scored (first: ${flagged[0]!.name}: ${flagged[0]!.message ?? flagged[0]!.status})`,
      { file: loaded.displayPath, pointer: "/reference_solution", details: { flagged } },
    );
  }
  return { file: ref, status: flagged.length === 0 ? "passed" : "flagged", flagged, report };
}

/** The task as engines are scored on it: without the cases its reference solution fails. */
export function scoredTask(loaded: LoadedTask, reference: ReferenceCheck | undefined): LoadedTask {
  if (!reference || reference.flagged.length === 0) return loaded;
  const flagged = new Set(reference.flagged.map((f) => f.index));
  // The exact case texts are by index of the tests: they are filtered with them, or each would grade another case.
  return {
    ...loaded,
    task: { ...loaded.task, tests: loaded.task.tests.filter((_, i) => !flagged.has(i)) },
    ...(loaded.caseJson ? { caseJson: loaded.caseJson.filter((_, i) => !flagged.has(i)) } : {}),
  };
}
