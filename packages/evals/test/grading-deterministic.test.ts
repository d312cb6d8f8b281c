/**
 * file_contains, regex and json_schema on a run's outputs/ and on its final answer, and outputs that attack the
 * reader: links to /etc/passwd and to the skill's evals/, `..` paths, a 1 GB sparse file, a FIFO, a hard link.
 * Each hostile case states its verdict: the assertion fails, its evidence says what the entry is, and nothing the
 * link points at is read.
 */
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, openSync, closeSync, ftruncateSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runner } from "@skillrig/core";
import type { Assertion, Grading } from "../src/format.js";
import { gradeRun } from "../src/grading/index.js";
import { copySkill, gradingRunner, input, tempFolder, writeOutputs } from "./grading-helpers.js";

let dir: string;
let cleanup: () => void;
let runner: Runner;
let skillDir: string;
let outputsDir: string;

beforeAll(() => {
  ({ dir, cleanup } = tempFolder("evals-grading-det-"));
  runner = gradingRunner(dir);
  skillDir = copySkill(dir);
  outputsDir = writeOutputs(dir, {
    "report.md": "# Sales\n\nRegion: north\ntotal: 42\n",
    "data/result.json": JSON.stringify({ total: 42, regions: ["north"] }),
    "broken.json": "{ total: 42",
  });
});
afterAll(() => cleanup());

const grade = (assertions: Assertion[], answer?: unknown, outputs = outputsDir): Promise<Grading> =>
  gradeRun(input({ runner, skillDir, outputsDir: outputs, runsDir: join(dir, "runs") }, assertions, { answer }));

