import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { skillrig, writeTree } from "./cli-process.js";
import { runNode } from "./processes.js";

const bin = resolve(__dirname, "../dist/bin.js");

/** A HumanEval-shaped function task: `scale(x)` returns x * factor. */
function scaleTask(id: string, factor: number): string {
  return JSON.stringify({
    contract_version: "1.0",
    task_id: id,
    deliverable_type: "function",
    entrypoint: "scale",
    tests: [1, 2, 3].map((x) => ({ name: `scale(${x})`, input: [x], expected: x * factor })),
  });
}
const solution = (factor: number) => `def scale(x):\n    return x * ${factor}\n`;

describe("skillrig test with a suite", () => {
  const dir = writeTree({
    "tasks/HumanEval_0.json": scaleTask("HumanEval/0", 2),
    "tasks/HumanEval_1.json": scaleTask("HumanEval/1", 3),
    "samples.jsonl": [
      { task_id: "HumanEval/0", solution: solution(2) },
      { task_id: "HumanEval/0", solution: solution(5) },
      { task_id: "HumanEval/1", solution: solution(3) },
      { task_id: "HumanEval/1", path: "sols/one.py" },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n"),
    "sols/one.py": solution(3),
    "by-id/HumanEval/0.py": solution(2),
  });

  it("--samples --json: stdout is only the report, with per-sample per-case verdicts and pass@k; progress on stderr", async () => {
    const r = await skillrig(["test", "tasks", "--samples", "samples.jsonl", "--json", "--jobs", "2"], dir);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.summary).toMatchObject({ tasks: 2, samples: 4, samples_passed: 3, samples_failed: 1, cases: 12 });
    expect(report.pass_at_k["pass@1"]).toEqual({ value: 0.75, tasks: 2 });
    const [first, second] = report.tasks;
    expect(first.task_id).toBe("HumanEval/0");
    expect(first.samples_passed).toBe(1);
    expect(first.pass_at_k).toEqual({ "pass@1": 0.5 });
    expect(first.samples[1].status).toBe("failed");
    expect(first.samples[1].cases[0]).toMatchObject({ name: "scale(1)", status: "failed", expected: 2, actual: 5 });
    expect(second.samples.map((s: { source: string }) => s.source)).toEqual(["samples.jsonl:3", "samples.jsonl:4"]);
    expect(r.stderr).toMatch(/graded 4\/4 samples \(100%\), 75\.0% passed/);
  });

  it("--deliverable DIR: the task without a deliverable is named, the others are graded, exit 2", async () => {
    const r = await skillrig(["test", "tasks/HumanEval_0.json", "tasks/HumanEval_1.json", "--deliverable", "by-id", "--json"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "error[usage]: no deliverable for task HumanEval/1: neither by-id/HumanEval/1.py nor by-id/HumanEval/1/ exists",
    );
    const report = JSON.parse(r.stdout);
    expect(report.summary).toMatchObject({ tasks: 2, tasks_not_graded: 1, samples: 1, samples_passed: 1 });
  });

  it("console and JUnit: a summary with pass@k, and one <testsuite> per task", async () => {
    const r = await skillrig(
      ["test", "tasks", "--samples", "samples.jsonl", "--reporter", "console", "--reporter", "junit", "--out", "reports"],
      dir,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^HumanEval\/0\s+1\/2\s+50\.0%\s+sample 2: scale\(1\): failed/m);
    expect(r.stdout).toContain("pass@1 75.0%");
    const xml = readFileSync(join(dir, "reports", "suite.junit.xml"), "utf8");
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml).toContain('<testcase name="sample 2: scale(1)" classname="HumanEval/0"');
  });

  it("a malformed samples line is an error naming its line, before anything runs", async () => {
    const bad = writeTree({
      "t/task.json": scaleTask("a", 2),
      "s.jsonl": `${JSON.stringify({ task_id: "a", solution: "x" })}\n{"task_id": "a", "solution": }\n`,
    });
    const r = await skillrig(["test", "t", "--samples", "s.jsonl"], bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error\[usage\]: samples file s\.jsonl line 2: not valid JSON/);
    expect(r.stderr).not.toContain("graded");
  });

  it("one task and one deliverable keep the one-task report", async () => {
    const r = await skillrig(["test", "tasks/HumanEval_0.json", "--deliverable", "by-id/HumanEval/0.py", "--json"], dir);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.task_id).toBe("HumanEval/0");
    expect(report.cases.map((c: { status: string }) => c.status)).toEqual(["passed", "passed", "passed"]);
  });

  it("--help says how folders are searched", async () => {
    const r = await skillrig(["test", "--help"], dir);
    expect(r.stdout).toContain("A folder is searched (recursively) for files named\ntask.json");
  });
});

