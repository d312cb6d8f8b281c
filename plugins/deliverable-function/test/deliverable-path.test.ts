/**
 * The function type's answers to where a deliverable is, asked the way every entry point asks them: through a real
 * Runner's hooks (the oracle's `resolveDeliverable`, `deliverableFileOf` and `deliverablesFromSamples`), on real files.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Runner } from "@skillrig/core";
import deliverableFunction from "@skillrig/deliverable-function";
import { deliverableFileOf, deliverablesFromSamples, loadSuite, resolveDeliverable } from "@skillrig/oracle";

const fn = { deliverable_type: "function", entrypoint: "f" };
const runner = new Runner().use(deliverableFunction());
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function writeTree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "function-paths-"));
  folders.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe("function deliverable paths", () => {
  it("a .py file, or the one module of a folder (tests and packaging files do not count)", async () => {
    const dir = await writeTree({
      "one/sol.py": "",
      "one/test_sol.py": "",
      "one/conftest.py": "",
      "one/__init__.py": "",
      "one/README.md": "",
    });
    expect(await resolveDeliverable(runner, "one/sol.py", fn, dir)).toEqual({
      dir: join(dir, "one"),
      entryFile: join(dir, "one/sol.py"),
      entryOnly: true,
    });
    expect(await resolveDeliverable(runner, "one", fn, dir)).toEqual({ dir: join(dir, "one"), entryFile: join(dir, "one/sol.py") });
  });

  it("several modules take solution.py, else it is an error naming them", async () => {
    const dir = await writeTree({ "a/solution.py": "", "a/helpers.py": "", "b/x.py": "", "b/y.py": "", "c/notes.txt": "" });
    expect((await resolveDeliverable(runner, "a", fn, dir)).entryFile).toBe(join(dir, "a/solution.py"));
    await expect(resolveDeliverable(runner, "b", fn, dir)).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("it has 2: x.py, y.py"),
    });
    await expect(resolveDeliverable(runner, "c", fn, dir)).rejects.toThrow(/must hold exactly one Python module .*it has none/);
    await expect(resolveDeliverable(runner, "c/notes.txt", fn, dir)).rejects.toThrow(/is not a Python file/);
  });

  it("a path that does not exist is the oracle's error, before the type is asked", async () => {
    await expect(resolveDeliverable(runner, "nope.py", fn, await writeTree({}))).rejects.toMatchObject({
      code: "usage",
      message: "deliverable nope.py does not exist",
    });
  });

  it("a deliverable given as text is written to solution.py (the entrypoint names the function)", async () => {
    expect(deliverableFileOf(runner, fn)).toBe("solution.py");
    const task = {
      contract_version: "1.0",
      task_id: "f1",
      deliverable_type: "function",
      entrypoint: "f",
      tests: [{ name: "c", input: [1], expected: 1 }],
    };
    const dir = await writeTree({
      "tasks/f1.json": JSON.stringify(task),
      "s.jsonl": JSON.stringify({ task_id: "f1", solution: "def f(x):\n    return x\n" }),
    });
    const workDir = join(dir, "work");
    const [entry] = await deliverablesFromSamples(runner, await loadSuite([join(dir, "tasks")]), join(dir, "s.jsonl"), { workDir });
    const deliverable = entry!.samples[0]!.deliverable!;
    expect(deliverable.entryFile).toBe(join(workDir, "0", "solution.py"));
    expect(await readFile(deliverable.entryFile, "utf8")).toBe("def f(x):\n    return x\n");
  });

  it("without the function plugin, a function task gets the oracle's entrypoint rule (the rule is the plugin's)", async () => {
    const bare = new Runner();
    expect(deliverableFileOf(bare, fn)).toBe("f");
    const dir = await writeTree({ "one/sol.py": "" });
    await expect(resolveDeliverable(bare, "one", fn, dir)).rejects.toThrow(/has no entrypoint file "f"/);
  });
});
