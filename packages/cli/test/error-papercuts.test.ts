/**
 * Errors a person reads once (issue 42): each papercut as the `skillrig` command line shows it, run through the
 * built CLI in a real project folder. JSON syntax errors with line, column and the line shown; one config line per
 * mistake with its full path; "did you mean" for engines, plugins, assertion kinds, commands and config keys; hints
 * in the project's package manager; a missing upload said once; a missing --judge-prompt in words; `runs show`
 * listing failing cases; a suite with no gradable deliverable refused without a recorded run.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { skillrig as run } from "./cli-process.js";

const bin = resolve(__dirname, "../dist/bin.js");
const HELLO = resolve(__dirname, "../../../examples/hello-skill");

const skillrig = (cwd: string, ...args: string[]) => run(args, cwd);

/** A project as `skillrig init` writes it, with `files` written over it. */
async function project(files: Record<string, string> = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-papercuts-"));
  expect((await skillrig(dir, "init")).code).toBe(0);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** A plain Agent Skill (what `skillrig eval` runs) in `dir`, with `evals` as its evals/evals.json text. */
function plainSkill(dir: string, evals: string): string {
  mkdirSync(join(dir, "skills/notes/evals"), { recursive: true });
  writeFileSync(join(dir, "skills/notes/SKILL.md"), "---\nname: notes\ndescription: Counts the lines of notes.\n---\nCount the lines.\n");
  writeFileSync(join(dir, "skills/notes/evals/evals.json"), evals);
  return "skills/notes";
}

describe("JSON syntax errors: line, column, the line shown", () => {
  it("the config: a trailing comma is named with its line and column and the line under a caret", async () => {
    const dir = await project({ "skillrig.config.json": '{\n  "runs_dir": ".runs",\n}\n' });
    const r = await skillrig(dir, "plugins");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error[invalid_config]: config file");
    expect(r.stderr).toContain("is not valid JSON: line 3, column 1: a trailing comma before '}'");
    expect(r.stderr).toMatch(/^ {4}3 \| \}\n {4} {2}\| \^$/m);
    expect(r.stderr).not.toMatch(/position \d+|at JSON\.parse/);
  });

  it("a task file: the missing comma's line and column", async () => {
    const dir = await project({ "tasks/bad/task.json": '{\n  "task_id": "bad"\n  "deliverable_type": "function"\n}\n' });
    const r = await skillrig(dir, "test", "tasks/bad/task.json", "--deliverable", "tasks/add-numbers/solution.py");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("task file tasks/bad/task.json is not valid JSON: line 3, column 3: ',' expected");
    expect(r.stderr).toContain('3 |   "deliverable_type": "function"');
  });

  it("a skill's runner.json: line and column in `skills validate`", async () => {
    const dir = await project();
    const runner = join(dir, "skills/line-count/assets/runner.json");
    writeFileSync(runner, readFileSync(runner, "utf8").replace(/,\n/, "\n"));
    const r = await skillrig(dir, "skills", "validate", "skills/line-count");
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/runner\.json.*is not valid JSON: line \d+, column \d+: ',' expected/);
  });

  it("evals.json: line and column", async () => {
    const dir = await project();
    const skill = plainSkill(dir, '{\n  "skill_name": "notes",\n  "evals": [\n    {"id": 1,}\n  ]\n}\n');
    const r = await skillrig(dir, "eval", skill, "--engine", "gemini");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("evals/evals.json of skill \"notes\" is not valid JSON: line 4, column 14: a trailing comma before '}'");
    expect(r.stderr).toMatch(/^ {4}4 \| {5}\{"id": 1,\}$/m);
  });
});

describe("config errors: one line per mistake, the full path, a hint", () => {
  it("a bad server.tenants: three mistakes, three lines, each naming its tenant", async () => {
    const dir = await project({
      "skillrig.config.json": JSON.stringify({
        server: {
          tenants: {
            "team a": { tokens: ["a-token-of-sixteen-chars"] },
            b: {},
            c: { tokens: ["c-token-of-sixteen-chars"], queue_limt: 3 },
          },
        },
      }),
    });
    const r = await skillrig(dir, "plugins");
    expect(r.code).toBe(2);
    const lines = r.stderr.split("\n").filter((line) => /^ {2}server\./.test(line));
    expect(lines).toEqual([
      expect.stringMatching(/^ {2}server\.tenants\["team a"\]: is not a valid name: rename it to match/),
      "  server.tenants.b.tokens: is required",
      '  server.tenants.c.queue_limt: unknown key (did you mean "queue_limit"?)',
    ]);
    // The error's own list repeats none of them.
    expect(r.stderr.match(/team a/g)?.length).toBe(1);
  });

  it("a misspelt key inside a section gets the nearest known key", async () => {
    const dir = await project({ "skillrig.config.json": JSON.stringify({ oracle: { job: 2 } }) });
    const r = await skillrig(dir, "plugins");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('oracle.job: unknown key (did you mean "jobs"?)');
  });
});

