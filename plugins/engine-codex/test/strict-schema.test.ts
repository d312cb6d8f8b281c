import { describe, expect, it } from "vitest";
import { dropAddedNulls, toStrictSchema } from "@skillrig/engine-codex";

describe("toStrictSchema", () => {
  it("makes every property required, optional ones nullable, closes objects, drops x-* and unsupported keywords", () => {
    const r = toStrictSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        digest_path: { type: "string", "x-type": "artifact", "x-filename": "digest.md", minLength: 1 },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, uniqueItems: true },
        score: { type: "number", default: 0 },
        kind: { oneOf: [{ type: "string" }, { type: "integer" }] },
        nested: { type: "object", properties: { n: { type: "integer" } }, required: [] },
      },
      required: ["digest_path", "tags"],
    });
    expect(r.unsupported).toBeUndefined();
    expect(r.schema).toEqual({
      type: "object",
      properties: {
        digest_path: { type: "string" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        score: { type: ["number", "null"] },
        kind: { anyOf: [{ anyOf: [{ type: "string" }, { type: "integer" }] }, { type: "null" }] },
        nested: {
          type: ["object", "null"],
          properties: { n: { type: ["integer", "null"] } },
          required: ["n"],
          additionalProperties: false,
        },
      },
      required: ["digest_path", "tags", "score", "kind", "nested"],
      additionalProperties: false,
    });
    expect(r.changes).toEqual(
      expect.arrayContaining([
        "/$schema: dropped",
        "/properties/digest_path/x-type: dropped",
        "/properties/kind/oneOf: -> anyOf",
        "/properties/score: optional -> required and nullable",
      ]),
    );
  });

  it("adds null to an enum it makes nullable", () => {
    const r = toStrictSchema({ type: "object", properties: { lang: { type: "string", enum: ["en", "zh"] } } });
    expect(r.schema?.properties).toEqual({ lang: { type: ["string", "null"], enum: ["en", "zh", null] } });
  });

  it("refuses what strict mode cannot say: free-form objects, open additionalProperties, non-object roots", () => {
    expect(toStrictSchema({ type: "object", properties: { metadata: { type: "object" } } }).unsupported).toBe(
      "/properties/metadata is an object without declared properties",
    );
    expect(toStrictSchema({ type: "object", properties: { a: { type: "string" } }, additionalProperties: true }).unsupported).toBe(
      "/ allows additional properties",
    );
    expect(toStrictSchema({ type: "array", items: { type: "string" } }).unsupported).toMatch(/root is not an object/);
  });
});

describe("dropAddedNulls", () => {
  it("removes nulls only where the skill's own schema made the field optional and not nullable", () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: ["string", "null"] },
        c: { type: "string" },
        d: { type: "object", properties: { e: { type: "integer" } } },
      },
      required: ["a"],
    };
    const value = { a: null, b: null, c: null, d: { e: null } };
    expect(dropAddedNulls(value, schema)).toEqual(["/c", "/d/e"]);
    expect(value).toEqual({ a: null, b: null, d: {} });
  });
});
