/**
 * Loads every task file of a batch before anything runs, and lists every bad one at once: a batch never starts
 * with a task that would fail to load halfway through.
 */
import { isSkillrigError, SkillrigError, type LoadedTask, type Violation } from "@skillrig/core";
import { loadTask } from "@skillrig/oracle";

export async function loadSolveTasks(paths: string[], cwd = process.cwd()): Promise<LoadedTask[]> {
  if (paths.length === 0) throw new SkillrigError("usage", "no task file given", { hint: "skillrig solve <task-file...> --engine <name>" });
  const loaded: LoadedTask[] = [];
  const problems: Array<{ path: string; error: SkillrigError }> = [];
  for (const path of paths) {
    try {
      loaded.push(await loadTask(path, cwd));
    } catch (error) {
      if (!isSkillrigError(error)) throw error;
      problems.push({ path, error });
    }
  }
  const seen = new Map<string, string>();
  for (const t of loaded) {
    const other = seen.get(t.task.task_id);
    if (other !== undefined) {
      problems.push({
        path: t.displayPath,
        error: new SkillrigError(
          "invalid_task",
          `task_id "${t.task.task_id}" is used by both ${other} and ${t.displayPath}; task ids must be unique in a batch`,
          {
            file: t.displayPath,
            pointer: "/task_id",
          },
        ),
      });
    }
    seen.set(t.task.task_id, t.displayPath);
  }
  if (problems.length === 1) throw problems[0]!.error;
  if (problems.length > 1) {
    const violations: Violation[] = problems.flatMap(({ path, error }) =>
      error.violations.length > 0
        ? error.violations.map((v) => ({ ...v, file: v.file ?? path }))
        : [{ file: error.file ?? path, pointer: error.pointer, message: error.message }],
    );
    throw new SkillrigError(
      "invalid_task",
      `${problems.length} of ${paths.length} task files are invalid:\n${problems.map((p) => `  ${p.error.message.replace(/\n/g, "\n  ")}`).join("\n")}`,
      {
        file: problems[0]!.error.file ?? problems[0]!.path,
        violations,
      },
    );
  }
  return loaded;
}
