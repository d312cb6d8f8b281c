import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSkillrigError, type SkillrigError } from "@skillrig/core";
import { checkSkill, findSkills, loadSkill, resolveSkill, runnerJsonSchema } from "@skillrig/skills";
import { copyFixture, FIXTURE_SKILLS, makeSkill, tempDir, testRunner, writeTree } from "./support/helpers.js";

function loadError(dir: string): SkillrigError {
  try {
    loadSkill(dir);
  } catch (error) {
    if (isSkillrigError(error)) return error;
    throw error;
  }
  throw new Error(`expected ${dir} to fail loading`);
}

describe("fixture skill packages", () => {
  it("every fixture package loads (their failures are run-time failures, tested in run-job.test.ts)", () => {
    const ids = readdirSync(FIXTURE_SKILLS).sort();
    expect(ids).toContain("demo-prime-number");
    for (const id of ids) {
      const check = checkSkill(join(FIXTURE_SKILLS, id));
      expect(check.errors, id).toEqual([]);
      expect(check.manifest?.id, id).toBe(id);
    }
  });

  it("registers artifacts from the output schema with x-role and x-filename (defaults: output, the key)", () => {
    expect(loadSkill(join(FIXTURE_SKILLS, "demo-prime-number")).artifacts).toEqual([
      { field: "primes_file_path", role: "primes_list", filename: "primes.md", required: true },
      { field: "results_file_path", role: "analysis_results", filename: "results.json", required: true },
    ]);
    const root = tempDir();
    const dir = makeSkill(root, "defaults", {
      output: { type: "object", properties: { report: { type: "string", "x-type": "artifact" }, n: { type: "integer" } } },
    });
    expect(loadSkill(dir).artifacts).toEqual([{ field: "report", role: "output", filename: "report", required: false }]);
  });

  it("takes name and description from SKILL.md front matter when runner.json has none (demo-bible-verse)", () => {
    const m = loadSkill(join(FIXTURE_SKILLS, "demo-bible-verse"));
    expect(m.name).toBe("Demo: The Bible Verse Sampler");
    expect(m.description).toBe("Randomly selects a Bible verse, translates it, and saves it to text.md and info.json.");
  });

  it("keeps engine-specific prompts, runtime and schemas without $schema (draft-07 by default)", () => {
    const m = loadSkill(join(FIXTURE_SKILLS, "demo-pandas-stats"));
    expect(Object.keys(m.prompts)).toEqual(["gemini"]);
    expect(m.runtime?.dependencies).toEqual(["pandas"]);
    expect(m.schemas.input?.file).toBe(join(FIXTURE_SKILLS, "demo-pandas-stats/assets/input.schema.json"));
  });

  it("warns where a template writes {{ input.x }} for a parameter (demo-prime-number's divisor), with the line", () => {
    const check = checkSkill(join(FIXTURE_SKILLS, "demo-prime-number"));
    expect(check.warnings).toHaveLength(1);
    expect(check.warnings[0]).toMatchObject({ line: 13 });
    expect(check.warnings[0]!.message).toContain("{{ input.divisor }} names a parameter");
  });
});

