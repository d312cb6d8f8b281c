/**
 * Precompiled validators: the module `precompiledSchemaModule` writes validates exactly as `compileSchema` does
 * (same verdicts, same violations and pointers), is used only for the schema it was compiled from, and a config
 * whose composed schema matches a host's precompiled one is checked by it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { project, rejection } from "./config-project.js";
import {
  compileSchema,
  composeConfigSchema,
  defineConfigSection,
  fromPrecompiled,
  loadConfig,
  precompiledSchemaModule,
  schemaKey,
  type JsonSchema,
  type PrecompiledSchema,
} from "../src/index.js";

// Inside the package, so the module's `@skillrig/core/ajv-runtime` import resolves (a package may import itself).
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = mkdtempSync(join(packageRoot, ".precompiled-test-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

let written = 0;
async function precompile(schema: JsonSchema, options = {}): Promise<PrecompiledSchema> {
  const file = join(outDir, `validator-${written++}.mjs`);
  writeFileSync(file, precompiledSchemaModule(schema, options));
  return (await import(pathToFileURL(file).href)) as PrecompiledSchema;
}

/** A schema that uses what the task and config schemas use: lengths (ajv's runtime helper), enums, patterns, $refs, if/then. */
const SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://example.test/thing.schema.json",
  type: "object",
  additionalProperties: false,
  required: ["name", "items"],
  properties: {
    name: { type: "string", minLength: 2, maxLength: 5 },
    kind: { enum: ["function", "script"] },
    items: { type: "array", uniqueItems: true, items: { $ref: "#/definitions/item" } },
    id: { type: "string", pattern: "^[a-z]+$" },
  },
  if: { required: ["kind"], properties: { kind: { const: "function" } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable
  then: { required: ["id"] },
  definitions: { item: { type: "object", required: ["n"], properties: { n: { type: "integer", minimum: 0 } } } },
};

const VALUES: unknown[] = [
  { name: "ok", items: [] },
  { name: "ok", kind: "function", id: "abc", items: [{ n: 1 }, { n: 2 }] },
  { name: "😀😀", items: [] }, // two code points: minLength counts them as 2, not as 4 UTF-16 units
  { name: "x", items: [] },
  { name: "toolong", items: [{ n: -1 }, { n: "2" }, {}] },
  { name: "ok", kind: "function", items: [{ n: 1 }, { n: 1 }] },
  { name: "ok", kind: "cli", id: "A1", items: [], extra: true },
  { items: "no" },
  [],
  null,
];

describe("a precompiled validator", () => {
  it("gives the same verdict and the same violations as compileSchema, value for value", async () => {
    const precompiled = fromPrecompiled(await precompile(SCHEMA));
    const compiled = compileSchema(SCHEMA);
    for (const value of VALUES) {
      expect(precompiled.validate(value), JSON.stringify(value)).toEqual(compiled.validate(value));
      expect(precompiled.is(value)).toBe(compiled.is(value));
    }
    // The set covers both outcomes, and the pointers name the place at fault.
    expect(VALUES.filter((v) => compiled.is(v))).toHaveLength(3);
    expect(precompiled.validate({ name: "toolong", items: [{ n: -1 }] }).map((v) => v.pointer)).toEqual(["/name", "/items/0/n"]);
    expect(precompiled.validate({ name: "ok", items: [], extra: 1 })).toEqual([
      { pointer: "/extra", message: "is not an allowed key", rule: "additionalProperties" },
    ]);
  });

  it("validates core's own config schema as compileSchema does", async () => {
    const schema = composeConfigSchema([]);
    const precompiled = fromPrecompiled(await precompile(schema));
    const compiled = compileSchema(schema);
    for (const value of [{}, { plugins: ["a", { name: "b", options: {} }] }, { plugins: [3] }, { builtins: "yes" }, { nope: 1 }]) {
      expect(precompiled.validate(value), JSON.stringify(value)).toEqual(compiled.validate(value));
    }
  });

  it("is used only for the schema and options it was compiled from; another schema is compiled now", async () => {
    const module = await precompile(SCHEMA);
    expect(module.schemaKey).toBe(schemaKey(SCHEMA));
    // $id does not count (compileSchema drops it too); options and content do.
    expect(schemaKey({ ...SCHEMA, $id: "other" })).toBe(module.schemaKey);
    expect(schemaKey(SCHEMA, { useDefaults: true })).not.toBe(module.schemaKey);
    const stricter = { ...SCHEMA, properties: { ...SCHEMA.properties, name: { type: "string", minLength: 4 } } };
    expect(fromPrecompiled(module, { schema: SCHEMA }).is({ name: "ok", items: [] })).toBe(true);
    expect(fromPrecompiled(module, { schema: stricter }).validate({ name: "ok", items: [] })).toEqual([
      { pointer: "/name", message: "must NOT have fewer than 4 characters", rule: "minLength" },
    ]);
  });

  it("keeps useDefaults: the module fills defaults as the compiled validator does", async () => {
    const schema = { type: "object", properties: { retries: { type: "integer", default: 3 } } };
    const module = await precompile(schema, { useDefaults: true });
    expect(module.options).toEqual({ useDefaults: true, coerceTypes: false });
    const value: Record<string, unknown> = {};
    expect(fromPrecompiled(module).is(value)).toBe(true);
    expect(value).toEqual({ retries: 3 });
  });

  it("checks ajv-formats' formats as compileSchema does (their code is loaded through core)", async () => {
    const schema = {
      type: "object",
      properties: {
        when: { type: "string", format: "date" },
        link: { type: "string", format: "uri" },
        to: { type: "string", format: "email" },
      },
    };
    const precompiled = fromPrecompiled(await precompile(schema));
    const compiled = compileSchema(schema);
    const values = [
      { when: "2026-11-24", link: "https://example.test/a", to: "a@example.test" },
      { when: "2026-02-30", link: "not a uri", to: "nobody" },
    ];
    for (const value of values) expect(precompiled.validate(value)).toEqual(compiled.validate(value));
    expect(precompiled.validate(values[1]).map((v) => v.pointer)).toEqual(["/when", "/link", "/to"]);
  });
});

describe("a config checked by a host's precompiled validator", () => {
  const probeSection = (name: string) =>
    defineConfigSection({
      section: name,
      owner: "@acme/probe",
      schema: { type: "object", additionalProperties: false, properties: { n: { type: "integer" } } },
    });

  it("is refused by a compile when the host's module was built for another composition", async () => {
    const section = probeSection("probe_compiled");
    const dir = project({ "skillrig.config.json": JSON.stringify({ probe_compiled: { n: "not a number" } }) });
    const other = await precompile(composeConfigSchema([]));
    const error = await rejection(loadConfig({ cwd: dir, sections: [section], precompiled: [other] }));
    expect(error.message).toContain("probe_compiled.n: must be integer");
  });

  it("is checked by the module whose key is its composed schema's", async () => {
    const section = probeSection("probe_precompiled");
    const dir = project({ "skillrig.config.json": JSON.stringify({ probe_precompiled: { n: "not a number" } }) });
    // Built to show which validator ran: this one accepts anything.
    let calls = 0;
    const accepting: PrecompiledSchema = {
      schemaKey: schemaKey(composeConfigSchema([section])),
      options: {},
      validate: () => {
        calls++;
        return true;
      },
    };
    const loaded = await loadConfig({ cwd: dir, sections: [section], precompiled: [accepting] });
    expect(calls).toBeGreaterThan(0);
    expect(loaded.config).toEqual({ probe_precompiled: { n: "not a number" } });
  });
});
