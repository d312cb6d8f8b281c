/**
 * Assertion kinds from plugins, through the one registry (core's `assertion` hook): evals.json is checked against
 * a plugin kind's schema and `check` with pointers before anything runs, unknown kinds list the plugin's, a second
 * plugin on a kind is a conflict; grading calls the plugin with the run's outputs through the safe reader, a sandbox
 * kind gets the sandbox, and a plugin that throws or answers out of shape fails its assertion naming the plugin.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkAssertionObject, defineAssertionKind } from "@skillrig/assertion-kit";
import { type AssertionRun, DEFAULT_LIMITS, Runner, resolveCaseLimits, SkillrigError } from "@skillrig/core";
import { afterAll, describe, expect, it } from "vitest";
import { gradeRun } from "../src/grading/index.js";
import { loadEvals } from "../src/load-evals.js";
import { gradingRunner, input, tempFolder, writeOutputs } from "./grading-helpers.js";

const { dir, cleanup } = tempFolder("evals-assertion-plugins-");
afterAll(() => cleanup());

/** A team's kind: the file at `path` has `lines` lines; `check` refuses a path that leaves outputs/. */
const lineCount = defineAssertionKind<{ kind: "line_count"; path: string; lines: number }>({
  name: "@acme/skillrig-assertion-line-count",
  kind: "line_count",
  runsIn: "runner",
  schema: {
    type: "object",
    required: ["path", "lines"],
    properties: { path: { type: "string", minLength: 1 }, lines: { type: "integer", minimum: 0 } },
    additionalProperties: false,
  },
  check: (a) => (a.path.startsWith("/") ? [{ pointer: "/path", message: "must be relative to outputs/" }] : []),
  describe: (a) => `${a.path} has ${a.lines} lines`,
  async grade(a, run) {
    const read = await run.readOutput(a.path);
    if (!read.ok) return { passed: false, evidence: read.reason };
    const count = read.text.split("\n").filter(Boolean).length;
    return { passed: count === a.lines, evidence: `${a.path} has ${count} lines` };
  },
});

function writeEvals(skillDir: string, assertions: unknown[]): void {
  mkdirSync(join(skillDir, "evals"), { recursive: true });
  writeFileSync(join(skillDir, "evals", "evals.json"), JSON.stringify({ skill_name: "s", evals: [{ id: 1, prompt: "p", assertions }] }));
}

function loadError(skillDir: string, runner: Runner): SkillrigError {
  try {
    loadEvals({ id: "s", name: "s", dir: skillDir }, runner);
  } catch (error) {
    if (error instanceof SkillrigError) return error;
    throw error;
  }
  throw new Error("expected loadEvals to refuse the file");
}

