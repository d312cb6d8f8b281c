/**
 * A generated HumanEval-shaped suite: small pure-Python functions, ~7 cases each, one task file per task
 * (`tasks/HumanEval_<n>.json`, task_id `HumanEval/<n>`), and samples files with the canonical solutions
 * (`samples-<k>.jsonl`, k samples per task, each a distinct source: a comment names the sample). Written here, no
 * downloads. Expected values are computed in JavaScript, independently of the Python under test.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Family {
  name: string;
  /** Python source of the canonical solution, for a task's parameter p. */
  source(p: number): string;
  /** The task's cases: args and the expected value. */
  cases(p: number): Array<{ args: unknown[]; expected: unknown }>;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const words = ["apple", "Banana", "kiwi", "racecar", "level", "Python", "grade", "suite", "noon", "abc"];

const FAMILIES: Family[] = [
  {
    name: "add_const",
    source: (p) => `def add_const(x):\n    return x + ${p}\n`,
    cases: (p) => range(7).map((i) => ({ args: [i * 3 - 4], expected: i * 3 - 4 + p })),
  },
  {
    name: "sum_multiples",
    source: (p) => `def sum_multiples(n):\n    return sum(i for i in range(n) if i % ${(p % 5) + 2} == 0)\n`,
    cases: (p) =>
      range(7).map((i) => {
        const n = i * 7 + 1;
        const m = (p % 5) + 2;
        return {
          args: [n],
          expected: range(n)
            .filter((k) => k % m === 0)
            .reduce((a, b) => a + b, 0),
        };
      }),
  },
  {
    name: "count_vowels",
    source: () => `def count_vowels(s):\n    return sum(1 for c in s.lower() if c in "aeiou")\n`,
    cases: (p) =>
      range(7).map((i) => {
        const s = words[(i + p) % words.length]!;
        return { args: [s], expected: [...s.toLowerCase()].filter((c) => "aeiou".includes(c)).length };
      }),
  },
  {
    name: "is_palindrome",
    source: () => "def is_palindrome(s):\n    t = s.lower()\n    return t == t[::-1]\n",
    cases: (p) =>
      range(7).map((i) => {
        const s = words[(i * 3 + p) % words.length]!;
        return { args: [s], expected: s.toLowerCase() === [...s.toLowerCase()].reverse().join("") };
      }),
  },
  {
    name: "running_max",
    source: () =>
      "def running_max(xs):\n    out = []\n    best = None\n    for x in xs:\n        best = x if best is None or x > best else best\n        out.append(best)\n    return out\n",
    cases: (p) =>
      range(7).map((i) => {
        const xs = range(i + 1).map((k) => ((k * 7 + p * 3 + i) % 11) - 5);
        const out: number[] = [];
        let best: number | undefined;
        for (const x of xs) {
          best = best === undefined || x > best ? x : best;
          out.push(best);
        }
        return { args: [xs], expected: out };
      }),
  },
  {
    name: "digit_sum",
    source: (p) => `def digit_sum(n):\n    return sum(int(d) for d in str(abs(n))) * ${(p % 3) + 1}\n`,
    cases: (p) =>
      range(7).map((i) => {
        const n = (i * 1237 + p * 91) * (i % 2 === 0 ? 1 : -1);
        const s = [...String(Math.abs(n))].reduce((a, d) => a + Number(d), 0);
        return { args: [n], expected: s * ((p % 3) + 1) };
      }),
  },
  {
    name: "reverse_words",
    source: () => `def reverse_words(s):\n    return " ".join(reversed(s.split()))\n`,
    cases: (p) =>
      range(7).map((i) => {
        const ws = range((i % 4) + 1).map((k) => words[(k + i + p) % words.length]!);
        return { args: [ws.join(" ")], expected: [...ws].reverse().join(" ") };
      }),
  },
  {
    name: "fizzbuzz_count",
    source: (p) => `def fizzbuzz_count(n):\n    return sum(1 for i in range(1, n + 1) if i % ${(p % 4) + 3} == 0 or i % 5 == 0)\n`,
    cases: (p) =>
      range(7).map((i) => {
        const n = i * 11 + 2;
        const m = (p % 4) + 3;
        return { args: [n], expected: range(n).filter((k) => (k + 1) % m === 0 || (k + 1) % 5 === 0).length };
      }),
  },
  {
    name: "gcd",
    source: () => "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return abs(a)\n",
    cases: (p) =>
      range(7).map((i) => {
        const a = (i + 2) * (p + 3) * 6;
        const b = (i + 5) * (p + 1) * 4;
        const g = (x: number, y: number): number => (y === 0 ? Math.abs(x) : g(y, x % y));
        return { args: [a, b], expected: g(a, b) };
      }),
  },
  {
    name: "filter_even_squares",
    source: () => "def filter_even_squares(xs):\n    return [x * x for x in xs if x % 2 == 0]\n",
    cases: (p) =>
      range(7).map((i) => {
        const xs = range(i + 2).map((k) => k * 3 + p - 4);
        return { args: [xs], expected: xs.filter((x) => x % 2 === 0).map((x) => x * x) };
      }),
  },
  {
    name: "caesar",
    source: (p) => `def caesar(s):\n    return "".join(chr((ord(c) - 97 + ${p % 26}) % 26 + 97) if "a" <= c <= "z" else c for c in s)\n`,
    cases: (p) =>
      range(7).map((i) => {
        const s = words[(i + p) % words.length]!;
        const shifted = [...s].map((c) => (c >= "a" && c <= "z" ? String.fromCharCode(((c.charCodeAt(0) - 97 + (p % 26)) % 26) + 97) : c));
        return { args: [s], expected: shifted.join("") };
      }),
  },
  {
    name: "count_char_freq",
    source: () => "def count_char_freq(s):\n    out = {}\n    for c in s:\n        out[c] = out.get(c, 0) + 1\n    return out\n",
    cases: (p) =>
      range(7).map((i) => {
        const s = words[(i * 2 + p) % words.length]!;
        const out: Record<string, number> = {};
        for (const c of s) out[c] = (out[c] ?? 0) + 1;
        return { args: [s], expected: out };
      }),
  },
];

