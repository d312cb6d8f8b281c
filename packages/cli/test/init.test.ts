import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSchema } from "@skillrig/core";
import { skillrig } from "./cli-process.js";

const bin = resolve(import.meta.dirname, "../dist/bin.js");

const SCHEMA_FILES = ["skillrig.config.json", "tasks/add-numbers/task.json", "skills/line-count/assets/runner.json"];

describe("skillrig init", () => {
  it("scaffolds a project whose task passes and whose skill is valid, and says what to run next", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-init-"));
    const init = await skillrig(["init"], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("npx skillrig test tasks/add-numbers/task.json --deliverable tasks/add-numbers/solution.py");
    expect(init.stdout).toContain("npx skillrig run line-count --engine gemini --file text=samples/notes.txt");

    const test = await skillrig(["test", "tasks/add-numbers/task.json", "--deliverable", "tasks/add-numbers/solution.py", "--json"], dir);
    expect(test.code, test.stderr).toBe(0);
    expect(JSON.parse(test.stdout).summary).toMatchObject({ total: 3, passed: 3 });

    const validate = await skillrig(["skills", "validate", "skills/line-count"], dir);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const list = await skillrig(["skills", "list", "--json"], dir);
    expect(list.stdout).toContain('"line-count"');
  });

  it("points every file written against a skillrig schema at the shipped schema, and the file satisfies it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-init-"));
    expect((await skillrig(["init", "--json"], dir)).code).toBe(0);
    for (const file of SCHEMA_FILES) {
      const value = JSON.parse(readFileSync(join(dir, file), "utf8"));
      expect(Object.keys(value)[0], file).toBe("$schema");
      const schemaFile = resolve(dirname(join(dir, file)), value.$schema);
      expect(existsSync(schemaFile), `${file} -> ${value.$schema}`).toBe(true);
      const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
      expect(compileSchema(schema).validate(value), file).toEqual([]);
    }
  });

  it("scaffolds into a named folder and prints the cd", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-init-"));
    const r = await skillrig(["init", "my-project"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("cd my-project");
    expect(existsSync(join(dir, "my-project/skillrig.config.json"))).toBe(true);
  });

  it("refuses to overwrite existing files without --force, naming each one, and leaves them untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-init-"));
    writeFileSync(join(dir, "skillrig.config.json"), '{"plugins": ["mine"]}\n');
    const r = await skillrig(["init", "--json"], dir);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe("usage");
    expect(error.violations).toEqual([{ file: join(dir, "skillrig.config.json"), message: "already exists" }]);
    expect(readFileSync(join(dir, "skillrig.config.json"), "utf8")).toBe('{"plugins": ["mine"]}\n');
    expect(existsSync(join(dir, "tasks"))).toBe(false);

    const forced = await skillrig(["init", "--force", "--json"], dir);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout).overwritten).toEqual(["skillrig.config.json"]);
    expect(JSON.parse(readFileSync(join(dir, "skillrig.config.json"), "utf8")).plugins).toEqual([]);
  });
});
