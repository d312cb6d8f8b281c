/**
 * The projects the browser tests record their runs from (never hand-written reports): a function task with a wrong
 * answer and an exception, examples/suite-mini's tasks with samples, packages/evals' csv-total skill for
 * `skillrig eval`.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO } from "./cli.js";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");
export const NOTES = "one two three four five\n";

/**
 * A function task whose deliverable gets one case right, one wrong (a word diff) and one by an exception (a
 * traceback, a print and a warning on stderr).
 */
export function writeParseNumbers(work: string) {
  mkdirSync(join(work, "parse"));
  writeFileSync(
    join(work, "parse/task.json"),
    JSON.stringify({
      contract_version: "1.0",
      task_id: "parse-numbers",
      deliverable_type: "function",
      entrypoint: "parse",
      tests: [
        { name: "digits", input: ["12"], expected: 12 },
        { name: "sentence", input: ["the quick brown fox"], expected: "the quick red fox" },
        { name: "bad digit", input: ["x"], expected: 0 },
      ],
    }),
  );
  writeFileSync(
    join(work, "parse/parse.py"),
    [
      "import sys",
      "def parse(text):",
      "    print('parsing ' + text)",
      "    if ' ' in text:",
      "        return text",
      "    if not text.isdigit():",
      "        print('warning: %s is not a digit' % text, file=sys.stderr)",
      "    return int(text)",
      "",
    ].join("\n"),
  );
}

/** How a sample of a task answers: the example's solution, a wrong value, or an exception on every call. */
export type SampleKind = "right" | "wrong" | "raises";

const DEFAULT_PLAN: Array<[string, SampleKind[]]> = [
  ["any-int", ["right", "wrong", "right"]],
  ["big-sum", ["wrong", "right", "wrong"]],
  ["run-length", ["wrong", "wrong", "wrong"]],
];

/** examples/suite-mini's three tasks x three samples each (by default a task solved 2 of 3 times, one 1 of 3, one never). */
export function writeSuiteSamples(work: string, plan = DEFAULT_PLAN): string {
  const suite = join(REPO, "examples/suite-mini");
  const solution = (task: string) => readFileSync(join(suite, "solutions", `${task}.py`), "utf8");
  const entrypoint = (task: string) => JSON.parse(readFileSync(join(suite, "tasks", task, "task.json"), "utf8")).entrypoint as string;
  const code = (task: string, kind: SampleKind) =>
    kind === "right"
      ? solution(task)
      : kind === "wrong"
        ? `def ${entrypoint(task)}(*args):\n    return None\n`
        : `def ${entrypoint(task)}(*args):\n    raise ValueError("no idea how to ${task}")\n`;
  const lines = plan.flatMap(([task, kinds]) => kinds.map((kind) => JSON.stringify({ task_id: task, solution: code(task, kind) })));
  const file = join(work, "samples.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** A project for `skillrig eval`: packages/evals' csv-total skill, played by the Gemini CLI and its mock scenario. */
export function writeEvalProject(runsDir: string, choice: { evalId?: string } = {}): string {
  const fixture = join(REPO, "packages/evals/test/fixtures/eval-run");
  const dir = mkdtempSync(join(tmpdir(), "skillrig-view-eval-"));
  cpSync(join(fixture, "csv-total"), join(dir, "skills", "csv-total"), { recursive: true });
  if (choice.evalId !== undefined) {
    // The same eval under a name (`"id": "accent"`), as a skill author may write it.
    const file = join(dir, "skills", "csv-total", "evals", "evals.json");
    const evals = JSON.parse(readFileSync(file, "utf8"));
    evals.evals[0].id = choice.evalId;
    writeFileSync(file, JSON.stringify(evals, null, 2));
  }
  const gemini = join(REPO, "plugins/engine-gemini/dist/index.js");
  const options = { approval_mode: "yolo", mock_scenario: join(fixture, "scenario.json"), timeout_ms: 120000 };
  const config = { plugins: [[gemini, options]], skills: { roots: ["skills"] }, runs_dir: runsDir };
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify(config));
  return dir;
}
