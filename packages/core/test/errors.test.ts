import { describe, expect, it } from "vitest";
import { InvalidTestFormatError, pointer, pointerToKeyPath, compileSchema, formatViolations } from "../src/index.js";

describe("errors", () => {
  it("serialize to a stable shape with code and location, never a stack", () => {
    const error = new InvalidTestFormatError("invalid_test_format: function input must be args list", {
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
    expect(error.name).toBe("InvalidTestFormatError");
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
