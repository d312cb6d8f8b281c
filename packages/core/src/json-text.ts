/**
 * Reading JSON a person wrote (a config, a task file, evals.json, runner.json, a schema, a scenario). A syntax
 * error is reported the way an editor shows it: the line and column, what the parser expected there, and the line
 * itself with a caret under the spot. V8's own messages carry a character offset at best (and differ between Node
 * versions), so jsonc-parser, with JSON's strict rules (no comments, no trailing commas), locates the problem.
 */
import { readFileSync } from "node:fs";
import { type ParseError, type ParseErrorCode, parse as parseJsonc } from "jsonc-parser";
import { type ErrorCode, SkillrigError } from "./errors.js";

/** Where a JSON text stops being JSON. `line` and `column` are 1-based; `excerpt` shows the line with a caret. */
export interface JsonSyntaxProblem {
  line: number;
  column: number;
  /** What is wrong there, in words ("',' expected", "a trailing comma before '}'"). */
  problem: string;
  /** `  12 | "a": 1,` and a caret line under the column. */
  excerpt: string;
}

/** Which file, read for what, and the code its errors carry. */
export interface JsonSource {
  /** The file as the user would type it; absent for text from elsewhere (an HTTP body, a flag). */
  file?: string;
  /** What the text is, for the message: "config file", "task file", "evals.json". */
  what: string;
  code: ErrorCode;
  /** When `what` names the file already ("evals/evals.json of skill x"): the message leaves the path out. */
  whatNamesFile?: boolean;
}

const PROBLEMS: Partial<Record<keyof typeof ParseErrorCodeNames, string>> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "not a valid number",
  PropertyNameExpected: "a property name in double quotes expected",
  ValueExpected: "a value expected",
  ColonExpected: "':' expected",
  CommaExpected: "',' expected",
  CloseBraceExpected: "'}' expected",
  CloseBracketExpected: "']' expected",
  EndOfFileExpected: "the end of the file expected (text after the JSON value)",
  InvalidCommentToken: "a comment (JSON has none)",
  UnexpectedEndOfComment: "an unfinished comment (JSON has none)",
  UnexpectedEndOfString: "an unfinished string (a closing '\"' missing)",
  UnexpectedEndOfNumber: "an unfinished number",
  InvalidUnicode: "an invalid \\u escape",
  InvalidEscapeCharacter: "an invalid escape in a string",
  InvalidCharacter: "a control character in a string (write it escaped, as \\n or \\t)",
};

// jsonc-parser's numeric codes by name (its `ParseErrorCode` is a const enum, which isolated builds cannot inline).
const ParseErrorCodeNames = {
  InvalidSymbol: 1,
  InvalidNumberFormat: 2,
  PropertyNameExpected: 3,
  ValueExpected: 4,
  ColonExpected: 5,
  CommaExpected: 6,
  CloseBraceExpected: 7,
  CloseBracketExpected: 8,
  EndOfFileExpected: 9,
  InvalidCommentToken: 10,
  UnexpectedEndOfComment: 11,
  UnexpectedEndOfString: 12,
  UnexpectedEndOfNumber: 13,
  InvalidUnicode: 14,
  InvalidEscapeCharacter: 15,
  InvalidCharacter: 16,
} as const;

function describe(code: ParseErrorCode, text: string, offset: number): string {
  const name = (Object.keys(ParseErrorCodeNames) as (keyof typeof ParseErrorCodeNames)[]).find((k) => ParseErrorCodeNames[k] === code);
  // A comma right before a closing bracket: jsonc-parser reports the bracket; what the person did is the comma.
  const before = text.slice(0, offset).trimEnd();
  const here = text[offset];
  if (before.endsWith(",") && (here === "}" || here === "]")) return `a trailing comma before '${here}' (JSON allows none)`;
  return (name && PROBLEMS[name]) ?? "not valid JSON";
}

/** Where `text` is not JSON, or undefined when it is (a leading byte order mark is allowed). */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  const body = text.replace(/^\uFEFF/, "");
  const errors: ParseError[] = [];
  parseJsonc(body, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return undefined;
  const lines = body.slice(0, first.offset).split("\n");
  const line = lines.length;
  const column = lines[lines.length - 1]!.length + 1;
  return { line, column, problem: describe(first.error, body, first.offset), excerpt: excerptAt(body, line, column) };
}

/** The line (cut to a window around the column when it is long) and a caret under the column. */
function excerptAt(text: string, line: number, column: number): string {
  const full = (text.split("\n")[line - 1] ?? "").replace(/\r$/, "");
  const start = Math.max(0, column - 60);
  const shown = `${start > 0 ? "…" : ""}${full.slice(start, start + 100)}${full.length > start + 100 ? "…" : ""}`.replace(/\t/g, " ");
  const gutter = `${line} | `;
  const caret = " ".repeat(gutter.length - 2) + "| " + " ".repeat(column - 1 - start + (start > 0 ? 1 : 0)) + "^";
  return `${gutter}${shown}\n${caret}`;
}

/** The error for text that is not JSON: the file, line and column, what is wrong, the line shown. */
export function jsonSyntaxError(text: string, source: JsonSource, cause?: unknown): SkillrigError {
  const where = jsonSyntaxProblem(text);
  const subject = source.file === undefined || source.whatNamesFile ? source.what : `${source.what} ${source.file}`;
  if (where === undefined) {
    // JSON.parse refused what jsonc-parser accepts (a lone surrogate, say): its own words are all there is.
    return new SkillrigError(source.code, `${subject} is not valid JSON: ${(cause as Error)?.message ?? "unknown reason"}`, {
      file: source.file,
      cause,
    });
  }
  return new SkillrigError(
    source.code,
    `${subject} is not valid JSON: line ${where.line}, column ${where.column}: ${where.problem}\n${indent(where.excerpt)}`,
    { file: source.file, line: where.line, details: { line: where.line, column: where.column }, cause },
  );
}

/** JSON.parse, with a syntax error reported by `jsonSyntaxError`. A leading byte order mark is dropped. */
export function parseJsonText(text: string, source: JsonSource): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw jsonSyntaxError(text, source, error);
  }
}

/** Reads and parses a JSON file; a file that cannot be read is an error of the same code naming it. */
export function readJsonFile(path: string, source: JsonSource): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : `cannot be read: ${(error as Error).message}`;
    throw new SkillrigError(source.code, `${source.what} ${source.file ?? path} ${reason}`, { file: source.file ?? path, cause: error });
  }
  return parseJsonText(text, { ...source, file: source.file ?? path });
}

function indent(block: string): string {
  return block
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
