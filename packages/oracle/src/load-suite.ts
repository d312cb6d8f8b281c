/**
 * A suite: many task files, found from the paths a user names. A path that is a file is a task file. A folder is
 * searched (recursively, skipping node_modules and hidden folders) for files named `task.json`; a folder that holds
 * none has every `*.json` file directly inside it taken as a task file (the layout of a converted benchmark:
 * `HumanEval_0.json`, `HumanEval_1.json`, ...). Every problem across every file is collected and reported at once.
 */
import { readdir, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { isSkillrigError, SkillrigError, type LoadedTask, type Violation } from "@skillrig/core";
import { loadTask } from "./load-task.js";

/** The task files a list of files and folders names, in a stable order (as given; each folder's files sorted). */
export async function findTaskFiles(paths: string[], cwd = process.cwd()): Promise<string[]> {
  const files: string[] = [];
  const problems: Violation[] = [];
  for (const path of paths) {
    const target = resolve(cwd, path);
    const info = await stat(target).catch(() => undefined);
    if (!info) problems.push({ file: path, message: `${path} does not exist` });
    else if (info.isFile()) files.push(target);
    else if (info.isDirectory()) {
      const found = await taskFilesIn(target);
      if (found.length === 0)
        problems.push({ file: path, message: `folder ${path} holds no task file (no task.json below it, no *.json directly in it)` });
      files.push(...found);
    } else problems.push({ file: path, message: `${path} is neither a file nor a folder` });
  }
  if (problems.length > 0) throw listedError("usage", problems, "task file");
  // The same file named twice (a folder and a file in it) is one task.
  return [...new Set(files)];
}

async function taskFilesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const named = entries
    .filter((e) => e.isFile() && e.name === "task.json")
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
    .filter(
      (file) =>
        !relative(dir, file)
          .split("/")
          .some((part) => part === "node_modules" || part.startsWith(".")),
    );
  if (named.length > 0) return named.sort();
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".json") && (e.parentPath ?? (e as unknown as { path: string }).path) === dir)
    .map((e) => join(dir, e.name))
    .sort();
}

/**
 * Loads every task file of a suite; throws one `invalid_task` error listing every broken file and every task_id
 * used by two files (a suite's results are keyed by task_id, so it must be unique).
 */
export async function loadSuite(paths: string[], cwd = process.cwd()): Promise<LoadedTask[]> {
  const files = await findTaskFiles(paths, cwd);
  const loaded: LoadedTask[] = [];
  const problems: Violation[] = [];
  for (const file of files) {
    try {
      loaded.push(await loadTask(file, cwd));
    } catch (error) {
      if (!isSkillrigError(error)) throw error;
      if (error.violations.length > 0) problems.push(...error.violations.map((v) => ({ ...v, file: v.file ?? error.file })));
      else problems.push({ file: error.file, line: error.line, message: error.message });
    }
  }
  const byId = new Map<string, LoadedTask>();
  for (const task of loaded) {
    const first = byId.get(task.task.task_id);
    if (first)
      problems.push({
        file: task.displayPath,
        pointer: "/task_id",
        message: `task_id "${task.task.task_id}" is also the task_id of ${first.displayPath}; a suite's task_ids must be unique`,
      });
    else byId.set(task.task.task_id, task);
  }
  if (problems.length > 0) throw listedError("invalid_task", problems, "task file");
  return loaded;
}

function listedError(code: "usage" | "invalid_task", problems: Violation[], what: string): SkillrigError {
  const first = problems[0]!;
  const message =
    problems.length === 1
      ? (first.pointer ? `${first.file} ${first.pointer}: ` : "") + first.message
      : `${problems.length} problems with the suite's ${what}s:\n${problems
          .map((p) => `  ${p.file ? `${p.file}${p.pointer ? ` ${p.pointer}` : ""}: ` : ""}${p.message}`)
          .join("\n")}`;
  return new SkillrigError(code, message, {
    file: first.file,
    pointer: first.pointer,
    violations: problems,
    hint: code === "usage" ? "name task files, or folders holding task.json files (or *.json task files)" : undefined,
  });
}
