/**
 * The built-in solve skill (`skills/solve-task` in this package) and what a task lets the agent see.
 *
 * The only way task content reaches the agent is `solveInputs`, which reads the description, the deliverable type,
 * the entrypoint and `public_examples_preview`, and nothing else: the hidden `tests` never enter the job request,
 * so they cannot reach the prompt, SKILL.md, the run folder or the engine.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import type { Runner, Task, TestCase } from "@skillrig/core";
import { deliverableFileOf } from "@skillrig/oracle";

/** Absolute path of the shipped solve skill package. */
export const SOLVE_SKILL_DIR = fileURLToPath(new URL("../skills/solve-task", import.meta.url));
export const SOLVE_SKILL_ID = "solve-task";

/**
 * The file the agent writes: the deliverable type's `task.deliverableFile` (`solution.py` for a function, whose
 * entrypoint is a function name), else the entrypoint file. The oracle's, re-exported.
 */
export { deliverableFileOf };

export interface SolveExample {
  name: string;
  input_json: string;
  expected_json: string;
}

/** The solve skill's inline inputs for a task. Built from an explicit allow-list of fields; `tests` is never read. */
export function solveInputs(
  runner: Runner,
  task: Task,
): {
  task_id: string;
  description: string;
  deliverable_type: string;
  entrypoint: string;
  deliverable_file: string;
  examples: SolveExample[];
} {
  const preview: TestCase[] = task.public_examples_preview ?? [];
  return {
    task_id: task.task_id,
    description: task.description ?? "(no description given; infer the behaviour from the public examples)",
    deliverable_type: task.deliverable_type,
    entrypoint: task.entrypoint,
    deliverable_file: deliverableFileOf(runner, task),
    examples: preview.map((example) => ({
      name: example.name,
      input_json: JSON.stringify(example.input, null, 2),
      expected_json: JSON.stringify(example.expected, null, 2),
    })),
  };
}

/**
 * Copies the solve skill into `dir` with its artifact's `x-filename` set to the task's deliverable file (asked of
 * its type's plugin), so the skills package collects `tool.py` for a cli task and `solution.py` for a function task. `engines` are added to
 * the copy's `engines`: the skill has prompts tailored to gemini and codex, but any engine plugin may run it
 * (others get the skills package's default prompt, and SKILL.md carries the whole task). Returns the copy's path.
 */
export async function prepareSolveSkill(
  runner: Runner,
  task: Pick<Task, "deliverable_type" | "entrypoint">,
  dir: string,
  engines: string[] = [],
): Promise<string> {
  const target = join(dir, SOLVE_SKILL_ID);
  await cp(SOLVE_SKILL_DIR, target, { recursive: true });
  const runnerFile = join(target, "assets", "runner.json");
  const runnerJson = JSON.parse(await readFile(runnerFile, "utf8")) as { engines: string[] };
  runnerJson.engines = [...new Set([...runnerJson.engines, ...engines])];
  await writeFile(runnerFile, `${JSON.stringify(runnerJson, null, 2)}\n`);
  const schemaFile = join(target, "assets", "output.schema.json");
  const schema = JSON.parse(await readFile(schemaFile, "utf8")) as { properties: { deliverable: Record<string, unknown> } };
  schema.properties.deliverable["x-filename"] = deliverableFileOf(runner, task);
  await writeFile(schemaFile, `${JSON.stringify(schema, null, 2)}\n`);
  return target;
}
