/**
 * A deliverable type written with deliverable-kit's `defineDeliverable` says where its deliverables are: the file a
 * deliverable given as text is written to (`deliverableFile`) and how a user's path is read (`resolveDeliverable`).
 * Every entry point asks through the runner's hooks; here the oracle's own (`resolveDeliverable`,
 * `deliverableFileOf`, `deliverablesFromSamples`, then `runTask`) with a real runner on real files.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillrigError } from "@skillrig/core";
import { defineDeliverable, defineProcessDeliverable } from "@skillrig/deliverable-kit";
import { deliverableFileOf, deliverablesFromSamples, loadSuite, resolveDeliverable, runTask } from "@skillrig/oracle";
import { makeRunner, tempDir, writeTree } from "./helpers.js";

/** A "notes" deliverable: a `.txt` file, or a folder holding `answer.txt`; its cases compare the file's text. */
const notesPlugin = defineDeliverable<{ text: string }>({
  name: "test-notes",
  type: "notes",
  description: "a text file whose contents are the answer",
  deliverableFile: () => "answer/notes.txt",
  resolveDeliverable({ path, target, kind }) {
    if (kind === "dir") return { dir: target, entryFile: join(target, "answer.txt") };
    if (!target.endsWith(".txt")) throw new SkillrigError("usage", `deliverable ${path} is not a .txt file`, { field: "--deliverable" });
    return { dir: join(target, ".."), entryFile: target, entryOnly: true };
  },
  open: async ({ workspace }) => ({ text: await readFile(workspace.entryFile, "utf8") }),
  runCase: async (session, work) => ({
    actual: session.text,
    comparisons: [{ field: "text", expected: work.testCase.expected, actual: session.text, defaultMode: "trim" }],
  }),
});

const notes = { deliverable_type: "notes", entrypoint: "main" };
const notesTask = (id: string) =>
  JSON.stringify({
    contract_version: "1.0",
    task_id: id,
    deliverable_type: "notes",
    entrypoint: "main",
    tests: [{ name: "hi", input: null, expected: "hello" }],
  });

describe("a deliverable type's own path rule and file name (defineDeliverable)", () => {
  const runner = makeRunner([notesPlugin]);

  it("reads a user's path by the type's rule, and refuses what the rule refuses", async () => {
    const dir = writeTree({ "folder/answer.txt": "hello\n", "one.txt": "hello\n", "one.md": "hello\n" });
    expect(await resolveDeliverable(runner, "folder", notes, dir)).toEqual({
      dir: join(dir, "folder"),
      entryFile: join(dir, "folder/answer.txt"),
    });
    expect(await resolveDeliverable(runner, "one.txt", notes, dir)).toMatchObject({ entryFile: join(dir, "one.txt"), entryOnly: true });
    await expect(resolveDeliverable(runner, "one.md", notes, dir)).rejects.toThrow("deliverable one.md is not a .txt file");
    // The existence check is the oracle's, before any type is asked.
    await expect(resolveDeliverable(runner, "gone.txt", notes, dir)).rejects.toThrow("deliverable gone.txt does not exist");
  });

  it("writes a sample's text to the type's file, and grades what its rule found", async () => {
    expect(deliverableFileOf(runner, notes)).toBe("answer/notes.txt");
    const dir = writeTree({
      "tasks/n1.json": notesTask("n1"),
      "tasks/n2.json": notesTask("n2"),
      "given/answer.txt": "hello\n",
      "s.jsonl": [JSON.stringify({ task_id: "n1", solution: "hello\n" }), JSON.stringify({ task_id: "n2", path: "given" })].join("\n"),
    });
    const workDir = tempDir();
    const entries = await deliverablesFromSamples(runner, await loadSuite([join(dir, "tasks")]), join(dir, "s.jsonl"), { workDir });
    const [written, given] = entries.map((e) => e.samples[0]!.deliverable!);
    expect(written!.entryFile).toBe(join(workDir, "0", "answer/notes.txt"));
    expect(given!.entryFile).toBe(join(dir, "given/answer.txt"));
    for (const entry of entries) {
      const report = await runTask(runner, { loaded: entry.loaded, deliverable: entry.samples[0]!.deliverable!, jobs: 1 });
      expect(report.cases.map((c) => c.status)).toEqual(["passed"]);
    }
  });

  it("a type that does not tap them keeps the entrypoint rule: the entrypoint file, in a folder or by itself", async () => {
    const script = { deliverable_type: "script", entrypoint: "tool.py" };
    expect(deliverableFileOf(runner, script)).toBe("tool.py");
    const dir = writeTree({ "d/tool.py": "", "e/other.md": "" });
    expect(await resolveDeliverable(runner, "d", script, dir)).toEqual({ dir: join(dir, "d"), entryFile: join(dir, "d/tool.py") });
    expect(await resolveDeliverable(runner, "e/other.md", script, dir)).toMatchObject({
      entryFile: join(dir, "e/other.md"),
      entryOnly: true,
    });
  });
});