describe("start-up", () => {
  // A module hook that lists every module the process loads, so the test sees what --version really imports.
  const hooks = writeTree({
    "hooks.mjs": `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.LOADED_LOG, result.url + "\\n");
  return result;
}`,
    // CommonJS loads (ajv, and what createRequire loads) do not pass the ESM hook: listed from require's cache at exit.
    "register.mjs": `import { register, createRequire } from "node:module";
import { appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
register("./hooks.mjs", import.meta.url);
const require = createRequire(import.meta.url);
process.on("exit", () => appendFileSync(process.env.LOADED_LOG, Object.keys(require.cache).map((f) => pathToFileURL(f).href + "\\n").join("")));`,
    // A config to validate: the bundled sections' composed schema, whose validator is precompiled.
    "skillrig.config.json": JSON.stringify({ oracle: { timeout_ms: 20000 } }),
    "one-case/task.json": JSON.stringify({
      contract_version: "1.0",
      task_id: "one-case",
      deliverable_type: "function",
      entrypoint: "f",
      tests: [{ name: "one", input: [1], expected: 2 }],
    }),
    "one-case/solution.py": "def f(x):\n    return x + 1\n",
  });

  async function loadedBy(args: string[]): Promise<string[]> {
    const log = join(hooks, `${args.join("_").replace(/\W/g, "")}.log`);
    writeFileSync(log, ""); // a second run of the same args lists its own loads only
    const r = await runNode(["--import", join(hooks, "register.mjs"), bin, ...args], hooks, { LOADED_LOG: log });
    expect(r.code).toBe(0);
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  }

  it("--version and --help load no plugin, no core and no command module", async () => {
    for (const args of [["--version"], ["--help"]]) {
      const loaded = await loadedBy(args);
      expect(
        loaded.filter((url) => /@skillrig|\/packages\/(core|oracle|sandbox|server|skills|solve)\/|\/plugins\/|commands\//.test(url)),
        args[0],
      ).toEqual([]);
      expect(
        loaded.filter((url) => /ajv|fastify|nunjucks/.test(url)),
        args[0],
      ).toEqual([]);
    }
  });

  it("grading a task loads no skill-protocol module and none of its template, YAML, file-sniffing or view-server libraries", async () => {
    const loaded = await loadedBy(["test", "one-case/task.json", "--deliverable", "one-case/solution.py"]);
    expect(loaded.some((url) => /deliverable-function\/dist\/index\.js$/.test(url))).toBe(true);
    expect(
      loaded.filter((url) => /nunjucks|\/yaml\/|file-type|sirv|view-server|skills\/dist\/(index|resolve-input|render-prompt)/.test(url)),
    ).toEqual([]);
  });

  it("grading a task that passes compiles no schema and loads neither ajv, execa nor diff", async () => {
    const loaded = await loadedBy(["test", "one-case/task.json", "--deliverable", "one-case/solution.py"]);
    // The precompiled validators ran in their place: the task's and the config's.
    expect(loaded.some((url) => url.endsWith("/oracle/dist/task.schema.validate.js"))).toBe(true);
    expect(loaded.some((url) => url.endsWith("/cli/dist/config.validate.js"))).toBe(true);
    // ajv's runtime helper for string lengths is the one file of ajv a precompiled validator uses.
    expect(loaded.filter((url) => /\/(ajv|ajv-formats)\/dist\/(?!runtime\/)|\/(execa|diff)\//.test(url))).toEqual([]);
  });

  it("grading one task loads none of a suite's modules, lossless-json as its one-file build and only the tapable hooks core uses", async () => {
    const loaded = await loadedBy(["test", "one-case/task.json", "--deliverable", "one-case/solution.py"]);
    expect(loaded.some((url) => url.endsWith("/oracle/dist/one-task.js"))).toBe(true);
    expect(
      loaded.filter((url) =>
        /\/oracle\/dist\/(index|suite|run-suite|load-suite|samples-jsonl|suite-deliverables|pass-at-k|reporters\/suite-[a-z]+)\.js$/.test(
          url,
        ),
      ),
    ).toEqual([]);
    // Its ten ES modules were one CommonJS file to read; node:worker_threads waits for a regex compare.
    expect(loaded.filter((url) => /\/lossless-json\/lib\/esm\/|^node:worker_threads$/.test(url))).toEqual([]);
    expect(loaded.some((url) => /\/lossless-json\/lib\/umd\/lossless-json\.js$/.test(url))).toBe(true);
    expect(loaded.some((url) => /\/tapable\/lib\/AsyncSeriesHook\.js$/.test(url))).toBe(true);
    expect(loaded.filter((url) => /\/tapable\/lib\/(index|MultiHook|SyncLoopHook|AsyncParallelHook)\.js$/.test(url))).toEqual([]);
  });

  it("--version alone is answered without the command line's parser, and says what main says", async () => {
    const loaded = (await loadedBy(["--version"])).filter((url) => /\/(packages|plugins|node_modules)\//.test(url));
    expect(loaded.map((url) => url.replace(/.*\/packages\//, ""))).toEqual(["cli/dist/bin.js"]);
    const fast = await skillrig(["--version"], hooks);
    // With another argument the same flag goes through commander, which prints the version it was given.
    const viaMain = await skillrig(["--json", "--version"], hooks);
    expect(fast.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    expect(fast.stdout).toBe(viaMain.stdout);
    expect([fast.code, viaMain.code]).toEqual([0, 0]);
  });

  it("a command loads its own module and not the others'", async () => {
    const loaded = await loadedBy(["plugins", "--help"]);
    expect(loaded.some((url) => url.endsWith("/commands/plugins.js"))).toBe(true);
    expect(loaded.filter((url) => /commands\/(test|run|solve|serve|skills)\.js$/.test(url))).toEqual([]);
    expect(loaded.filter((url) => /fastify|\/packages\/server\//.test(url))).toEqual([]);
  });
});

describe("a reporter a config plugin offers, chosen with --reporter", () => {
  // The plugin offers "tally" on core's reporter hook: it says which scope it was made for and writes one line per
  // runEnd it observes (kind, and for a suite its pass rate), into --out when given.
  const tally = `import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
export default () => ({
  name: "tally",
  apply(runner) {
    runner.hooks.reporter.for("tally").tap("tally", (request) => {
      const file = join(request.out, "tally.txt");
      mkdirSync(request.out, { recursive: true });
      writeFileSync(file, "made for " + request.scope + "\\n");
      return {
        name: "tally-reporter",
        apply(r) {
          r.hooks.runEnd.tap("tally-reporter", (info) => {
            const rate = info.suite ? " " + info.suite.summary.samples_passed + "/" + info.suite.summary.samples : "";
            appendFileSync(file, info.kind + rate + "\\n");
          });
        },
      };
    });
  },
});
`;
  const dir = writeTree({
    "skillrig.config.json": JSON.stringify({ plugins: ["./tally.mjs"] }),
    "tally.mjs": tally,
    "tasks/HumanEval_0.json": scaleTask("HumanEval/0", 2),
    "tasks/HumanEval_1.json": scaleTask("HumanEval/1", 3),
    "samples.jsonl": [
      { task_id: "HumanEval/0", solution: solution(2) },
      { task_id: "HumanEval/1", solution: solution(4) },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n"),
    "one.py": solution(2),
  });

  it("a suite: made once for scope suite, it sees each sample's task end and then the suite's report; console still prints", async () => {
    const r = await skillrig(
      ["test", "tasks", "--samples", "samples.jsonl", "--reporter", "tally", "--reporter", "console", "--out", "out"],
      dir,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(readFileSync(join(dir, "out/tally.txt"), "utf8")).toBe("made for suite\ntask\ntask\nsuite 1/2\n");
    expect(r.stdout).toContain("pass@1");
  });

  it("one task: made for scope task; not asked for, it is never made", async () => {
    const r = await skillrig(["test", "tasks/HumanEval_0.json", "-d", "one.py", "--reporter", "tally", "--out", "out-one"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, "out-one/tally.txt"), "utf8")).toBe("made for task\ntask\n");
    const plain = await skillrig(["test", "tasks/HumanEval_0.json", "-d", "one.py", "--out", "out-plain"], dir);
    expect(plain.code, plain.stderr).toBe(0);
    expect(() => readFileSync(join(dir, "out-plain/tally.txt"))).toThrow(/ENOENT/);
  });

  it("an unknown name lists the built-in reporters and the plugin's", async () => {
    const r = await skillrig(["test", "tasks/HumanEval_0.json", "-d", "one.py", "--reporter", "talley"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown reporter "talley"; available: tally, console, json, junit, html');
  });
});