export interface HumanEvalSuite {
  dir: string;
  tasksDir: string;
  tasks: number;
  cases: number;
  /** samples-<k>.jsonl for each k asked for. */
  samplesFiles: Map<number, string>;
  /** A one-task, one-case task and its solution, for the start-up figure. */
  oneCase: { taskFile: string; deliverable: string };
}

export function humanEvalSuite(workDir: string, tasks: number, sampleCounts: number[]): HumanEvalSuite {
  const dir = join(workDir, "humaneval-suite");
  const tasksDir = join(dir, "tasks");
  mkdirSync(tasksDir, { recursive: true });
  const sources: string[] = [];
  let cases = 0;
  for (let n = 0; n < tasks; n++) {
    const family = FAMILIES[n % FAMILIES.length]!;
    const p = Math.floor(n / FAMILIES.length) + n;
    const tests = family.cases(p).map((c, i) => ({ name: `case ${i}`, input: c.args, expected: c.expected }));
    cases += tests.length;
    const task = {
      contract_version: "1.0",
      task_id: `HumanEval/${n}`,
      deliverable_type: "function",
      entrypoint: family.name,
      description: `${family.name} (generated, parameter ${p})`,
      tests,
    };
    writeFileSync(join(tasksDir, `HumanEval_${n}.json`), JSON.stringify(task));
    sources.push(family.source(p));
  }
  const samplesFiles = new Map<number, string>();
  for (const k of sampleCounts) {
    const file = join(dir, `samples-${k}.jsonl`);
    const lines: string[] = [];
    for (let n = 0; n < tasks; n++)
      for (let s = 0; s < k; s++) lines.push(JSON.stringify({ task_id: `HumanEval/${n}`, solution: `# sample ${s}\n${sources[n]}` }));
    writeFileSync(file, `${lines.join("\n")}\n`);
    samplesFiles.set(k, file);
  }
  const oneDir = join(dir, "one-case");
  mkdirSync(oneDir, { recursive: true });
  const oneTask = join(oneDir, "task.json");
  writeFileSync(
    oneTask,
    JSON.stringify({
      contract_version: "1.0",
      task_id: "one-case",
      deliverable_type: "function",
      entrypoint: "add_const",
      tests: [{ name: "one", input: [1], expected: 3 }],
    }),
  );
  const deliverable = join(oneDir, "solution.py");
  writeFileSync(deliverable, FAMILIES[0]!.source(2));
  return { dir, tasksDir, tasks, cases, samplesFiles, oneCase: { taskFile: oneTask, deliverable } };
}