describe("runner.json schema and package rules", () => {
  it("publishes the runner.json JSON Schema", () => {
    expect(runnerJsonSchema.$id).toBe("https://skillrig.dev/schemas/runner.schema.json");
    expect(runnerJsonSchema.required).toEqual(["id"]);
  });

  it("accepts 2020-12 schemas", () => {
    const root = tempDir();
    const dir = makeSkill(root, "modern", {
      input: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { q: { type: "string", "x-input-source": "inline" } },
        $defs: { a: { type: "string" } },
      },
      output: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { pair: { type: "array", prefixItems: [{ type: "string" }] } },
      },
    });
    expect(checkSkill(dir).errors).toEqual([]);
  });

  it("rejects an id that is not a safe slug, naming runner.json and /id", () => {
    const root = tempDir();
    const dir = makeSkill(root, "escape", { runner: { id: "../../etc", schemas: {} } });
    const error = loadError(dir);
    expect(error.code).toBe("invalid_skill");
    expect(error.violations.some((v) => v.pointer === "/id" && v.file?.endsWith("assets/runner.json"))).toBe(true);
    expect(error.message).toContain("/id");
  });

  it("requires the id to equal the folder name and the SKILL.md name", () => {
    const root = tempDir();
    const dir = makeSkill(root, "folder-name", { runner: { id: "other-name", schemas: {} } });
    const errors = checkSkill(dir).errors;
    expect(errors.find((e) => e.pointer === "/id")?.message).toContain('must equal the skill\'s folder name "folder-name"');
    expect(errors.find((e) => e.file?.endsWith("SKILL.md"))?.message).toContain(
      'front matter name "folder-name" must equal the skill id "other-name"',
    );
  });

  it("lists every problem at once, each with its file and pointer", () => {
    const root = tempDir();
    const dir = makeSkill(root, "broken", {
      runner: {
        id: "broken",
        engines: "gemini",
        entrypoint: { prompts: { gemini: "{% for x in %}" } },
        schemas: { input: "../outside.json", output: "assets/nope.json", parameter: "assets/parameter.schema.json" },
      },
      parameter: { type: "array" },
    });
    const errors = checkSkill(dir).errors;
    const where = errors.map((e) => `${e.file?.split("/").slice(-2).join("/")} ${e.pointer ?? ""}`);
    expect(where).toEqual(
      expect.arrayContaining([
        "assets/runner.json /engines",
        "assets/runner.json /schemas/input",
        "assets/runner.json /schemas/output",
        "assets/parameter.schema.json /type",
        "assets/runner.json /entrypoint/prompts/gemini",
      ]),
    );
    expect(errors.find((e) => e.pointer === "/schemas/input")?.message).toContain("inside the skill folder");
    expect(errors.find((e) => e.pointer === "/schemas/output")?.message).toContain("does not exist");
  });

  it("reports a missing SKILL.md, a missing front matter field and invalid JSON with its line", () => {
    const root = tempDir();
    const noMd = makeSkill(root, "no-md");
    rmSync(join(noMd, "SKILL.md"));
    expect(checkSkill(noMd).errors[0]?.message).toContain("is missing");

    const noDesc = makeSkill(root, "no-desc", { skillMd: "---\nname: no-desc\n---\nbody\n" });
    expect(checkSkill(noDesc).errors).toEqual([expect.objectContaining({ pointer: "/description" })]);

    const noFm = makeSkill(root, "no-fm", { skillMd: "# just text\n" });
    expect(checkSkill(noFm).errors[0]?.message).toContain("has no front matter");

    const badJson = makeSkill(root, "bad-json");
    writeFileSync(join(badJson, "assets/output.schema.json"), '{\n  "type": "object",\n  "properties": {,}\n}\n');
    const e = checkSkill(badJson).errors[0]!;
    expect(e.file).toMatch(/output\.schema\.json$/);
    expect(e.line).toBe(3);
  });

  it("checks x-input-source, extensions, file input types and artifact fields", () => {
    const root = tempDir();
    const dir = makeSkill(root, "fields", {
      input: {
        type: "object",
        properties: {
          a: { type: "string", "x-input-source": "url" },
          b: { type: "string", extensions: ["txt"] },
          c: { type: "integer" },
          d: { type: "string", "x-input-source": "inline", extensions: [".txt"] },
        },
      },
      output: {
        type: "object",
        properties: {
          f: { type: "string", "x-type": "artifact", "x-filename": "../../escape.md" },
          g: { type: "object", "x-type": "artifact" },
        },
      },
    });
    const pointers = checkSkill(dir).errors.map((e) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        "/properties/a/x-input-source",
        "/properties/b/extensions",
        "/properties/c/type",
        "/properties/d/extensions",
        "/properties/f/x-filename",
        "/properties/g/type",
      ]),
    );
  });

  it("names the file and line of a template syntax error in SKILL.md", () => {
    const root = tempDir();
    const dir = makeSkill(root, "bad-template", {
      skillMd: "---\nname: bad-template\ndescription: x\n---\n\nline 6\n{% if input.x %}\nnever closed\n",
    });
    const error = checkSkill(dir).errors.find((e) => e.rule === "template_error");
    expect(error?.file).toMatch(/bad-template\/SKILL\.md$/);
    expect(error?.message).toMatch(/SKILL\.md line \d+/);
  });

  it("warns about unknown runner.json keys instead of dropping them silently", () => {
    const root = tempDir();
    const dir = makeSkill(root, "extra", { runner: { id: "extra", max_attempts: 3, schemas: {} } });
    const check = checkSkill(dir);
    expect(check.errors).toEqual([]);
    expect(check.warnings).toEqual([expect.objectContaining({ pointer: "/max_attempts" })]);
  });
});

describe("finding skills in configured roots", () => {
  it("finds every package folder in the roots and resolves an id", () => {
    const found = findSkills([FIXTURE_SKILLS]).map((s) => s.id);
    expect(found).toEqual(readdirSync(FIXTURE_SKILLS).sort());
    const { runner } = testRunner();
    expect(resolveSkill(runner, "demo-bad-input").dir).toBe(join(FIXTURE_SKILLS, "demo-bad-input"));
  });

  it("resolves roots relative to the config folder and says what is available when an id is unknown", () => {
    const dir = tempDir();
    writeTree(dir, {});
    makeSkill(join(dir, "my-skills"), "alpha");
    const { runner } = testRunner({ roots: ["my-skills"], dir });
    expect(resolveSkill(runner, "alpha").id).toBe("alpha");
    expect(() => resolveSkill(runner, "beta")).toThrow(/no skill "beta" in \S*my-skills; available: alpha/);
    expect(() => resolveSkill(runner, "../alpha")).toThrow(/not a valid skill id/);
  });

  it("fails with invalid_config naming a configured root that does not exist", () => {
    const { runner } = testRunner({ roots: ["missing-root"] });
    try {
      resolveSkill(runner, "alpha");
      expect.unreachable();
    } catch (error) {
      expect((error as SkillrigError).code).toBe("invalid_config");
      expect((error as SkillrigError).pointer).toBe("/skills/roots/0");
    }
  });

  it("a copied fixture with a broken schema fails to load with invalid_skill", () => {
    const dir = copyFixture("demo-bad-output");
    writeFileSync(join(dir, "assets/output.schema.json"), JSON.stringify({ type: "object", properties: { result: { type: "strin" } } }));
    const error = loadError(dir);
    expect(error.code).toBe("invalid_skill");
    expect(error.violations[0]?.file).toMatch(/output\.schema\.json$/);
  });
});
