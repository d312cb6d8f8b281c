import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SkillrigError } from "@skillrig/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadEvals, loadTriggers, workspacePathOf } from "../src/load-evals.js";

let root: string;
let skillDir: string;
const skill = () => ({ id: "top-months", name: "top-months", dir: skillDir });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "evals-load-"));
  skillDir = join(root, "top-months");
  mkdirSync(join(skillDir, "evals", "files", "data"), { recursive: true });
  mkdirSync(join(skillDir, "evals", "tasks"), { recursive: true });
  writeFileSync(join(skillDir, "SKILL.md"), "---\nname: top-months\ndescription: x\n---\n");
  writeFileSync(join(skillDir, "evals", "files", "data", "sales.csv"), "month,total\n");
  writeFileSync(join(skillDir, "evals", "tasks", "rank.task.json"), "{}");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeEvals(value: unknown): string {
  const file = join(skillDir, "evals", "evals.json");
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
}

/** The error loadEvals throws, with its violations' pointers and messages. */
function problems(load: () => unknown): { error: SkillrigError; lines: string[] } {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(SkillrigError);
    const e = error as SkillrigError;
    return { error: e, lines: e.violations.map((v) => `${v.pointer} ${v.message}`) };
  }
  throw new Error("expected an error");
}

describe("loadEvals", () => {
  it("reads a valid file: expectations as assertions, files mapped below evals/files/ (basename otherwise)", () => {
    writeFileSync(join(skillDir, "notes.txt"), "n");
    writeEvals({
      skill_name: "top-months",
      evals: [
        {
          id: 1,
          prompt: "rank the months",
          expected_output: "a table",
          files: ["evals/files/data/sales.csv", "notes.txt"],
          expectations: ["names the best month", { kind: "regex", path: "out.md", pattern: "^# ", flags: "m" }],
        },
        { id: "judged", prompt: "hi", assertions: ["says hello"] },
      ],
    });
    const loaded = loadEvals(skill());
    // An object without its own text gets the kind's.
    expect(loaded.cases[0]!.assertions).toEqual([
      "names the best month",
      { kind: "regex", path: "out.md", pattern: "^# ", flags: "m", text: "out.md matches /^# /m" },
    ]);
    expect(loaded.cases[0]!.files.map((f) => [f.path, f.workspacePath])).toEqual([
      ["evals/files/data/sales.csv", "data/sales.csv"],
      ["notes.txt", "notes.txt"],
    ]);
    expect(loaded.cases[0]!.files[0]!.source).toBe(join(skillDir, "evals", "files", "data", "sales.csv"));
    expect(loaded.cases[1]!.assertions).toEqual(["says hello"]);
  });

  it("a skill with no evals.json: says where it looked and points at docs/evals.md", () => {
    const { error } = problems(() => loadEvals(skill()));
    expect(error.code).toBe("invalid_skill");
    expect(error.message).toContain(join(skillDir, "evals", "evals.json"));
    expect(error.hint).toContain("docs/evals.md");
  });

  it("not JSON: the file and the parser's message", () => {
    const file = writeEvals("{ nope");
    const { error } = problems(() => loadEvals(skill()));
    expect(error.file).toBe(file);
    expect(error.message).toMatch(/is not valid JSON/);
  });

  it("schema problems name the pointer: missing field, wrong type, unknown key, bad id", () => {
    const file = writeEvals({ skill_name: "top-months", evals: [{ id: 1 }, { id: "a b", prompt: 3, extra: true }] });
    const { error, lines } = problems(() => loadEvals(skill()));
    expect(error.file).toBe(file);
    expect(lines).toContain("/evals/0/prompt is required");
    expect(lines).toContain("/evals/1/prompt must be string");
    expect(lines).toContain("/evals/1/extra is not an allowed key");
    expect(lines.some((l) => l.startsWith("/evals/1/id "))).toBe(true);
    expect(error.violations.every((v) => v.file === file)).toBe(true);
    expect(error.message).toContain("/evals/0/prompt: is required");
  });

  it("skill_name of another skill, duplicate ids, assertions and expectations both given", () => {
    writeEvals({
      skill_name: "other-skill",
      evals: [
        { id: 1, prompt: "a", assertions: ["x"], expectations: ["y"] },
        { id: 1, prompt: "b" },
      ],
    });
    const { lines } = problems(() => loadEvals(skill()));
    expect(lines).toContain('/skill_name is "other-skill" but the skill is "top-months": these evals belong to another skill');
    expect(lines.some((l) => l.startsWith("/evals/1/id 1 is used twice (also /evals/0/id)"))).toBe(true);
    expect(lines.some((l) => l.startsWith('/evals/0/expectations both "assertions" and "expectations"'))).toBe(true);
  });

  it("files: missing, with .., absolute, a link out of the skill folder, a folder", () => {
    symlinkSync("/etc/passwd", join(skillDir, "evals", "files", "passwd"));
    writeEvals({
      skill_name: "top-months",
      evals: [
        {
          id: 1,
          prompt: "a",
          assertions: ["x"],
          files: ["evals/files/none.csv", "evals/../../x", "/etc/hostname", "evals/files/passwd", "evals/files"],
        },
      ],
    });
    const { lines } = problems(() => loadEvals(skill()));
    expect(lines[0]).toMatch(/^\/evals\/0\/files\/0 "evals\/files\/none.csv" does not exist/);
    expect(lines[1]).toMatch(/^\/evals\/0\/files\/1 .* must not contain "\.\."/);
    expect(lines[2]).toMatch(/^\/evals\/0\/files\/2 .* not an absolute path/);
    expect(lines[3]).toMatch(/^\/evals\/0\/files\/3 .* is a link out of the folder \(to \/etc\/passwd\)/);
    expect(lines[4]).toMatch(/^\/evals\/0\/files\/4 .* is not a regular file/);
  });

  it("fails closed on vacuity: no cases, a case with no assertions, an empty assertions list (must fail)", () => {
    writeEvals({ skill_name: "top-months", evals: [] });
    expect(problems(() => loadEvals(skill())).lines).toEqual(["/evals must NOT have fewer than 1 items"]);
    writeEvals({
      skill_name: "top-months",
      evals: [
        { id: 1, prompt: "a" },
        { id: 2, prompt: "b", assertions: [] },
        { id: 3, prompt: "c", expectations: [] },
        { id: 4, prompt: "d", assertions: ["fine"] },
      ],
    });
    const { lines } = problems(() => loadEvals(skill()));
    expect(lines).toEqual([
      "/evals/0 grades nothing: a case needs at least one assertion (a plain string for the judge, or an object of a kind skillrig checks)",
      "/evals/1/assertions grades nothing: a case needs at least one assertion (a plain string for the judge, or an object of a kind skillrig checks)",
      "/evals/2/expectations grades nothing: a case needs at least one assertion (a plain string for the judge, or an object of a kind skillrig checks)",
    ]);
  });

  it("a json_schema pattern the linear-time engine cannot run is refused at load, naming the pattern", () => {
    writeEvals({
      skill_name: "top-months",
      evals: [{ id: 1, prompt: "a", assertions: [{ kind: "json_schema", schema: { type: "string", pattern: "^(?=a)a+$" } }] }],
    });
    const { lines } = problems(() => loadEvals(skill()));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\/evals\/0\/assertions\/0\/schema is not a usable JSON Schema: pattern "\^\(\?=a\)a\+\$" is not supported by the linear-time engine/,
    );
  });

  it("each object assertion's kind and fields", () => {
    writeEvals({
      skill_name: "top-months",
      evals: [
        {
          id: 1,
          prompt: "a",
          assertions: [
            { kind: "contains", value: "x" },
            { kind: "file_contains", path: "a.txt" },
            { kind: "regex", pattern: "(" },
            { kind: "json_schema", schema: { type: "nope" } },
            { kind: "script", command: "", timeout_ms: -1 },
            { kind: "oracle", task: "evals/tasks/none.task.json", deliverable: "solution.py" },
            { kind: "oracle", task: "SKILL.md", deliverable: "solution.py" },
            { kind: "oracle", task: "evals/tasks/rank.task.json", deliverable: "solution.py", extra: 1 },
            "",
          ],
        },
      ],
    });
    const { lines } = problems(() => loadEvals(skill()));
    const at = (i: number) => lines.filter((l) => l.startsWith(`/evals/0/assertions/${i}`));
    expect(at(0)[0]).toMatch(/^\/evals\/0\/assertions\/0\/kind unknown assertion kind "contains": expected one of file_contains, regex/);
    expect(at(1)).toContain("/evals/0/assertions/1/value is required (assertion kind file_contains)");
    expect(at(2)[0]).toMatch(/^\/evals\/0\/assertions\/2\/pattern is not a valid regular expression/);
    expect(at(3)[0]).toMatch(/^\/evals\/0\/assertions\/3\/schema is not a usable JSON Schema/);
    expect(at(4)).toContain("/evals/0/assertions/4/command must NOT have fewer than 1 characters (assertion kind script)");
    expect(at(4)).toContain("/evals/0/assertions/4/timeout_ms must be >= 1 (assertion kind script)");
    expect(at(5)[0]).toMatch(/^\/evals\/0\/assertions\/5\/task the oracle task file does not exist/);
    expect(at(6)[0]).toMatch(/^\/evals\/0\/assertions\/6\/task the oracle task file is "SKILL.md", not a path under evals\//);
    expect(at(7)).toContain("/evals/0/assertions/7/extra is not an allowed key (assertion kind oracle)");
    expect(at(8)).toEqual(["/evals/0/assertions/8 is an empty assertion"]);
    // Structure first: an assertion that is neither a string nor an object is the schema's problem.
    writeEvals({ skill_name: "top-months", evals: [{ id: 1, prompt: "a", assertions: [7] }] });
    expect(problems(() => loadEvals(skill())).lines).toEqual(["/evals/0/assertions/0 must be string,object"]);
  });

  it("workspacePathOf: below evals/files/, else the basename", () => {
    expect(workspacePathOf("evals/files/a/b.csv")).toBe("a/b.csv");
    expect(workspacePathOf("./evals/files/b.csv")).toBe("b.csv");
    expect(workspacePathOf("assets/x/y.txt")).toBe("y.txt");
  });
});

