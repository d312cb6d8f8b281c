/**
 * Input Contract v1.0 checks for process cases (script, cli, and any type made with defineProcessDeliverable). Every problem becomes a Violation with the JSON pointer
 * of the offending value and a message starting "invalid_test_format: "; nothing is guessed or coerced.
 *
 *   script input: {stdin?: string, files?: {relative path: string}}
 *   cli input:    {argv: string[], stdin?: string, files?: {...}}   (else "cli input must include argv")
 *   expected:     {stdout?, stderr?, exit_code?: integer, files?: {relative path: content}}
 */
import { pointer, type Violation } from "@skillrig/core";
import { CASE_FILE_BOUNDS, type CaseFileBounds, fileKeyBoundReason } from "./case-file-bounds.js";
import { fileFolderClash, unsafePathReason } from "./safe-relative-path.js";

/** How a process type takes its cases: `argv: true` is the contract's cli shape, `false` its script shape. */
export interface ProcessCaseShape {
  /** The deliverable type, for messages. */
  type: string;
  /** Every input carries `argv`, a list of strings (the cli rule); false: an input may not have argv (the script rule). */
  argv: boolean;
}

/** A case input after validation, with the optional parts filled in. */
export interface ProcessInput {
  argv: string[];
  stdin: string;
  files: Record<string, string>;
}

export interface ProcessExpected {
  stdout?: unknown;
  stderr?: unknown;
  exit_code?: number;
  files?: Record<string, unknown>;
}

/** The contract's own message for a cli input without a list of string arguments. */
export const CLI_ARGV_MESSAGE = "invalid_test_format: cli input must include argv";

function argvMessage(type: string): string {
  return `invalid_test_format: ${type} input must include argv`;
}

const EXPECTED_KEYS = ["stdout", "stderr", "exit_code", "files"];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function violation(at: string, message: string, rule: string): Violation {
  return { pointer: at, message: `invalid_test_format: ${message}`, rule };
}

export function validateProcessInput(
  shape: ProcessCaseShape,
  input: unknown,
  casePointer: string,
  bounds: CaseFileBounds = CASE_FILE_BOUNDS,
): { value?: ProcessInput; violations: Violation[] } {
  const { type } = shape;
  const at = `${casePointer}/input`;
  const violations: Violation[] = [];
  const argvRequired = argvMessage(type);
  if (!isObject(input)) {
    if (shape.argv) return { violations: [{ pointer: at, message: argvRequired, rule: "argv" }] };
    return {
      violations: [violation(at, `${type} input must be an object with optional "stdin" and "files", not ${describe(input)}`, "type")],
    };
  }
  const allowed = shape.argv ? ["argv", "stdin", "files"] : ["stdin", "files"];
  for (const key of Object.keys(input)) {
    if (allowed.includes(key)) continue;
    const extra = !shape.argv && key === "argv" ? ` (a ${type} takes no arguments; use deliverable_type "cli")` : "";
    violations.push(
      violation(
        `${at}/${pointerToken(key)}`,
        `${type} input has unknown key "${key}"; allowed: ${allowed.join(", ")}${extra}`,
        "additionalProperties",
      ),
    );
  }
  let argv: string[] = [];
  if (shape.argv) {
    const raw = input.argv;
    if (!Array.isArray(raw)) {
      violations.push({ pointer: raw === undefined ? at : `${at}/argv`, message: argvRequired, rule: "argv" });
    } else {
      raw.forEach((arg, i) => {
        if (typeof arg !== "string") violations.push({ pointer: `${at}/argv/${i}`, message: argvRequired, rule: "argv" });
      });
      argv = raw as string[];
    }
  }
  if (input.stdin !== undefined && typeof input.stdin !== "string") {
    violations.push(violation(`${at}/stdin`, `stdin must be a string, not ${describe(input.stdin)}`, "type"));
  }
  const files = validateFilesMap(input.files, `${at}/files`, "input files", true, violations, bounds);
  if (violations.length > 0) return { violations };
  return { value: { argv, stdin: (input.stdin as string | undefined) ?? "", files: files as Record<string, string> }, violations };
}

export function validateProcessExpected(
  expected: unknown,
  casePointer: string,
  bounds: CaseFileBounds = CASE_FILE_BOUNDS,
): { value?: ProcessExpected; violations: Violation[] } {
  const at = `${casePointer}/expected`;
  if (!isObject(expected)) {
    return {
      violations: [violation(at, `expected must be an object with any of ${EXPECTED_KEYS.join(", ")}, not ${describe(expected)}`, "type")],
    };
  }
  const violations: Violation[] = [];
  for (const key of Object.keys(expected)) {
    if (!EXPECTED_KEYS.includes(key)) {
      violations.push(
        violation(
          `${at}/${pointerToken(key)}`,
          `expected has unknown key "${key}"; allowed: ${EXPECTED_KEYS.join(", ")}`,
          "additionalProperties",
        ),
      );
    }
  }
  if (expected.exit_code !== undefined && !Number.isInteger(expected.exit_code)) {
    violations.push(violation(`${at}/exit_code`, `expected exit_code must be an integer, not ${describe(expected.exit_code)}`, "type"));
  }
  validateFilesMap(expected.files, `${at}/files`, "expected files", false, violations, bounds);
  if (violations.length > 0) return { violations };
  return { value: expected as ProcessExpected, violations };
}

/** Checks a `files` map: safe relative keys, no file/folder clash and (for inputs) string contents. */
function validateFilesMap(
  files: unknown,
  at: string,
  what: string,
  stringsOnly: boolean,
  violations: Violation[],
  bounds: CaseFileBounds,
): Record<string, unknown> {
  if (files === undefined) return {};
  if (!isObject(files)) {
    violations.push(violation(at, `${what} must be an object mapping relative paths to contents, not ${describe(files)}`, "type"));
    return {};
  }
  const keys = Object.keys(files);
  if (keys.length > bounds.max_files) {
    violations.push(
      violation(at, `${what} has ${keys.length} files, past the limit of ${bounds.max_files} (oracle.case_files.max_files)`, "maxFiles"),
    );
    return {};
  }
  let unsafe = 0;
  for (const [key, content] of Object.entries(files)) {
    const reason = unsafePathReason(key);
    const past = reason ? undefined : fileKeyBoundReason(key, bounds);
    if (reason || past) unsafe += 1;
    if (reason)
      violations.push(
        violation(`${at}/${pointerToken(key)}`, `${what} key ${shownKey(key)} is not a safe relative path: it ${reason}`, "safePath"),
      );
    if (past) violations.push(violation(`${at}/${pointerToken(key)}`, `${what} key ${shownKey(key)} ${past}`, "pathBounds"));
    if (stringsOnly && typeof content !== "string") {
      violations.push(
        violation(
          `${at}/${pointerToken(key)}`,
          `${what} ${JSON.stringify(key)} must be a string (the file's text), not ${describe(content)}`,
          "type",
        ),
      );
    }
  }
  // A clash among unsafe paths would only repeat what is already said about them.
  const clash = unsafe === 0 ? fileFolderClash(Object.keys(files)) : undefined;
  if (clash)
    violations.push(
      violation(at, `${what} ${JSON.stringify(clash[0])} cannot be both a file and the folder of ${JSON.stringify(clash[1])}`, "safePath"),
    );
  return files;
}

/** A key as a message shows it: at most 80 characters of it (a key may be kilobytes long). */
function shownKey(key: string): string {
  return key.length <= 80 ? JSON.stringify(key) : `${JSON.stringify(key.slice(0, 80))}... (${key.length} characters)`;
}

function pointerToken(key: string): string {
  return pointer(key).slice(1);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}
