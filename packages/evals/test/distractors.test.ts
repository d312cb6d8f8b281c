/**
 * --distractors DIR (distractors.ts) and the confusion table (confusion.ts), on real folders in a temp dir: what is
 * refused before anything runs, what a neighbour's install copies (never a link, never its evals/), and the counts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { confusionTables } from "../src/confusion.js";
import { firedSkill, installDistractors, loadDistractors } from "../src/distractors.js";

let dir: string;
const underTest = () => ({ id: "csv-total", name: "csv-total", dir: join(dir, "csv-total") });

function writeSkill(folder: string, name: string, triggers?: unknown) {
  mkdirSync(join(folder, "evals"), { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n# ${name}\n`);
  if (triggers !== undefined) writeFileSync(join(folder, "evals", "triggers.json"), JSON.stringify(triggers));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "distractors-"));
  writeSkill(join(dir, "csv-total"), "csv-total");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (fn: () => unknown): { code?: string; field?: string; message: string } => {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; field?: string; message: string };
  }
  throw new Error("not refused");
};

describe("loadDistractors", () => {
  it("reads every skill folder (hidden ones passed over) and its should_trigger queries", () => {
    writeSkill(join(dir, "n", "csv-average"), "csv-average", [
      { query: "mean amount?", should_trigger: true },
      { query: "capital of Italy?", should_trigger: false },
    ]);
    writeSkill(join(dir, "n", "csv-max"), "csv-max");
    mkdirSync(join(dir, "n", ".git"));
    writeFileSync(join(dir, "n", "README.md"), "neighbours");
    const loaded = loadDistractors("n", underTest(), dir);
    expect(loaded.dir).toBe(join(dir, "n"));
    expect(loaded.skills.map((d) => [d.skill.name, d.queries])).toEqual([
      ["csv-average", ["mean amount?"]],
      ["csv-max", []],
    ]);
  });

  it.each([
    ["a missing folder", () => {}, /is not a folder/],
    ["no skill in it", () => mkdirSync(join(dir, "n")), /no skill folder in it/],
    ["a folder without SKILL.md", () => mkdirSync(join(dir, "n", "notes"), { recursive: true }), /notes\/ has no SKILL\.md/],
    ["the skill under test's name", () => writeSkill(join(dir, "n", "copy"), "csv-total"), /named "csv-total", as the skill under test is/],
    [
      "two neighbours with one name",
      () => {
        writeSkill(join(dir, "n", "a"), "same");
        writeSkill(join(dir, "n", "b"), "same");
      },
      /b\/ is named "same", as a\/ is/,
    ],
  ])("refuses %s with a usage error naming --distractors", (_, arrange, message) => {
    arrange();
    const e = refusal(() => loadDistractors("n", underTest(), dir));
    expect(e).toMatchObject({ code: "usage", field: "--distractors" });
    expect(e.message.startsWith("--distractors n: ")).toBe(true);
    expect(e.message).toMatch(message);
  });

  it("refuses the skill under test's own folder among them", () => {
    const e = refusal(() => loadDistractors(".", underTest(), dir));
    expect(e.message).toMatch(/csv-total\/ is the skill under test itself/);
  });
});

describe("installDistractors", () => {
  it("copies folders and regular files into each engine's skills folder: never a link, never evals/", () => {
    const folder = join(dir, "n", "csv-average");
    writeSkill(folder, "csv-average", [{ query: "mean?", should_trigger: true }]);
    mkdirSync(join(folder, "scripts"));
    writeFileSync(join(folder, "scripts", "mean.py"), "print(1)\n");
    writeFileSync(join(dir, "host-secret"), "HOST");
    symlinkSync(join(dir, "host-secret"), join(folder, "scripts", "secret"));
    const workspace = join(dir, "workspace");
    installDistractors(workspace, loadDistractors("n", underTest(), dir));
    for (const where of [".agents/skills", ".claude/skills"]) {
      const installed = join(workspace, where, "csv-average");
      expect(readFileSync(join(installed, "SKILL.md"), "utf8")).toContain("name: csv-average");
      expect(readFileSync(join(installed, "scripts", "mean.py"), "utf8")).toBe("print(1)\n");
      expect(existsSync(join(installed, "scripts", "secret"))).toBe(false);
      expect(existsSync(join(installed, "evals"))).toBe(false);
    }
  });

  it("names an activation by the installed skill's name, whether the engine gave its id or its name", () => {
    const installed = [
      { id: "csv-total", name: "csv-total" },
      { id: "avg-folder", name: "csv-average" },
    ];
    expect(firedSkill("avg-folder", installed)).toBe("csv-average");
    expect(firedSkill("csv-average", installed)).toBe("csv-average");
    expect(firedSkill("something-else", installed)).toBe("something-else");
  });
});

describe("confusionTables", () => {
  const input = {
    skillName: "csv-total",
    neighbours: ["csv-average"],
    engines: ["gemini", "codex"],
    own: [
      { engine: "gemini", fired: ["csv-total", "csv-total", "csv-average"] },
      { engine: "codex", fired: ["csv-total", null, null] },
    ],
    neighbourQueries: [
      { owner: "csv-average", engine: "gemini", fired: ["csv-average", "csv-total", "csv-average"] },
      { owner: "csv-average", engine: "codex", fired: ["csv-average", "csv-average", "csv-average"] },
    ],
  };

  it("counts per engine and across engines: picked on its own queries, fired on a neighbour's, with n", () => {
    const tables = confusionTables(input);
    expect(tables.map((t) => t.engine)).toEqual(["gemini", "codex", null]);
    const [gemini, codex, all] = tables;
    expect(gemini!.rows).toEqual([
      { owner: "csv-total", fired: { "csv-total": 2, "csv-average": 1 }, none: 0, n: 3 },
      { owner: "csv-average", fired: { "csv-total": 1, "csv-average": 2 }, none: 0, n: 3 },
    ]);
    expect(codex!.rows[0]).toEqual({ owner: "csv-total", fired: { "csv-total": 1, "csv-average": 0 }, none: 2, n: 3 });
    expect(all!.picked).toMatchObject({ count: 3, n: 6, rate: 0.5 });
    expect(all!.fired_on_neighbours).toMatchObject({ count: 1, n: 6, rate: 0.1667 });
    expect(all!.fired_on_neighbours.ci95![0]).toBeGreaterThan(0);
    expect(all!.fired_on_neighbours.ci95![1]).toBeLessThan(1);
  });

  it("a neighbour with no queries of its own: n 0, no rate, no interval", () => {
    const [t] = confusionTables({ ...input, engines: ["gemini"], neighbourQueries: [] });
    expect(t!.fired_on_neighbours).toEqual({ count: 0, n: 0, rate: null, ci95: null });
    expect(t!.rows[1]).toEqual({ owner: "csv-average", fired: { "csv-total": 0, "csv-average": 0 }, none: 0, n: 0 });
  });
});
