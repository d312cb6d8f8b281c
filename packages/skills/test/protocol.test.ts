/**
 * `@skillrig/skills/protocol`: the one reader of the Input & File Protocol's annotations. The schemas are the spec's
 * own examples (input-and-file-protocol.md), so each answer is the spec's.
 */
import type { JsonSchema, SkillManifest } from "@skillrig/core";
import {
  artifactsOf,
  checkUploadNames,
  fileInputNames,
  inlineInputNames,
  inlineInputSchema,
  inputFields,
  promptAndInstallViolations,
  workspaceFileKeyProblem,
  inputSourceOf,
  parameterFields,
  parameterNames,
  requiredFileInputNames,
  supportsEngine,
  unsupportedEngineMessage,
} from "@skillrig/skills/protocol";
import { describe, expect, it } from "vitest";

const INPUT: JsonSchema = {
  type: "object",
  properties: {
    input_file: { type: "string", description: "Path to the data file", "x-input-source": "file", extensions: [".txt", ".MD"] },
    query: { type: "string", "x-input-source": "inline" },
    // No x-input-source: a file input (the protocol's default).
    notes: { type: "string" },
  },
  required: ["input_file", "query"],
};
const PARAMETER: JsonSchema = {
  type: "object",
  properties: { divisor: { type: "integer", default: 1, description: "what to divide by" }, language: { type: "string" } },
  required: ["language"],
};
const OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    digest_path: { type: "string", "x-type": "artifact", "x-role": "digest", "x-filename": "digest.md" },
    raw_path: { type: "string", "x-type": "artifact" },
    metadata: { type: "object" },
  },
  required: ["digest_path", "metadata"],
};

const skill = {
  id: "literature-digest",
  engines: ["gemini", "codex"],
  schemas: { input: { file: "assets/input.schema.json", schema: INPUT }, parameter: { file: "p", schema: PARAMETER } },
} satisfies Pick<SkillManifest, "id" | "engines" | "schemas">;

describe("inputs", () => {
  it("a field without x-input-source is a file input; only x-input-source: inline is inline", () => {
    expect(inputSourceOf({ type: "string" })).toBe("file");
    expect(inputSourceOf({ type: "string", "x-input-source": "file" })).toBe("file");
    expect(inputSourceOf({ type: "string", "x-input-source": "inline" })).toBe("inline");
    expect(fileInputNames(skill)).toEqual(["input_file", "notes"]);
    expect(inlineInputNames(skill)).toEqual(["query"]);
    expect(requiredFileInputNames(skill)).toEqual(["input_file"]);
  });

  it("lists every field in schema order with its source, required, lower-cased extensions and description", () => {
    expect(inputFields(skill)).toEqual([
      { name: "input_file", source: "file", required: true, extensions: [".txt", ".md"], description: "Path to the data file" },
      { name: "query", source: "inline", required: true, extensions: undefined, description: undefined },
      { name: "notes", source: "file", required: false, extensions: undefined, description: undefined },
    ]);
    expect(inputFields({ schemas: {} })).toEqual([]);
  });

  it("the inline input schema is the input schema without its file fields (properties and required)", () => {
    expect(inlineInputSchema(INPUT)).toEqual({
      type: "object",
      properties: { query: { type: "string", "x-input-source": "inline" } },
      required: ["query"],
    });
    const inlineOnly: JsonSchema = { type: "object", properties: { q: { "x-input-source": "inline" } } };
    expect(inlineInputSchema(inlineOnly)).toBe(inlineOnly);
  });
});

describe("parameters and artifacts", () => {
  it("names the parameters with type, required, default and description", () => {
    expect(parameterNames(skill)).toEqual(["divisor", "language"]);
    expect(parameterFields(skill)).toEqual([
      { name: "divisor", type: "integer", required: false, default: 1, description: "what to divide by" },
      { name: "language", type: "string", required: true, default: undefined, description: undefined },
    ]);
  });

  it("registers x-type: artifact fields with x-role (default output) and x-filename (default the key)", () => {
    expect(artifactsOf(OUTPUT)).toEqual([
      { field: "digest_path", role: "digest", filename: "digest.md", required: true },
      { field: "raw_path", role: "output", filename: "raw_path", required: false },
    ]);
    expect(artifactsOf(undefined)).toEqual([]);
  });
});

describe("engines", () => {
  it("a skill supports the engines it lists, or any engine when it lists none", () => {
    expect(supportsEngine(skill, "codex")).toBe(true);
    expect(supportsEngine(skill, "claude")).toBe(false);
    expect(supportsEngine({ engines: [] }, "claude")).toBe(true);
    expect(unsupportedEngineMessage(skill, "gemini")).toBeUndefined();
    expect(unsupportedEngineMessage(skill, "claude")).toBe('skill "literature-digest" supports the engines gemini, codex, not "claude"');
  });
});

