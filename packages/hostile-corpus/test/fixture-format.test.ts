/**
 * The corpus itself: every fixture.json matches fixture.schema.json (ajv) and the folder it sits in, a malformed
 * one is a failure naming its file and what is wrong, and the corpus covers every class of issue 24 and the earlier
 * reward-hacking set on the entry points each applies to.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCorpus, loadFixture } from "./support/fixtures.js";

const temp = mkdtempSync(join(tmpdir(), "hostile-corpus-format-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function fixtureAt(cls: string, name: string, content: string, files: string[] = []): string {
  const dir = join(temp, "fixtures", cls, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "fixture.json"), content);
  for (const file of files) writeFileSync(join(dir, file), "{}");
  return dir;
}

describe("the corpus", () => {
  const corpus = loadCorpus();

  it("loads: every fixture.json is valid", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(15);
  });

  it("covers every class of issue 24 and the earlier reward-hacking set, on the entry points each applies to", () => {
    const entries = (cls: string) => new Set(corpus.filter((f) => f.spec.class === cls).flatMap((f) => f.spec.entry_points));
    expect([...entries("agent-jail")]).toEqual(expect.arrayContaining(["solve", "skill-job"]));
    expect([...entries("values")]).toEqual(expect.arrayContaining(["local", "server-sqlite", "server-redis"]));
    expect([...entries("cache-poisoning")]).toEqual(expect.arrayContaining(["local"]));
    expect([...entries("server-limits")]).toEqual(expect.arrayContaining(["local", "http-sqlite", "http-redis"]));
    expect([...entries("host-header")]).toEqual(expect.arrayContaining(["http-sqlite", "http-redis"]));
    expect([...entries("neighbours")]).toEqual(expect.arrayContaining(["local"]));
    expect([...entries("eval-grading")]).toEqual(expect.arrayContaining(["eval"]));
    const hacks = corpus.filter((f) => f.spec.class === "reward-hacking");
    expect(hacks.map((f) => f.id.split("/")[1])).toEqual(
      expect.arrayContaining([
        "eq-always-true",
        "patch-harness-at-import",
        "read-task-file",
        "setsid-daemon",
        "fake-frame-proc-fd",
        "skip-limits-at-import",
      ]),
    );
    for (const f of hacks) expect(f.spec.entry_points).toEqual(expect.arrayContaining(["local", "server-sqlite", "server-redis"]));
  });

  it("names a marker for every attack that runs code, so none can pass by doing nothing", () => {
    // A fixture whose attack is its input (refused before anything runs) or a request has nothing to print.
    const runsCode = (f: (typeof corpus)[number]) =>
      f.spec.agent !== undefined || (f.spec.grade !== undefined && f.spec.verdict?.refused === undefined);
    expect(corpus.filter((f) => runsCode(f) && !f.spec.attack_marker).map((f) => f.id)).toEqual([]);
  });
});

describe("a malformed fixture is a clear failure naming its file", () => {
  it("breaks the schema: the file and each JSON pointer at fault", () => {
    const dir = fixtureAt(
      "values",
      "broken",
      JSON.stringify({ class: "values", attacks: "short", entry_points: ["local", "carrier-pigeon"] }),
    );
    expect(() => loadFixture(dir, join(temp, "fixtures"))).toThrow(
      /fixtures\/values\/broken\/fixture\.json.*does not match fixture\.schema\.json: .*\/attacks must NOT have fewer than 10 characters.*\/entry_points\/1 must be equal to one of the allowed values/,
    );
  });

  it("is not JSON: the file and the parser's message", () => {
    const dir = fixtureAt("values", "not-json", "{ class: values");
    expect(() => loadFixture(dir, join(temp, "fixtures"))).toThrow(/fixtures\/values\/not-json\/fixture\.json: not readable JSON/);
  });

  it("sits in another class's folder, or names files it does not have", () => {
    const dir = fixtureAt(
      "values",
      "misfiled",
      JSON.stringify({
        class: "neighbours",
        attacks: "a fixture in the wrong folder",
        entry_points: ["local"],
        grade: { task: "task.json", deliverable: "missing.py" },
        verdict: { exit: 1 },
      }),
      ["task.json"],
    );
    expect(() => loadFixture(dir, join(temp, "fixtures"))).toThrow(
      /fixture\.json: \/class is "neighbours" but the fixture sits in fixtures\/values\/; \/grade\/deliverable: "missing\.py" does not exist/,
    );
  });

  it("a grading fixture without a verdict is refused", () => {
    const dir = fixtureAt(
      "values",
      "no-verdict",
      JSON.stringify({
        class: "values",
        attacks: "a fixture with no verdict",
        entry_points: ["local"],
        grade: { task: "task.json", deliverable: "task.json" },
      }),
      ["task.json"],
    );
    expect(() => loadFixture(dir, join(temp, "fixtures"))).toThrow(
      /no-verdict\/fixture\.json: does not match fixture\.schema\.json: .*must have required property 'verdict'/,
    );
  });
});
