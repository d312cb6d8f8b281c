/**
 * Which cases a run grades: `skillrig test -k EXPR` (pytest's `-k`), `--last-failed` and `--limit N`, composed into
 * one `CaseSelection` per task that `runTask` asks before a case is checked or run. A case that is not selected is
 * left out of the report (as pytest's "deselected"), never reported as passed.
 *
 * The `-k` expression is pytest's: words matched as case-insensitive substrings of the task id or the case name,
 * combined with `not`, `and`, `or` and parentheses (`not` binds tightest, then `and`, then `or`). A word with
 * spaces or parentheses is quoted: `-k '"empty input" or unicode'`.
 */
import { SkillrigError, type LoadedTask, type TaskReport, type TestCase } from "@skillrig/core";

/** Whether one case of a task runs; `index` is the case's position in the task file's `tests`. */
export type CaseSelection = (testCase: TestCase, index: number) => boolean;

type Node = { op: "word"; word: string } | { op: "not"; arg: Node } | { op: "and" | "or"; left: Node; right: Node };

export interface CaseFilter {
  /** The expression as the user wrote it, for messages. */
  readonly text: string;
  matches(taskId: string, caseName: string): boolean;
}

const KEYWORDS = new Set(["and", "or", "not"]);

/** Parses a `-k` expression; a malformed one is a `usage` error naming the expression and the position. */
export function parseCaseFilter(text: string, field = "-k"): CaseFilter {
  const tokens = tokenize(text, field);
  let at = 0;
  const fail = (why: string): never => {
    const where = at < tokens.length ? `at "${tokens[at]!.text}" (column ${tokens[at]!.column + 1})` : "at its end";
    throw new SkillrigError("usage", `${field} "${text}": ${why} ${where}`, {
      field,
      hint: `${field} takes words (matched in task ids and case names) joined by and, or, not and parentheses, e.g. ${field} "parse and not empty"`,
    });
  };
  const peek = () => tokens[at];
  // `a OP b OP c`, left to right, for `or` over `and` operands and `and` over `not` operands.
  const chain = (op: "and" | "or", operand: () => Node) => (): Node => {
    let left = operand();
    while (peek()?.keyword === op) {
      at++;
      left = { op, left, right: operand() };
    }
    return left;
  };
  const parseAnd = chain("and", () => parseNot());
  const parseOr = chain("or", parseAnd);
  const parseNot = (): Node => {
    const token = peek();
    if (!token) return fail("expected a word, not or (");
    if (token.keyword === "not") {
      at++;
      return { op: "not", arg: parseNot() };
    }
    if (token.text === "(" && !token.quoted) {
      at++;
      const inner = parseOr();
      if (peek()?.text !== ")" || peek()?.quoted) fail("expected )");
      at++;
      return inner;
    }
    if (token.keyword || (!token.quoted && token.text === ")")) return fail("expected a word");
    at++;
    return { op: "word", word: token.text.toLowerCase() };
  };
  if (tokens.length === 0) fail("the expression is empty");
  const tree = parseOr();
  if (at < tokens.length) fail("expected and, or or the end");
  return {
    text,
    matches: (taskId, caseName) => evaluate(tree, [taskId.toLowerCase(), caseName.toLowerCase()]),
  };
}

function evaluate(node: Node, names: string[]): boolean {
  switch (node.op) {
    case "word":
      return names.some((name) => name.includes(node.word));
    case "not":
      return !evaluate(node.arg, names);
    case "and":
      return evaluate(node.left, names) && evaluate(node.right, names);
    case "or":
      return evaluate(node.left, names) || evaluate(node.right, names);
  }
}

interface Token {
  text: string;
  column: number;
  quoted: boolean;
  keyword?: "and" | "or" | "not";
}

function tokenize(text: string, field: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "(" || ch === ")") {
      tokens.push({ text: ch, column: i, quoted: false });
      i++;
    } else if (ch === '"' || ch === "'") {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) {
        throw new SkillrigError("usage", `${field} "${text}": the quote at column ${i + 1} is not closed`, { field });
      }
      tokens.push({ text: text.slice(i + 1, end), column: i, quoted: true });
      i = end + 1;
    } else {
      const start = i;
      while (i < text.length && !/[\s()"']/.test(text[i]!)) i++;
      const word = text.slice(start, i);
      const lower = word.toLowerCase();
      tokens.push({
        text: word,
        column: start,
        quoted: false,
        ...(KEYWORDS.has(lower) ? { keyword: lower as Token["keyword"] } : {}),
      });
    }
  }
  return tokens;
}

/**
 * Counts the failures of a run and says when to stop (`--bail N`): shared by every task run of a suite, so the
 * suite stops after N failing cases in all. Cases already running finish; cases not started are reported not run.
 */
export class Bail {
  readonly after: number;
  #failures = 0;

  constructor(after: number) {
    this.after = Math.max(1, after);
  }

  /** A case that ran did not pass. */
  failed(): void {
    this.#failures += 1;
  }

  get stopped(): boolean {
    return this.#failures >= this.after;
  }

  /** Why a case or sample was not run, for its report. */
  get reason(): string {
    return `not run: --bail ${this.after} stopped the run after ${this.#failures} failure(s)`;
  }
}

/**
 * The task with only the selected cases, for grading where `runTask`'s selection cannot reach (a jobs server), and
 * a function that puts the task file's own case indexes back into the report that comes back.
 */
export function narrowTask(
  loaded: LoadedTask,
  select: CaseSelection | undefined,
): { loaded: LoadedTask; restore(report: TaskReport): TaskReport } {
  if (!select) return { loaded, restore: (report) => report };
  const kept = loaded.task.tests.map((testCase, index) => ({ testCase, index })).filter(({ testCase, index }) => select(testCase, index));
  const original = kept.map((k) => k.index);
  return {
    loaded: {
      ...loaded,
      task: { ...loaded.task, tests: kept.map((k) => k.testCase) },
      ...(loaded.caseJson ? { caseJson: kept.map((k) => loaded.caseJson![k.index]!) } : {}),
    },
    restore: (report) => ({ ...report, cases: report.cases.map((c) => ({ ...c, index: original[c.index] ?? c.index })) }),
  };
}
