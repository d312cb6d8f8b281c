/**
 * Reads and validates task files against `task.schema.json`. Every problem is reported at once, each with
 * the file and the JSON pointer at fault, as an `invalid_task` error; nothing is guessed or filled in.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { relative, resolve } from "node:path";
import { parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser";
import { compileSchema, SkillrigError, type CompiledSchema, type LoadedTask, type Task, type Violation } from "@skillrig/core";

const require = createRequire(import.meta.url);

/** The task file's JSON Schema (also exported as `@skillrig/oracle/task.schema.json`). */
export const taskSchema: Record<string, unknown> = require("./task.schema.json");

let validator: CompiledSchema<Task> | undefined;
function taskValidator() {
  validator ??= compileSchema<Task>(taskSchema);
  return validator;
}

/** Lists every schema violation of `value` as a task file; [] when it conforms. */
export function taskViolations(value: unknown, file?: string): Violation[] {
  return taskValidator()
    .validate(value)
    .map((v) => ({ ...v, file }));
}

/** Validates a task that is already parsed (a file's content, an HTTP body); throws `invalid_task` listing every problem. */
export function validateTask(value: unknown, displayPath = "(task)", file?: string): LoadedTask {
  const violations = taskViolations(value, displayPath);
  if (violations.length > 0) {
    const lines = violations.map((v) => `  ${v.pointer || "(root)"}: ${v.message}`);
    throw new SkillrigError("invalid_task", `invalid task file ${displayPath}:\n${lines.join("\n")}`, {
      file: displayPath,
      pointer: violations[0]!.pointer,
      violations,
      hint: "the task file format is documented in @skillrig/oracle's README and task.schema.json",
    });
  }
  return { task: value as Task, file, displayPath };
}

/** Reads a task file (path relative to `cwd`), parses it and validates it. */
export async function loadTask(path: string, cwd = process.cwd()): Promise<LoadedTask> {
  const file = resolve(cwd, path);
  const displayPath = displayPathOf(file, cwd);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : `cannot be read: ${(error as Error).message}`;
    throw new SkillrigError("invalid_task", `task file ${displayPath} ${reason}`, { file: displayPath, cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const where = locateSyntaxError(text);
    const at = where ? ` at line ${where.line}, column ${where.column} (${where.problem})` : "";
    throw new SkillrigError("invalid_task", `task file ${displayPath} is not valid JSON${at}: ${(error as Error).message}`, {
      file: displayPath,
      ...(where ? { line: where.line } : {}),
      cause: error,
    });
  }
  return validateTask(value, displayPath, file);
}

function displayPathOf(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel === "" || rel.startsWith("..") ? file : rel;
}

/**
 * V8's JSON.parse messages do not always carry an offset; jsonc-parser (strict settings) reports the first
 * problem's offset, which people want as a line and column.
 */
function locateSyntaxError(text: string): { line: number; column: number; problem: string } | undefined {
  const errors: ParseError[] = [];
  parseJsonc(text.replace(/^\uFEFF/, ""), errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (!first) return undefined;
  const before = text.slice(0, first.offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1, problem: printParseErrorCode(first.error) };
}
