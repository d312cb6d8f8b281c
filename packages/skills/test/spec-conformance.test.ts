/** SKILL.md front matter against the Agent Skills specification, on real skill folders in temp directories. */
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSkill, loadSkill, type SkillProblem } from "@skillrig/skills";
import { makeSkill, tempDir } from "./support/helpers.js";

/** A skill folder `folder` whose SKILL.md front matter is `frontMatter` (YAML lines). */
function skillWith(folder: string, frontMatter: string): string {
  return makeSkill(tempDir(), folder, { skillMd: `---\n${frontMatter}\n---\n\n# body\n` });
}

function specProblems(dir: string): SkillProblem[] {
  return checkSkill(dir).errors.filter((e) => e.source === "agent-skills-spec");
}

/** The one spec problem with `rule`, checked to name SKILL.md, the pointer and the source. */
function problemFor(dir: string, rule: string, at: string): SkillProblem {
  const found = specProblems(dir).filter((p) => p.rule === rule);
  expect(found, `${rule} in ${JSON.stringify(specProblems(dir))}`).toHaveLength(1);
  const problem = found[0]!;
  expect(problem.file).toMatch(/SKILL\.md$/);
  expect(problem.pointer).toBe(at);
  expect(problem.source).toBe("agent-skills-spec");
  return problem;
}