describe("upload names", () => {
  it("fits when the names are file inputs and every required file input is there", () => {
    expect(checkUploadNames(skill, ["input_file"])).toBeUndefined();
    expect(checkUploadNames(skill, ["input_file", "notes"])).toBeUndefined();
  });

  it("refuses a name that is no file input (an inline field too) with its pointer: input_invalid", () => {
    const problem = checkUploadNames(skill, ["input_file", "query", "a/b"]);
    expect(problem?.code).toBe("input_invalid");
    expect(problem?.violations.map((v) => [v.pointer, v.field])).toEqual([
      ["/query", "query"],
      ["/a~1b", "a/b"],
    ]);
    expect(problem?.violations[0]?.message).toBe(
      '"query" is not a file input of skill "literature-digest" (file inputs: input_file, notes); each file is named exactly as its field, at the top of the zip',
    );
    expect(problem?.message).toMatch(/^the upload does not fit skill "literature-digest": "query" is not a file input/);
  });

  it("a missing required file input makes the answer input_missing_file, listed with the other problems", () => {
    const problem = checkUploadNames(skill, ["stray"]);
    expect(problem?.code).toBe("input_missing_file");
    expect(problem?.violations).toEqual([
      expect.objectContaining({ pointer: "/stray", field: "stray" }),
      {
        pointer: "/input/input_file",
        field: "input_file",
        rule: "input_missing_file",
        message: 'the required file input "input_file" is not in the zip',
      },
    ]);
  });
});

describe("a plain Agent Skill's request (promptAndInstallViolations, workspaceFileKeyProblem)", () => {
  const plain = { id: "notes", plain: true };
  const runnerSkill = { id: "word-stats" };

  it("a workspace file key is a relative file path outside the folders skillrig and the engines own", () => {
    for (const ok of ["sales.csv", "data/sales.csv", "./data/x.txt", "agents/x", "a.claude/x"])
      expect(workspaceFileKeyProblem(ok), ok).toBeUndefined();
    const refused: Array<[string, RegExp]> = [
      ["../x", /".."/],
      ["data/../../x", /".."/],
      ["/etc/x", /absolute/],
      ["C:\\x", /absolute/],
      ["\\\\host\\x", /absolute/],
      [".agents/skills/notes/SKILL.md", /\.agents\//],
      ["./.agents/x", /\.agents\//],
      [".claude/skills/x/SKILL.md", /\.claude\//],
      [".gemini/settings.json", /\.gemini\//],
      [".codex/config.toml", /\.codex\//],
      [".skillrig/result.json", /\.skillrig\//],
      ["data/", /folder/],
      ["", /not a file path/],
    ];
    for (const [key, why] of refused) expect(workspaceFileKeyProblem(key), key).toMatch(why);
  });

  it("a plain skill needs a prompt and takes no input or parameter; a runner.json skill refuses a prompt", () => {
    expect(promptAndInstallViolations(plain, { prompt: "Summarise." })).toEqual([]);
    expect(promptAndInstallViolations(plain, { prompt: "Summarise.", input: {}, parameter: {} })).toEqual([]);
    expect(promptAndInstallViolations(plain, {}).map((v) => v.pointer)).toEqual(["/prompt"]);
    expect(promptAndInstallViolations(plain, { prompt: "  \n" }).map((v) => v.pointer)).toEqual(["/prompt"]);
    expect(
      promptAndInstallViolations(plain, {
        prompt: "x",
        input: { a: 1 },
        parameter: { b: 2 },
        files: { "../x": "/tmp/x", "a/b.txt": "/tmp/y" },
      }).map((v) => v.pointer),
    ).toEqual(["/input", "/parameter", "/files/..~1x"]);
    expect(promptAndInstallViolations(runnerSkill, { prompt: "x" })).toEqual([
      expect.objectContaining({ pointer: "/prompt", field: "prompt", message: expect.stringContaining("renders its own prompt") }),
    ]);
    expect(promptAndInstallViolations(runnerSkill, { input: { a: 1 } })).toEqual([]);
  });

  it("skill_install is one of referenced, discoverable, none", () => {
    for (const mode of ["referenced", "discoverable", "none"] as const)
      expect(promptAndInstallViolations(runnerSkill, { options: { skill_install: mode } })).toEqual([]);
    expect(promptAndInstallViolations(runnerSkill, { options: { skill_install: "all" as never } })).toEqual([
      expect.objectContaining({ pointer: "/options/skill_install", field: "skill_install" }),
    ]);
  });
});
