/**
 * Reads and validates task files against `task.schema.json`. Every problem is reported at once, each with
 * the file and the JSON pointer at fault, as an `invalid_task` error; nothing is guessed or filled in.
 *
 * Values are kept exact: besides the plain parse (which ajv validates and plugins read), each test's `input` and
 * `expected` are kept as JSON text with numbers exactly as written (`LoadedTask.caseJson`, via lossless-json), so
 * `3.0` reaches Python as a float and `2**70` as an int. A key repeated within one object is refused (the plain
 * parse would silently keep the last one, and a dropped expectation is a wrong grade). A `regex` compare's
 * pattern must compile.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { relative, resolve } from "node:path";
import { visit } from "jsonc-parser";
import { parse as parseLossless, stringify as stringifyLossless } from "./lossless-json.js";
import {
  fromPrecompiled,
  parseJsonText,
  pointer,
  SkillrigError,
  type CompiledSchema,
  type CompareSpec,
  type LoadedTask,
  type Task,
  type Violation,
} from "@skillrig/core";
// Compiled from task.schema.json when this package was built (scripts/precompile-schema.mjs): no ajv at start-up.
import * as precompiledTaskSchema from "./task.schema.validate.js";
import { findExcessiveNesting, TASK_MAX_DEPTH, type TooDeep } from "./json-text.js";

const require = createRequire(import.meta.url);

/** The task file's JSON Schema (also exported as `@skillrig/oracle/task.schema.json`). */
export const taskSchema: Record<string, unknown> = require("./task.schema.json");

let validator: CompiledSchema<Task> | undefined;
function taskValidator() {
  // The key check makes a validator built from another schema (a stale dist) compile this one instead.
  validator ??= fromPrecompiled<Task>(precompiledTaskSchema, { schema: taskSchema });
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
  // Schema validation recurses: a value nested past the limit is refused before it is walked.
  const deep = valueNesting(value, TASK_MAX_DEPTH);
  if (deep) throw tooDeep(deep, displayPath);
  const violations = taskViolations(value, displayPath);
  if (violations.length === 0) violations.push(...regexViolations(value as Task, displayPath));
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
  return validateTaskText(text, displayPath, file);
}

/**
 * Parses and validates a task file's text (what `loadTask` does after reading it); the loaded task carries the
 * exact JSON text of each case's input and expected (`caseJson`). Use it for task text from anywhere (an HTTP body).
 */
export function validateTaskText(text: string, displayPath = "(task)", file?: string): LoadedTask {
  // Everything below (the duplicate-key visitor, lossless-json, the schema) recurses: check the depth on the text first.
  const deep = findExcessiveNesting(text, TASK_MAX_DEPTH);
  if (deep) throw tooDeep(deep, displayPath);
  const value = parseJsonText(text, { file: displayPath, what: "task file", code: "invalid_task" });
  const duplicates = duplicateKeys(text.replace(/^\uFEFF/, ""), displayPath);
  if (duplicates.length > 0) {
    const lines = duplicates.map((v) => `  ${v.pointer}: ${v.message}`);
    throw new SkillrigError("invalid_task", `invalid task file ${displayPath}:\n${lines.join("\n")}`, {
      file: displayPath,
      pointer: duplicates[0]!.pointer,
      violations: duplicates,
      hint: "a key may appear once per object; remove or rename the repeated one",
    });
  }
  const loaded = validateTask(value, displayPath, file);
  return { ...loaded, caseJson: exactCaseJson(text.replace(/^\uFEFF/, "")) };
}

function tooDeep(deep: TooDeep, displayPath: string): SkillrigError {
  const message = `nests objects and arrays more than ${deep.maxDepth} levels deep (the task depth limit)`;
  return new SkillrigError("invalid_task", `invalid task file ${displayPath}:\n  ${deep.pointer || "(root)"}: ${message}`, {
    file: displayPath,
    pointer: deep.pointer,
    violations: [{ pointer: deep.pointer, message, file: displayPath, rule: "max_depth" }],
    hint: `a task may nest at most ${deep.maxDepth} levels (TASK_MAX_DEPTH); flatten the value`,
  });
}

/** `findExcessiveNesting` for a value already parsed: an explicit stack, no recursion. */
function valueNesting(value: unknown, maxDepth: number): TooDeep | undefined {
  const stack: Array<{ value: unknown; depth: number; path: Array<string | number> }> = [{ value, depth: 1, path: [] }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.value === null || typeof item.value !== "object") continue;
    if (item.depth > maxDepth) return { pointer: pointer(...item.path), maxDepth };
    const entries: Array<[string | number, unknown]> = Array.isArray(item.value)
      ? item.value.map((v, i) => [i, v])
      : Object.entries(item.value as Record<string, unknown>);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === "object") stack.push({ value: child, depth: item.depth + 1, path: [...item.path, key] });
    }
  }
  return undefined;
}

