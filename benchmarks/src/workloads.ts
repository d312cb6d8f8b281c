/**
 * The task files and deliverables the benchmarks grade, written into a temporary folder at run time.
 * Expected values are computed here in JavaScript, independently of the Python under test, so a wrong
 * answer from any runner shows up as a failed case instead of a fast one.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface FunctionWorkload {
  /** Short label for tables: "add(a, b)". */
  label: string;
  taskFile: string;
  deliverableFile: string;
  functionName: string;
  cases: number;
}

export interface ProcessWorkload {
  label: string;
  kind: "script" | "cli";
  taskFile: string;
  /** The folder holding main.py. */
  deliverableDir: string;
  /** What the bare spawn runs: the arguments after the interpreter, and the stdin. */
  bareArgs: string[];
  bareStdin: string;
  expectedStdout: string;
  cases: number;
}

const ADD_SOURCE = `def add(a, b):
    return a + b
`;

/** Pure-Python loops, a few milliseconds a call: the kind of work a graded function does. */
const COLLATZ_SOURCE = `def longest_collatz(limit):
    """The start below limit with the longest Collatz chain, and that chain's length."""
    best_start, best_length = 1, 1
    for start in range(1, limit):
        n, length = start, 1
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            length += 1
        if length > best_length:
            best_start, best_length = start, length
    return [best_start, best_length]
`;

function longestCollatz(limit: number): [number, number] {
  let bestStart = 1;
  let bestLength = 1;
  for (let start = 1; start < limit; start++) {
    let n = start;
    let length = 1;
    while (n !== 1) {
      n = n % 2 === 0 ? n / 2 : 3 * n + 1;
      length++;
    }
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  return [bestStart, bestLength];
}

const TOOL_SCRIPT_SOURCE = `print("ok")
`;

const TOOL_CLI_SOURCE = `import sys

print("hello " + sys.argv[sys.argv.index("--name") + 1])
`;

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, JSON.stringify(value));
}

export function addWorkload(root: string, cases: number): FunctionWorkload {
  const dir = join(root, `add-${cases}`);
  mkdirSync(dir, { recursive: true });
  const deliverableFile = join(dir, "add.py");
  writeFileSync(deliverableFile, ADD_SOURCE);
  const taskFile = join(dir, "task.json");
  writeJson(taskFile, {
    contract_version: "1.0",
    task_id: `bench-add-${cases}`,
    deliverable_type: "function",
    entrypoint: "add",
    tests: Array.from({ length: cases }, (_, i) => ({ name: `add-${i}`, input: [i, i + 1], expected: 2 * i + 1 })),
  });
  return { label: "add(a, b)", taskFile, deliverableFile, functionName: "add", cases };
}

export function collatzWorkload(root: string, cases: number): FunctionWorkload {
  const dir = join(root, `collatz-${cases}`);
  mkdirSync(dir, { recursive: true });
  const deliverableFile = join(dir, "collatz.py");
  writeFileSync(deliverableFile, COLLATZ_SOURCE);
  const taskFile = join(dir, "task.json");
  writeJson(taskFile, {
    contract_version: "1.0",
    task_id: `bench-collatz-${cases}`,
    deliverable_type: "function",
    entrypoint: "longest_collatz",
    tests: Array.from({ length: cases }, (_, i) => {
      const limit = 500 + 2 * i;
      return { name: `collatz-${limit}`, input: [limit], expected: longestCollatz(limit) };
    }),
  });
  return { label: "longest_collatz(n), ~4 ms of work", taskFile, deliverableFile, functionName: "longest_collatz", cases };
}

export function scriptWorkload(root: string, cases: number): ProcessWorkload {
  const dir = join(root, `script-${cases}`);
  const deliverableDir = join(dir, "deliverable");
  mkdirSync(deliverableDir, { recursive: true });
  writeFileSync(join(deliverableDir, "main.py"), TOOL_SCRIPT_SOURCE);
  const taskFile = join(dir, "task.json");
  writeJson(taskFile, {
    contract_version: "1.0",
    task_id: `bench-script-${cases}`,
    deliverable_type: "script",
    entrypoint: "main.py",
    tests: Array.from({ length: cases }, (_, i) => ({ name: `script-${i}`, input: { stdin: "" }, expected: { stdout: "ok\n" } })),
  });
  return {
    label: "script: print",
    kind: "script",
    taskFile,
    deliverableDir,
    bareArgs: ["main.py"],
    bareStdin: "",
    expectedStdout: "ok\n",
    cases,
  };
}

export function cliWorkload(root: string, cases: number): ProcessWorkload {
  const dir = join(root, `cli-${cases}`);
  const deliverableDir = join(dir, "deliverable");
  mkdirSync(deliverableDir, { recursive: true });
  writeFileSync(join(deliverableDir, "main.py"), TOOL_CLI_SOURCE);
  const taskFile = join(dir, "task.json");
  writeJson(taskFile, {
    contract_version: "1.0",
    task_id: `bench-cli-${cases}`,
    deliverable_type: "cli",
    entrypoint: "main.py",
    tests: Array.from({ length: cases }, (_, i) => ({
      name: `cli-${i}`,
      input: { argv: ["--name", `n${i}`] },
      expected: { stdout: `hello n${i}\n` },
    })),
  });
  return {
    label: "cli: argv echo",
    kind: "cli",
    taskFile,
    deliverableDir,
    bareArgs: ["main.py", "--name", "n0"],
    bareStdin: "",
    expectedStdout: "hello n0\n",
    cases,
  };
}