describe("Agent Skills specification: SKILL.md front matter", () => {
  it("accepts every field of the specification's own example with optional fields", () => {
    const dir = skillWith(
      "pdf-processing",
      [
        "name: pdf-processing",
        "description: Extract PDF text, fill forms, merge files. Use when handling PDFs.",
        "license: Apache-2.0",
        "compatibility: Requires git, docker, jq, and access to the internet",
        "metadata:",
        "  author: example-org",
        '  version: "1.0"',
        "allowed-tools: Bash(git:*) Bash(jq:*) Read",
      ].join("\n"),
    );
    expect(checkSkill(dir).errors).toEqual([]);
  });

  it("unknown-field: a top-level field the specification does not define, at its pointer", () => {
    expect(problemFor(skillWith("extra", "name: extra\ndescription: d\nversion: 1.0.0"), "unknown-field", "/version").message).toContain(
      '"version" is not one of the specification',
    );
    const two = specProblems(skillWith("extra-fields", "name: extra-fields\ndescription: d\nauthor: me\nx/y: z"));
    expect(two.map((p) => `${p.rule} ${p.pointer}`)).toEqual(["unknown-field /author", "unknown-field /x~1y"]);
  });

  it("name-characters: uppercase and underscores", () => {
    expect(problemFor(skillWith("pdf-processing", "name: PDF-Processing\ndescription: d"), "name-characters", "/name").message).toContain(
      "only lowercase letters a-z, digits 0-9 and hyphens",
    );
    // The folder and runner.json id may use "_" in skillrig; the specification's name may not.
    expect(problemFor(skillWith("pdf_processing", "name: pdf_processing\ndescription: d"), "name-characters", "/name").field).toBe("name");
  });

  it("name-hyphen-ends: a leading or trailing hyphen", () => {
    expect(problemFor(skillWith("pdf", "name: -pdf\ndescription: d"), "name-hyphen-ends", "/name").message).toContain(
      "must not start or end with a hyphen",
    );
    problemFor(skillWith("pdf", "name: pdf-\ndescription: d"), "name-hyphen-ends", "/name");
  });

  it("name-consecutive-hyphens: --", () => {
    expect(problemFor(skillWith("pdf", "name: pdf--processing\ndescription: d"), "name-consecutive-hyphens", "/name").message).toContain(
      '("--")',
    );
  });

  it("name-length: more than 64 characters (64 pass)", () => {
    const ok = "a".repeat(64);
    expect(specProblems(skillWith(ok, `name: ${ok}\ndescription: d`))).toEqual([]);
    const long = "a".repeat(65);
    expect(problemFor(skillWith(long, `name: ${long}\ndescription: d`), "name-length", "/name").message).toContain(
      "65 characters; the limit is 64",
    );
  });

  it("name-matches-folder: name differs from the folder's name", () => {
    const dir = skillWith("folder-name", "name: other-name\ndescription: d");
    expect(problemFor(dir, "name-matches-folder", "/name").message).toBe(
      'name "other-name" must equal the skill\'s folder name "folder-name"',
    );
  });

  it("description-length: more than 1024 characters (1024 pass, counted in characters, not bytes)", () => {
    expect(specProblems(skillWith("desc", `name: desc\ndescription: ${"é".repeat(1024)}`))).toEqual([]);
    expect(
      problemFor(skillWith("desc", `name: desc\ndescription: ${"d".repeat(1025)}`), "description-length", "/description").message,
    ).toContain("1025 characters; the limit is 1024");
  });

  it("a missing description is reported once, as the specification's rule, and stops loading", () => {
    const dir = skillWith("no-desc", "name: no-desc");
    expect(checkSkill(dir).errors).toEqual([expect.objectContaining({ pointer: "/description", source: "agent-skills-spec" })]);
    expect(checkSkill(dir).manifest).toBeUndefined();
  });

  it("license-type: not a string", () => {
    problemFor(skillWith("lic", "name: lic\ndescription: d\nlicense:\n  - MIT"), "license-type", "/license");
  });

  it("compatibility-type and compatibility-length: 1-500 characters", () => {
    problemFor(skillWith("compat", "name: compat\ndescription: d\ncompatibility: 3"), "compatibility-type", "/compatibility");
    problemFor(skillWith("compat", 'name: compat\ndescription: d\ncompatibility: ""'), "compatibility-length", "/compatibility");
    expect(
      problemFor(
        skillWith("compat", `name: compat\ndescription: d\ncompatibility: ${"c".repeat(501)}`),
        "compatibility-length",
        "/compatibility",
      ).message,
    ).toContain("1-500 characters; it is 501");
  });

  it("metadata-type and metadata-value: a map from string keys to string values", () => {
    problemFor(skillWith("meta", "name: meta\ndescription: d\nmetadata: author"), "metadata-type", "/metadata");
    const dir = skillWith("meta", "name: meta\ndescription: d\nmetadata:\n  author: me\n  version: 1.0");
    expect(problemFor(dir, "metadata-value", "/metadata/version").message).toBe(
      'metadata "version" must be a string, not a number (quote it: version: "1")',
    );
  });

  it("allowed-tools-type: a space-separated string, not a list", () => {
    problemFor(
      skillWith("tools", "name: tools\ndescription: d\nallowed-tools:\n  - Read\n  - Bash"),
      "allowed-tools-type",
      "/allowed-tools",
    );
  });

  it("a skill that breaks only the specification still loads for jobs (skillrig can run it), but is not valid", () => {
    const dir = skillWith("my_skill", "name: my_skill\ndescription: d\nauthor: me");
    const check = checkSkill(dir);
    expect(check.errors.map((e) => `${e.source} ${e.rule}`)).toEqual([
      "agent-skills-spec unknown-field",
      "agent-skills-spec name-characters",
    ]);
    expect(check.manifest?.id).toBe("my_skill");
    expect(loadSkill(dir).id).toBe("my_skill");
  });

  it("skillrig's own problems say so", () => {
    const dir = makeSkill(tempDir(), "own", { runner: { id: "own", schemas: { input: "assets/nope.json" } } });
    expect(checkSkill(dir).errors).toEqual([expect.objectContaining({ pointer: "/schemas/input", source: "skillrig" })]);
  });

  it("every SKILL.md in the repository conforms", () => {
    const repo = resolve(import.meta.dirname, "../../..");
    const files = execFileSync("git", ["ls-files", "*SKILL.md"], { cwd: repo, encoding: "utf8" }).split("\n").filter(Boolean);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) expect(specProblems(join(repo, file, "..")), file).toEqual([]);
  });
});