/**
 * The task as JSON text that reads back (`validateTaskText`) to the same task with the same exact values: each
 * test's `input` and `expected` are the file's own text (`caseJson`), the rest is the plain parse. What a client
 * sends a server so the server grades exactly what a local run would. A case whose exact text does not belong to it
 * (a task whose tests were rearranged after loading) is written from the plain parse instead.
 */
export function exactTaskText(loaded: LoadedTask): string {
  const exact = loaded.caseJson;
  const { tests, ...rest } = loaded.task;
  const head = JSON.stringify(rest);
  const written = tests.map((testCase, index) => {
    const { input, expected, ...others } = testCase as unknown as Record<string, unknown>;
    const own = exact?.[index];
    const fits = (text: string | undefined, value: unknown) =>
      text !== undefined && JSON.stringify(JSON.parse(text)) === JSON.stringify(value ?? null);
    const members = [JSON.stringify(others).slice(1, -1)];
    if ("input" in testCase) members.push(`"input":${own && fits(own.input, input) ? own.input : JSON.stringify(input)}`);
    if ("expected" in testCase) members.push(`"expected":${own && fits(own.expected, expected) ? own.expected : JSON.stringify(expected)}`);
    return `{${members.filter((m) => m !== "").join(",")}}`;
  });
  return `${head.slice(0, -1)}${head.length > 2 ? "," : ""}"tests":[${written.join(",")}]}`;
}

/** Each test's input and expected as JSON text, numbers exactly as the file wrote them. */
function exactCaseJson(text: string): Array<{ input: string; expected: string }> {
  const exact = parseLossless(text) as { tests: Array<{ input: unknown; expected: unknown }> };
  return exact.tests.map((testCase) => ({
    input: stringifyLossless(testCase.input) ?? "null",
    expected: stringifyLossless(testCase.expected) ?? "null",
  }));
}

/** Every key that appears twice in one object, with its pointer (jsonc-parser's visitor gives the path). */
function duplicateKeys(text: string, displayPath: string): Violation[] {
  const found: Violation[] = [];
  const open: Array<Set<string>> = [];
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (key, _offset, _length, startLine, _startCharacter, pathSupplier) => {
      const keys = open[open.length - 1];
      if (!keys) return;
      if (keys.has(key)) {
        found.push({
          pointer: pointer(...pathSupplier(), key),
          message: `the key "${key}" appears more than once in this object (line ${startLine + 1}); which one counts would be a guess`,
          file: displayPath,
          rule: "duplicate_key",
        });
      }
      keys.add(key);
    },
  });
  return found;
}

/** A `regex` compare whose pattern does not compile is the task's fault: said at load time, with the pointer. */
function regexViolations(task: Task, displayPath: string): Violation[] {
  const found: Violation[] = [];
  const modeOf = (spec: CompareSpec | undefined) =>
    spec === undefined
      ? undefined
      : typeof spec === "string"
        ? { mode: spec, flags: "" }
        : { mode: spec.mode, flags: String(spec.flags ?? "") };
  const taskMode = modeOf(task.compare);
  task.tests.forEach((testCase, index) => {
    const chosen = modeOf(testCase.compare) ?? taskMode;
    if (chosen?.mode !== "regex") return;
    // The patterns are the expected strings the mode is applied to: the return value, or stdout/stderr/files.
    const patterns: Array<{ at: string; pattern: string }> = [];
    const expected = testCase.expected as unknown;
    if (typeof expected === "string") patterns.push({ at: pointer("tests", index, "expected"), pattern: expected });
    else if (expected && typeof expected === "object" && !Array.isArray(expected)) {
      const fields = expected as Record<string, unknown>;
      for (const key of ["stdout", "stderr"]) {
        if (typeof fields[key] === "string")
          patterns.push({ at: pointer("tests", index, "expected", key), pattern: fields[key] as string });
      }
      if (fields.files && typeof fields.files === "object") {
        for (const [name, content] of Object.entries(fields.files as Record<string, unknown>)) {
          if (typeof content === "string") patterns.push({ at: pointer("tests", index, "expected", "files", name), pattern: content });
        }
      }
    }
    for (const { at, pattern } of patterns) {
      try {
        new RegExp(pattern, chosen.flags);
      } catch (error) {
        found.push({
          pointer: at,
          message: `not a valid regular expression for the regex compare: ${(error as Error).message}`,
          file: displayPath,
          rule: "regex",
        });
      }
    }
  });
  return found;
}

function displayPathOf(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel === "" || rel.startsWith("..") ? file : rel;
}