describe("a process deliverable type's own path rule and file name (defineProcessDeliverable)", () => {
  // A Python tool kept as a project: its program is src/<entrypoint>.py, and a deliverable is the project's folder.
  const projectPlugin = defineProcessDeliverable({
    name: "test-py-project",
    type: "py-project",
    description: "a Python project folder whose program is src/<entrypoint>.py",
    argv: false,
    deliverableFile: (task) => `src/${task.entrypoint}.py`,
    resolveDeliverable: ({ target, kind, task }) => {
      if (kind !== "dir") throw new SkillrigError("usage", "a py-project deliverable is a folder", { field: "--deliverable" });
      return { dir: target, entryFile: join(target, "src", `${task.entrypoint}.py`) };
    },
  });
  const runner = makeRunner([projectPlugin]);
  const task = { deliverable_type: "py-project", entrypoint: "tool" };

  it("names the file a sample's text is written to, reads a path by its rule, and grades the program it found", async () => {
    expect(deliverableFileOf(runner, task)).toBe("src/tool.py");
    const dir = writeTree({ "work/proj/src/tool.py": "print('hello')\n", "work/one.py": "" });
    const work = join(dir, "work");
    const deliverable = await resolveDeliverable(runner, "proj", task, work);
    expect(deliverable).toEqual({ dir: join(work, "proj"), entryFile: join(work, "proj/src/tool.py") });
    await expect(resolveDeliverable(runner, "one.py", task, work)).rejects.toThrow("a py-project deliverable is a folder");
    // The task file outside the deliverable's folder (the oracle refuses a folder that would carry it in).
    const file = join(dir, "task.json");
    await writeFile(
      file,
      JSON.stringify({
        contract_version: "1.0",
        task_id: "proj",
        deliverable_type: "py-project",
        entrypoint: "tool",
        tests: [{ name: "hi", input: { stdin: "" }, expected: { stdout: "hello\n", exit_code: 0 } }],
      }),
    );
    const [loaded] = await loadSuite([file], dir);
    const report = await runTask(runner, { loaded: loaded!, deliverable, jobs: 1 });
    expect(report.cases.map((c) => [c.status, c.message ?? null])).toEqual([["passed", null]]);
  });

  it("a type whose file would land outside the sample's folder is refused, naming the file, the type and the entrypoint", async () => {
    const escaping = defineProcessDeliverable({
      name: "test-escaping",
      type: "escaping",
      description: "writes its deliverable above the sample's folder",
      argv: false,
      deliverableFile: (t) => `../${t.entrypoint}.py`,
    });
    const dir = writeTree({
      "tasks/e.json": JSON.stringify({
        contract_version: "1.0",
        task_id: "e",
        deliverable_type: "escaping",
        entrypoint: "tool",
        tests: [{ name: "hi", input: { stdin: "" }, expected: { stdout: "" } }],
      }),
      "s.jsonl": JSON.stringify({ task_id: "e", solution: "print()\n" }),
    });
    const refused = deliverablesFromSamples(makeRunner([escaping]), await loadSuite([join(dir, "tasks")]), join(dir, "s.jsonl"), {
      workDir: tempDir(),
    });
    await expect(refused).rejects.toThrow(
      'the file "../tool.py" that deliverable type "escaping" writes for entrypoint "tool" points outside the deliverable folder',
    );
  });
});