describe("loadTriggers", () => {
  const writeTriggers = (value: unknown) => {
    const file = join(skillDir, "evals", "triggers.json");
    writeFileSync(file, JSON.stringify(value));
    return file;
  };

  it("no triggers.json: undefined; an array and the { queries } shape both read", () => {
    expect(loadTriggers(skill())).toBeUndefined();
    writeTriggers([{ query: "rank months", should_trigger: true }]);
    expect(loadTriggers(skill())!.queries).toEqual([{ query: "rank months", should_trigger: true }]);
    writeTriggers({ queries: [{ query: "weather", should_trigger: false, split: "validation" }] });
    expect(loadTriggers(skill())!.queries[0]!.split).toBe("validation");
  });

  it("problems name the pointer of the shape meant", () => {
    const file = writeTriggers([
      { query: "a", should_trigger: "yes" },
      { query: "b", should_trigger: true, split: "test" },
    ]);
    const { error, lines } = problems(() => loadTriggers(skill()));
    expect(error.file).toBe(file);
    expect(lines).toContain("/0/should_trigger must be boolean");
    expect(lines).toContain('/1/split must be one of "train", "validation"');
    writeTriggers({ queries: [{ should_trigger: true }], other: 1 });
    const second = problems(() => loadTriggers(skill())).lines;
    expect(second).toContain("/queries/0/query is required");
    expect(second).toContain("/other is not an allowed key");
    writeTriggers({
      queries: [
        { query: "same", should_trigger: true },
        { query: "same ", should_trigger: false },
      ],
    });
    expect(problems(() => loadTriggers(skill())).lines).toEqual(["/queries/1/query repeats /queries/0/query"]);
  });
});
