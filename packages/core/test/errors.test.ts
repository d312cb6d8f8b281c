import { describe, expect, it } from "vitest";
import { hasErrorCode, isSkillrigError, SkillrigError, pointer, pointerToKeyPath, compileSchema, formatViolations } from "../src/index.js";

describe("errors", () => {
  it("serialize to a stable shape with code and location, never a stack", () => {
    const error = new SkillrigError("invalid_test_format", "invalid_test_format: function input must be args list", {
      file: "task.json",
      pointer: "/tests/2/input",
    });
    const json = error.toJSON();
    expect(json).toEqual({
      code: "invalid_test_format",
      message: "invalid_test_format: function input must be args list",
      file: "task.json",
      pointer: "/tests/2/input",
    });
    expect(JSON.stringify(json)).not.toContain("at ");
    expect(error.name).toBe("SkillrigError");
  });
});

describe("errors across two copies of core", () => {
  // A plugin installed with its own copy of @skillrig/core throws errors of that copy's classes. The query
  // string makes the module loader evaluate errors.ts a second time: a separate SkillrigError class.
  const loadSecondCopy = async () => (await import("../src/errors.js?second-copy")) as typeof import("../src/errors.js");

  it("recognises an error of another copy by its brand, keeps its code, location and JSON", async () => {
    const other = await loadSecondCopy();
    expect(other.SkillrigError).not.toBe(SkillrigError);
    const error = new other.SkillrigError("engine_auth_failed", "acme rejected the key", { field: "api_key", hint: "set ACME_KEY" });
    expect(error instanceof SkillrigError).toBe(false);
    expect(isSkillrigError(error)).toBe(true);
    expect(hasErrorCode(error, "engine_auth_failed", "engine_failed")).toBe(true);
    expect(hasErrorCode(error, "invalid_config")).toBe(false);
    expect(error.toJSON()).toEqual({
      code: "engine_auth_failed",
      message: "acme rejected the key",
      field: "api_key",
      hint: "set ACME_KEY",
    });
    expect(other.isSkillrigError(new SkillrigError("invalid_config", "bad"))).toBe(true);
  });

  it("does not take look-alikes for its errors: no brand, a wrong brand value, or no string code", () => {
    expect(isSkillrigError(Object.assign(new Error("x"), { code: "invalid_config" }))).toBe(false);
    expect(isSkillrigError({ [Symbol.for("skillrig.error")]: "yes", code: "usage" })).toBe(false);
    expect(isSkillrigError({ [Symbol.for("skillrig.error")]: 1, code: 42 })).toBe(false);
    expect(isSkillrigError(null)).toBe(false);
    expect(isSkillrigError("invalid_config")).toBe(false);
  });

  it("keeps the brand out of JSON and object spreads", () => {
    const error = new SkillrigError("invalid_config", "bad", { field: "plugins[0]" });
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.stringify(error.toJSON())).toBe('{"code":"invalid_config","message":"bad","field":"plugins[0]"}');
  });
});

describe("JSON pointers", () => {
  it("escape ~ and / in tokens and map to key paths", () => {
    expect(pointer("files", "a/b~c", 0)).toBe("/files/a~1b~0c/0");
    expect(pointerToKeyPath("/plugins/2/1")).toBe("plugins[2][1]");
    expect(pointerToKeyPath("/server/port")).toBe("server.port");
    expect(pointerToKeyPath("")).toBe("(root)");
  });
});

describe("schema validation", () => {
  it("accepts draft-07 and 2020-12 schemas and points at every violation", () => {
    const draft7 = compileSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n", "m"],
      additionalProperties: false,
    });
    const v7 = draft7.validate({ n: "x", extra: 1 });
    expect(v7.map((v) => v.pointer).sort()).toEqual(["/extra", "/m", "/n"]);
    const s2020 = compileSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string" }],
      items: false,
    });
    expect(s2020.validate(["a"])).toEqual([]);
    expect(formatViolations(s2020.validate([1, 2]))).toContain("/0 must be string");
  });

  it("fills defaults when asked", () => {
    const schema = compileSchema({ type: "object", properties: { divisor: { type: "integer", default: 1 } } }, { useDefaults: true });
    const value: Record<string, unknown> = {};
    expect(schema.validate(value)).toEqual([]);
    expect(value.divisor).toBe(1);
  });
});