describe("did you mean", () => {
  it("an engine: --engine gemni", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-papercuts-"));
    cpSync(HELLO, dir, { recursive: true, filter: (src) => !src.includes("node_modules") && !src.includes(".skillrig") });
    symlinkSync(join(HELLO, "node_modules"), join(dir, "node_modules"));
    const r = await skillrig(dir, "run", "word-stats", "--engine", "gemni", "--file", "text=notes.txt");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not "gemni" (did you mean "gemini"?)');
  });

  it("an assertion kind: regexp", async () => {
    const dir = await project();
    const skill = plainSkill(
      dir,
      JSON.stringify({ skill_name: "notes", evals: [{ id: 1, prompt: "count", assertions: [{ kind: "regexp", pattern: "x" }] }] }),
    );
    const r = await skillrig(dir, "eval", skill, "--engine", "gemini");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown assertion kind "regexp" (did you mean "regex"?)');
  });

  it("a command: skillrig tset", async () => {
    const r = await skillrig(await project(), "tset");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(Did you mean test?)");
  });

  it("a plugin: the installed package nearest the name, and the install command in the project's package manager", async () => {
    const dir = await project({
      "skillrig.config.json": JSON.stringify({ plugins: ["@acme/skillrig-engine-hllo"] }),
      "package-lock.json": "{}\n",
      "node_modules/@acme/skillrig-engine-hello/package.json": JSON.stringify({
        name: "@acme/skillrig-engine-hello",
        type: "module",
        main: "index.js",
      }),
      "node_modules/@acme/skillrig-engine-hello/index.js": "export default { name: 'hello', apply() {} };\n",
    });
    const r = await skillrig(dir, "plugins", "--json");
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe("plugin_not_found");
    expect(error.message).toContain('(did you mean "@acme/skillrig-engine-hello"?)');
    expect(error.hint).toContain("npm i -D @acme/skillrig-engine-hllo");
    expect(error.hint).not.toContain("pnpm");
  });

  it("a plugin in a pnpm project: the hint says pnpm add", async () => {
    const dir = await project({
      "skillrig.config.json": JSON.stringify({ plugins: ["@acme/nowhere"] }),
      "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    });
    const { error } = JSON.parse((await skillrig(dir, "plugins", "--json")).stdout);
    expect(error.hint).toBe("install it: pnpm add -D @acme/nowhere");
  });
});

describe("a linked plugin without its build", () => {
  it("is refused as not built, naming its entry and the command that builds it", async () => {
    const dir = await project();
    const plugin = mkdtempSync(join(tmpdir(), "skillrig-unbuilt-plugin-"));
    writeFileSync(
      join(plugin, "package.json"),
      JSON.stringify({
        name: "@acme/unbuilt",
        type: "module",
        exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
      }),
    );
    mkdirSync(join(dir, "node_modules/@acme"), { recursive: true });
    symlinkSync(plugin, join(dir, "node_modules/@acme/unbuilt"));
    writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ plugins: ["@acme/unbuilt"] }));
    const r = await skillrig(dir, "plugins", "--json");
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe("plugin_not_found");
    expect(error.message).toContain(`is installed from ${plugin} but has not been built: its entry dist/index.js does not exist`);
    expect(error.hint).toBe(`build it: cd ${plugin} && npm install && npm run build`);
  });
});

describe("inputs named once, in words", () => {
  it("--file text=missing.txt: one line, not a second contradictory one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-papercuts-"));
    cpSync(HELLO, dir, { recursive: true, filter: (src) => !src.includes("node_modules") && !src.includes(".skillrig") });
    symlinkSync(join(HELLO, "node_modules"), join(dir, "node_modules"));
    const r = await skillrig(dir, "run", "word-stats", "--engine", "gemini", "--file", "text=missing.txt");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the file for "text"');
    expect(r.stderr).not.toContain("was not uploaded");
  });

  it("--judge-prompt nosuch.md: a usage error in words, no raw ENOENT", async () => {
    const dir = await project();
    const skill = plainSkill(
      dir,
      JSON.stringify({ skill_name: "notes", evals: [{ id: 1, prompt: "count", assertions: ["counts lines"] }] }),
    );
    const r = await skillrig(dir, "eval", skill, "--engine", "gemini", "--judge", "gemini", "--judge-prompt", "nosuch.md");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error[usage]: --judge-prompt nosuch.md: no such file (looked for ${join(dir, "nosuch.md")})`);
    expect(r.stderr).not.toContain("ENOENT");
  });
});

describe("recorded runs", () => {
  it("runs show lists the failing cases", async () => {
    const dir = await project({ "wrong.py": "def add(a, b):\n    return a - b\n" });
    const graded = await skillrig(dir, "test", "tasks/add-numbers/task.json", "--deliverable", "wrong.py");
    expect(graded.code).toBe(1);
    const id = JSON.parse((await skillrig(dir, "runs", "list", "--json")).stdout).runs[0].id;
    const r = await skillrig(dir, "runs", "show", id);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^failing cases \(\d+\):$/m);
    expect(r.stdout).toMatch(/^ {2}failed {3}\S.*: /m);
  });

  it("a task folder with --deliverable x.py: a usage error (exit 2) and no run recorded", async () => {
    const dir = await project({ "x.py": "def add(a, b):\n    return a + b\n" });
    const r = await skillrig(dir, "test", "tasks/add-numbers", "--deliverable", "x.py");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--deliverable x.py is a file, and the tasks given are a suite");
    expect(r.stderr).toContain("hint: for one task, name its task file: skillrig test tasks/add-numbers/task.json --deliverable x.py");
    const runs = join(dir, ".skillrig/runs");
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  });
});