describe("deterministic assertions on outputs/ and on the final answer", () => {
  it("file_contains passes with an excerpt around the match, fails quoting the file's start", async () => {
    const g = await grade([
      { kind: "file_contains", path: "report.md", value: "total: 42" },
      { kind: "file_contains", path: "report.md", value: "total: 43", text: "the report gives 43" },
    ]);
    expect(g.assertion_results[0]).toEqual({
      text: "report.md contains 'total: 42'",
      passed: true,
      evidence: "report.md contains it at character 23: '# Sales\\n\\nRegion: north\\ntotal: 42\\n'",
      graded_by: "file_contains",
    });
    expect(g.assertion_results[1]).toMatchObject({ text: "the report gives 43", passed: false, graded_by: "file_contains" });
    expect(g.assertion_results[1]!.evidence).toMatch(/^report\.md \(\d+ characters\) does not contain 'total: 43'; it begins '# Sales/);
    expect(g.summary).toEqual({ passed: 1, failed: 1, total: 2, pass_rate: 0.5 });
    expect(g.errors).toBeUndefined();
  });

  it("regex passes with the match, fails without, and reports an invalid pattern as an error", async () => {
    const g = await grade([
      { kind: "regex", path: "report.md", pattern: "^total: \\d+$", flags: "m" },
      { kind: "regex", path: "report.md", pattern: "^TOTAL", flags: "m" },
      { kind: "regex", path: "report.md", pattern: "(" },
    ]);
    expect(g.assertion_results.map((r) => r.passed)).toEqual([true, false, false]);
    expect(g.assertion_results[0]!.text).toBe("report.md matches /^total: \\d+$/m");
    expect(g.assertion_results[0]!.evidence).toBe("report.md matches at character 23: '# Sales\\n\\nRegion: north\\ntotal: 42\\n'");
    expect(g.assertion_results[1]!.evidence).toContain("has no match for /^TOTAL/m");
    expect(g.assertion_results[2]!.evidence).toContain("is invalid: Invalid regular expression");
    expect(g.errors).toEqual([expect.stringMatching(/^assertion 3 \(regex\): regex \/\(\/: Invalid regular expression/)]);
  });

  it("a regex that backtracks forever on the agent's text is stopped and fails", async () => {
    const outputs = writeOutputs(dir, { "evil.txt": `${"a".repeat(40)}!` }, "outputs-redos");
    const g = await grade([{ kind: "regex", path: "evil.txt", pattern: "^(a+)+$" }], undefined, outputs);
    expect(g.assertion_results[0]).toMatchObject({
      passed: false,
      evidence: expect.stringContaining(
        "/^(a+)+$/ in evil.txt (41 characters) passed its time limit of 5000 ms (evals.regex_time_limit_ms)",
      ),
    });
    expect(g.errors?.[0]).toContain("search stopped at its time limit of 5000 ms");
  }, 60_000);

  it("the regex time limit is the config's evals.regex_time_limit_ms", async () => {
    const outputs = writeOutputs(dir, { "evil.txt": `${"a".repeat(40)}!` }, "outputs-redos-config");
    const limited = gradingRunner(dir);
    limited.config.evals = { regex_time_limit_ms: 200 };
    try {
      const g = await gradeRun(
        input({ runner: limited, skillDir, outputsDir: outputs, runsDir: join(dir, "runs") }, [
          { kind: "regex", path: "evil.txt", pattern: "^(a+)+$" },
        ]),
      );
      expect(g.assertion_results[0]!.evidence).toContain("passed its time limit of 200 ms");
    } finally {
      await limited.close();
    }
  }, 60_000);

  it("a json_schema pattern or patternProperties that backtracks forever in V8 is matched in linear time (must not hang)", async () => {
    const evil = `${"a".repeat(40)}!`;
    const outputs = writeOutputs(dir, { "evil.json": JSON.stringify({ name: evil, [evil]: 1 }) }, "outputs-redos-schema");
    const g = await grade(
      [
        { kind: "json_schema", path: "evil.json", schema: { properties: { name: { type: "string", pattern: "^(a+)+$" } } } },
        { kind: "json_schema", path: "evil.json", schema: { patternProperties: { "^(a+)+$": { type: "string" } } } },
        { kind: "json_schema", path: "evil.json", schema: { properties: { name: { pattern: "^a+!$" } } } },
      ],
      undefined,
      outputs,
    );
    expect(g.assertion_results.map((r) => r.passed)).toEqual([false, true, true]);
    expect(g.assertion_results[0]!.evidence).toBe('evil.json does not match the schema: /name must match pattern "^(a+)+$"');
  }, 60_000);

  it("json_schema passes a valid file, fails with the first violation's JSON pointer, and a file that is not JSON", async () => {
    const schema = { type: "object", required: ["total"], properties: { total: { type: "integer", minimum: 43 } } };
    const g = await grade([
      { kind: "json_schema", path: "data/result.json", schema: { type: "object", required: ["total", "regions"] } },
      { kind: "json_schema", path: "data/result.json", schema },
      { kind: "json_schema", path: "broken.json", schema },
    ]);
    expect(g.assertion_results[0]).toMatchObject({ passed: true, text: "data/result.json is JSON valid against the schema" });
    expect(g.assertion_results[1]).toMatchObject({
      passed: false,
      evidence: "data/result.json does not match the schema: /total must be >= 43",
    });
    expect(g.assertion_results[2]!.evidence).toMatch(/^broken\.json is not JSON \(.+\); it begins '\{ total: 42'$/);
  });

  it("without a path, grades the final answer: a string as is, a JSON value serialised, or itself for json_schema", async () => {
    const text = await grade(
      [
        { kind: "file_contains", value: "42 units" },
        { kind: "regex", pattern: "north|south" },
      ],
      "The total is 42 units, all from the north.",
    );
    expect(text.assertion_results.map((r) => [r.text, r.passed])).toEqual([
      ["the final answer contains '42 units'", true],
      ["the final answer matches /north|south/", true],
    ]);
    const json = await grade(
      [
        { kind: "file_contains", value: '"total":42' },
        { kind: "json_schema", schema: { type: "object", properties: { total: { const: 41 } } } },
      ],
      { total: 42 },
    );
    expect(json.assertion_results[0]!.passed).toBe(true);
    expect(json.assertion_results[1]).toMatchObject({
      passed: false,
      evidence: "the final answer does not match the schema: /total must be equal to constant",
    });
    const none = await grade([{ kind: "file_contains", value: "x" }]);
    expect(none.assertion_results[0]).toMatchObject({ passed: false, evidence: "the run gave no final answer" });
  });

  it("a missing file is a failed assertion with evidence, never an error", async () => {
    const g = await grade([{ kind: "file_contains", path: "nope/summary.md", value: "x" }]);
    expect(g.assertion_results[0]).toMatchObject({ passed: false, evidence: "nope does not exist in outputs/" });
    expect(g.errors).toBeUndefined();
  });

  it("no assertions: fails closed, pass_rate 0 with total 0 and an error saying nothing was graded (must fail)", async () => {
    const g = await grade([]);
    expect(g.summary).toEqual({ passed: 0, failed: 0, total: 0, pass_rate: 0 });
    expect(g.errors).toEqual(["the run has no assertions: nothing was graded"]);
  });
});

describe("hostile outputs (each must fail the assertion, saying what it met, and read nothing outside outputs/)", () => {
  let hostile: string;
  beforeAll(() => {
    hostile = writeOutputs(dir, { "real.txt": "fine\n" }, "outputs-hostile");
    symlinkSync("/etc/passwd", join(hostile, "passwd-link"));
    symlinkSync(join(skillDir, "evals", "expected.json"), join(hostile, "expected.json"));
    symlinkSync(join(skillDir, "evals"), join(hostile, "evals"));
    symlinkSync("/etc", join(hostile, "etc"));
    // 1 GB, sparse: the reader must refuse it by its size, not read it.
    const fd = openSync(join(hostile, "huge.txt"), "w");
    ftruncateSync(fd, 1024 * 1024 * 1024);
    closeSync(fd);
    execFileSync("mkfifo", [join(hostile, "pipe")]);
    linkSync(join(hostile, "real.txt"), join(hostile, "hard.txt"));
    mkdirSync(join(hostile, "sub"));
  });

  const one = async (assertion: Assertion) => (await grade([assertion], undefined, hostile)).assertion_results[0]!;

  it("a link to /etc/passwd named as the assertion's path: failed, the link reported, /etc/passwd not read", async () => {
    const r = await one({ kind: "file_contains", path: "passwd-link", value: "root:" });
    expect(r).toMatchObject({
      passed: false,
      evidence: "passwd-link is a symbolic link (to /etc/passwd); links in outputs/ are never followed",
    });
  });

  it("a link to the skill's evals/ (a file, or the folder on the way): failed, its content never read", async () => {
    const file = await one({ kind: "file_contains", path: "expected.json", value: "EXPECTED-VALUE" });
    expect(file.passed).toBe(false);
    expect(file.evidence).toContain("expected.json is a symbolic link");
    const through = await one({ kind: "regex", path: "evals/expected.json", pattern: "EXPECTED" });
    expect(through).toMatchObject({ passed: false, evidence: expect.stringMatching(/^evals is a symbolic link/) });
    const etc = await one({ kind: "file_contains", path: "etc/passwd", value: "root:" });
    expect(etc.evidence).toMatch(/^etc is a symbolic link \(to \/etc\)/);
    expect(`${file.evidence}${through.evidence}${etc.evidence}`).not.toMatch(/EXPECTED-VALUE-IN-EVALS|root:x/);
  });

  it("'..' and absolute paths are refused by name", async () => {
    const up = await one({ kind: "file_contains", path: "../outputs/report.md", value: "total" });
    expect(up).toMatchObject({
      passed: false,
      evidence: "../outputs/report.md: the path has a '..' component; it must stay inside outputs/",
    });
    const sneaky = await one({ kind: "file_contains", path: "sub/../../outputs/report.md", value: "total" });
    expect(sneaky.passed).toBe(false);
    const abs = await one({ kind: "file_contains", path: "/etc/passwd", value: "root" });
    expect(abs.evidence).toBe("/etc/passwd: the path is absolute; it must be relative to outputs/");
  });

  it("a 1 GB sparse file is refused by its size, unread (the 8 MiB cap is named)", async () => {
    const r = await one({ kind: "file_contains", path: "huge.txt", value: "x" });
    expect(r).toMatchObject({
      passed: false,
      evidence: "huge.txt is 1073741824 bytes, over the 8388608 bytes (8 MiB) an assertion reads; not read",
    });
  });

  it("a FIFO is reported as one and never opened (grading does not hang on it)", async () => {
    const r = await one({ kind: "json_schema", path: "pipe", schema: {} });
    expect(r).toMatchObject({ passed: false, evidence: "pipe is a FIFO, not a regular file" });
    const folder = await one({ kind: "file_contains", path: "sub", value: "x" });
    expect(folder.evidence).toBe("sub is a folder, not a regular file");
  });

  it("a hard-linked file is not read (its content may be another file's)", async () => {
    const r = await one({ kind: "file_contains", path: "hard.txt", value: "fine" });
    expect(r).toMatchObject({ passed: false, evidence: "hard.txt is a hard link (2 names); its content may be another file's" });
  });
});