describe("assertion kinds from plugins", () => {
  const runner = gradingRunner(dir, lineCount);
  afterAll(() => runner.close());

  it("checks a plugin kind's fields against its schema and check, each problem at its pointer, with the built-in kinds", () => {
    const skillDir = join(dir, "skill-bad");
    writeEvals(skillDir, [
      { kind: "line_count", path: "a.txt", lines: -1, extra: true },
      { kind: "line_count", path: "/etc/passwd", lines: 1 },
      { kind: "line_count", lines: 1, text: 7 },
      { kind: "line_counts", path: "a.txt", lines: 1 },
      { kind: "file_contains", path: "a.txt" },
    ]);
    const error = loadError(skillDir, runner);
    expect(error.code).toBe("invalid_skill");
    expect(error.violations.map((v) => `${v.pointer} ${v.message}`)).toEqual([
      "/evals/0/assertions/0/extra is not an allowed key (assertion kind line_count)",
      "/evals/0/assertions/0/lines must be >= 0 (assertion kind line_count)",
      "/evals/0/assertions/1/path must be relative to outputs/ (assertion kind line_count)",
      "/evals/0/assertions/2/text must be string (assertion kind line_count)",
      "/evals/0/assertions/2/path is required (assertion kind line_count)",
      expect.stringMatching(
        /^\/evals\/0\/assertions\/3\/kind unknown assertion kind "line_counts" \(did you mean "line_count"\?\): expected one of line_count, file_contains, .*judge, tool_used, .*skill_activated, or a plain string/,
      ),
      "/evals/0/assertions/4/value is required (assertion kind file_contains)",
    ]);
    // Without the plugin, its kind is unknown: the same file fails at the kind, naming what is available.
    writeEvals(skillDir, [{ kind: "line_count", path: "a.txt", lines: 1 }]);
    expect(loadError(skillDir, gradingRunner(dir)).violations[0]).toMatchObject({
      pointer: "/evals/0/assertions/0/kind",
      message: expect.stringContaining('unknown assertion kind "line_count"'),
    });
  });

  it("grades a plugin kind on the run's outputs: pass and fail with the plugin's evidence, text from its describe", async () => {
    const skillDir = join(dir, "skill-good");
    writeEvals(skillDir, [
      { kind: "line_count", path: "a.txt", lines: 2 },
      { kind: "line_count", path: "b.txt", lines: 2 },
    ]);
    const loaded = loadEvals({ id: "s", name: "s", dir: skillDir }, runner);
    const outputs = writeOutputs(join(dir, "good"), { "a.txt": "one\ntwo\n", "b.txt": "one\n" });
    symlinkSync("/etc/hostname", join(outputs, "link.txt"));
    const g = await gradeRun(
      input({ runner, skillDir, outputsDir: outputs, runsDir: join(dir, "runs") }, [
        ...loaded.cases[0]!.assertions,
        { kind: "line_count", path: "link.txt", lines: 1 },
      ]),
    );
    expect(g.assertion_results).toEqual([
      { text: "a.txt has 2 lines", passed: true, evidence: "a.txt has 2 lines", graded_by: "line_count" },
      { text: "b.txt has 2 lines", passed: false, evidence: "b.txt has 1 lines", graded_by: "line_count" },
      {
        text: "link.txt has 1 lines",
        passed: false,
        evidence: "link.txt is a symbolic link (to /etc/hostname); links in outputs/ are never followed",
        graded_by: "line_count",
      },
    ]);
    expect(g.errors).toBeUndefined();
  });

  it("fails an assertion whose plugin throws or answers out of shape, naming the plugin; a bare pass is a fail", async () => {
    const answers: Record<string, () => unknown> = {
      throws: () => {
        throw new TypeError("cannot read properties of undefined");
      },
      shapeless: () => ({ ok: true }),
      bare: () => ({ passed: true, evidence: "  " }),
    };
    const faulty = defineAssertionKind<{ kind: "faulty"; how: string }>({
      name: "@acme/faulty",
      kind: "faulty",
      runsIn: "runner",
      schema: { type: "object", properties: { how: { type: "string" } } },
      describe: (a) => `faulty ${a.how}`,
      grade: async (a) => answers[a.how]!() as never,
    });
    const r = gradingRunner(dir, faulty);
    try {
      const outputs = writeOutputs(join(dir, "faulty"), {});
      const g = await gradeRun(
        input({ runner: r, skillDir: dir, outputsDir: outputs, runsDir: join(dir, "runs") }, [
          { kind: "faulty", how: "throws" },
          { kind: "faulty", how: "shapeless" },
          { kind: "faulty", how: "bare" },
          { kind: "file_contains", value: "x" },
        ]),
      );
      expect(g.assertion_results.map((a) => [a.passed, a.evidence])).toEqual([
        [false, 'the assertion could not be graded: plugin "@acme/faulty" threw while grading: cannot read properties of undefined'],
        [false, 'plugin "@acme/faulty" answered for assertion kind "faulty" without { passed: boolean, evidence: string }'],
        [false, 'plugin "@acme/faulty" said passed but gave no evidence; a pass needs concrete evidence'],
        [false, "the run gave no final answer"],
      ]);
      expect(g.errors).toEqual([
        'assertion 1 (faulty): plugin "@acme/faulty" threw while grading: cannot read properties of undefined',
        'assertion 2 (faulty): plugin "@acme/faulty" answered for assertion kind "faulty" without { passed: boolean, evidence: string }',
      ]);
    } finally {
      await r.close();
    }
  });

  it("hands a sandbox kind the sandbox and a runner kind none; its command runs there", async () => {
    const seen: Array<AssertionRun["sandbox"]> = [];
    const sandboxed = defineAssertionKind<{ kind: "exits_zero"; command: string }>({
      name: "@acme/exits-zero",
      kind: "exits_zero",
      runsIn: "sandbox",
      schema: { type: "object", required: ["command"], properties: { command: { type: "string" } }, additionalProperties: false },
      describe: (a) => `${a.command} exits 0`,
      async grade(a, run) {
        seen.push(run.sandbox);
        const limits = { ...resolveCaseLimits({ limits: { timeout_ms: 60_000 } }), outputBytes: DEFAULT_LIMITS.outputBytes };
        const result = await run.sandbox!.run({ command: ["/bin/sh", "-c", a.command], cwd: run.outputsDir, limits });
        return { passed: result.exitCode === 0, evidence: `exit code ${result.exitCode}: ${result.stdout.trim()}` };
      },
    });
    const r = gradingRunner(dir, sandboxed);
    try {
      const outputs = writeOutputs(join(dir, "sandboxed"), { "a.txt": "hello\n" });
      const g = await gradeRun(
        input({ runner: r, skillDir: dir, outputsDir: outputs, runsDir: join(dir, "runs") }, [
          { kind: "exits_zero", command: "cat a.txt" },
          { kind: "exits_zero", command: "exit 3" },
        ]),
      );
      expect(g.assertion_results.map((a) => [a.passed, a.evidence])).toEqual([
        [true, "exit code 0: hello"],
        [false, "exit code 3: "],
      ]);
      expect(seen.every((s) => s === r.sandbox({ purpose: "script" }))).toBe(true);
    } finally {
      await r.close();
    }
  });

  it("refuses a second plugin on a kind, and a kind whose schema does not compile, naming the plugins", () => {
    const twin = defineAssertionKind({ ...lineCount.definition, name: "@other/line-count", kind: "line_count" });
    expect(() => new Runner().use(lineCount).use(twin)).toThrow(
      'assertion kind "line_count" is claimed by both plugin "@acme/skillrig-assertion-line-count" and plugin "@other/line-count"',
    );
    // Compiled when evals.json is first checked against it (not at import, which every command would pay for).
    const broken = defineAssertionKind({ ...lineCount.definition, name: "@acme/broken", kind: "broken", schema: { type: "nope" } });
    expect(() => checkAssertionObject(broken.definition, { kind: "broken" }, process.cwd())).toThrow(
      /plugin "@acme\/broken": the schema of assertion kind "broken" does not compile/,
    );
    expect(() => defineAssertionKind({ ...lineCount.definition, name: "@acme/x", kind: "Bad Kind" })).toThrow(/is not a usable name/);
  });
});
