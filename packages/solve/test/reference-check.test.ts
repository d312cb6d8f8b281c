/**
 * The reference check runs the real oracle (function plugin, default sandbox) on a task's reference solution:
 * failing cases are flagged and taken out of scoring; a reference that passes nothing makes the task unusable.
 */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner, type LoadedTask, type Task } from "@skillrig/core";
import { compareModesPlugin } from "@skillrig/oracle";
import deliverableFunction from "@skillrig/deliverable-function";
import sandboxPlugin from "@skillrig/sandbox";
import { checkReference, loadSolveTasks, scoredTask, solve } from "@skillrig/solve";

let dir: string;
let runner: Runner;

const base: Omit<Task, "tests"> = {
  contract_version: "1.0",
  task_id: "double",
  deliverable_type: "function",
  entrypoint: "double",
  reference_solution: "ref/solution.py",
};

async function writeTask(name: string, task: Task): Promise<LoadedTask> {
  await writeFile(join(dir, `${name}.json`), JSON.stringify(task));
  const [loaded] = await loadSolveTasks([`${name}.json`], dir);
  return loaded!;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-ref-"));
  await mkdir(join(dir, "ref"));
  await writeFile(join(dir, "ref", "solution.py"), "def double(x):\n    return 2 * x\n");
  runner = new Runner({ cwd: dir }).use(compareModesPlugin()).use(deliverableFunction()).use(sandboxPlugin());
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("reference check", () => {
  it("flags the cases the reference fails and scores engines on the rest", async () => {
    const loaded = await writeTask("flagged", {
      ...base,
      tests: [
        { name: "two", input: [2], expected: 4 },
        { name: "wrong expected", input: [3], expected: 7 },
        { name: "zero", input: [0], expected: 0 },
      ],
    });
    const check = await checkReference(runner, loaded, { jobs: 2 });
    expect(check?.status).toBe("flagged");
    expect(check?.flagged).toEqual([expect.objectContaining({ name: "wrong expected", index: 1, status: "failed" })]);
    const scored = scoredTask(loaded, check);
    expect(scored.task.tests.map((t) => t.name)).toEqual(["two", "zero"]);
    // Each scored case keeps its own exact text: "zero" is graded against 0, not the flagged case's 7.
    expect(scored.caseJson).toEqual([
      { input: "[2]", expected: "4" },
      { input: "[0]", expected: "0" },
    ]);
    expect(loaded.task.tests).toHaveLength(3);
  });

  it("passes a task whose reference passes every case", async () => {
    const loaded = await writeTask("clean", { ...base, tests: [{ name: "two", input: [2], expected: 4 }] });
    const check = await checkReference(runner, loaded);
    expect(check).toMatchObject({ status: "passed", flagged: [] });
    expect(scoredTask(loaded, check)).toBe(loaded);
  });

  it("refuses a task whose reference passes no case", async () => {
    const loaded = await writeTask("hopeless", { ...base, tests: [{ name: "bad", input: [2], expected: 5 }] });
    await expect(checkReference(runner, loaded)).rejects.toMatchObject({ code: "invalid_task", pointer: "/reference_solution" });
  });

  it("names the task file and field when the reference solution does not exist", async () => {
    const loaded = await writeTask("missing-ref", {
      ...base,
      reference_solution: "ref/nope.py",
      tests: [{ name: "two", input: [2], expected: 4 }],
    });
    await expect(checkReference(runner, loaded)).rejects.toMatchObject({
      code: "invalid_task",
      file: "missing-ref.json",
      pointer: "/reference_solution",
      message: expect.stringContaining("ref/nope.py"),
    });
  });

  it("is skipped for a task without a reference solution", async () => {
    const { reference_solution: _, ...rest } = base;
    const loaded = await writeTask("no-ref", { ...rest, tests: [{ name: "two", input: [2], expected: 4 }] });
    expect(await checkReference(runner, loaded)).toBeUndefined();
  });
});

describe("solve input checks", () => {
  it("refuses an engine no plugin claims before running anything", async () => {
    const loaded = await writeTask("engine-check", { ...base, tests: [{ name: "two", input: [2], expected: 4 }] });
    await expect(solve(runner, { tasks: [loaded], engines: [{ name: "nope" }] })).rejects.toMatchObject({ code: "engine_not_found" });
  });

  it("lists every bad task file at once, and duplicate task ids", async () => {
    await writeFile(join(dir, "broken.json"), "{ not json");
    await writeFile(join(dir, "dup-a.json"), JSON.stringify({ ...base, tests: [{ name: "two", input: [2], expected: 4 }] }));
    await writeFile(join(dir, "dup-b.json"), JSON.stringify({ ...base, tests: [{ name: "two", input: [2], expected: 4 }] }));
    const error = await loadSolveTasks(["broken.json", "absent.json", "dup-a.json", "dup-b.json"], dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid_task" });
    const message = (error as Error).message;
    expect(message).toContain("3 of 4 task files are invalid");
    expect(message).toContain("broken.json is not valid JSON");
    expect(message).toContain("absent.json does not exist");
    expect(message).toContain('task_id "double" is used by both dup-a.json and dup-b.json');
  });
});
