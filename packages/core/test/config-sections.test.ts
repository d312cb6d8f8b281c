/**
 * Config sections contributed by plugins: a third-party plugin package, written here into a project's
 * node_modules as a team would publish it, contributes its own `acme` section; the config is validated against
 * it when loaded, and the errors name the file, the JSON pointer and the packages that contribute each section.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { project, rejection } from "./config-project.js";
import {
  checkConfigSections,
  compileSchema,
  composeConfigSchema,
  createRunner,
  defineConfigSection,
  loadConfig,
  validateConfig,
} from "../src/index.js";

/** A plugin package as published: its section on the plugin object; it reads the section in apply(). */
function pluginPackage(name: string, plugin: string): Record<string, string> {
  return {
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, type: "module", exports: "./index.js" }),
    [`node_modules/${name}/index.js`]: plugin,
  };
}

const ACME_SECTION = `{
  section: "acme",
  owner: "@acme/skillrig-engine-acme",
  schema: {
    description: "The acme engine's endpoint and retries.",
    type: "object",
    additionalProperties: false,
    required: ["endpoint"],
    properties: {
      endpoint: { type: "string", pattern: "^https?://" },
      retries: { type: "integer", minimum: 0, maximum: 5 },
    },
  },
}`;

const acmePlugin = pluginPackage(
  "@acme/skillrig-engine-acme",
  `export default function acme() {
     return {
       name: "@acme/skillrig-engine-acme",
       configSections: [${ACME_SECTION}],
       apply(runner) {
         // What the plugin was given: its section, validated before apply() ran.
         runner.claim("engine", "acme-" + (runner.config.acme?.retries ?? 0), this.name);
       },
     };
   }`,
);

/** A host's own section (the CLI registers the bundled packages' this way). */
const gradingSection = defineConfigSection({
  section: "grading",
  owner: "@acme/grading",
  schema: { type: "object", additionalProperties: false, properties: { jobs: { type: "integer", minimum: 1 } } },
});

describe("a plugin's config section", () => {
  it("is validated with the config and handed to the plugin", async () => {
    const dir = project({
      ...acmePlugin,
      "skillrig.config.json": JSON.stringify({
        plugins: ["@acme/skillrig-engine-acme"],
        acme: { endpoint: "https://acme.example/v1", retries: 3 },
      }),
    });
    const loaded = await loadConfig({ cwd: dir, sections: [gradingSection] });
    expect(loaded.sections?.map((s) => `${s.section}:${s.owner}`)).toEqual(["grading:@acme/grading", "acme:@acme/skillrig-engine-acme"]);
    const runner = await createRunner(loaded);
    expect(runner.claimant("engine", "acme-3")?.plugin).toBe("@acme/skillrig-engine-acme");
    // Resolved once, at load: createRunner applies the same instances.
    expect(runner.plugins).toEqual(loaded.plugins);
  });

  it("names the file, the JSON pointer and the key path of every bad value, with the host's problems in the same list", async () => {
    const dir = project({
      ...acmePlugin,
      "skillrig.config.json": JSON.stringify({
        plugins: ["@acme/skillrig-engine-acme"],
        acme: { endpoint: "ftp://acme.example", retries: 9, retry: 1 },
        grading: { jobs: 0 },
      }),
    });
    const file = join(dir, "skillrig.config.json");
    const error = await rejection(loadConfig({ cwd: dir, sections: [gradingSection] }));
    expect(error.code).toBe("invalid_config");
    expect(error.file).toBe(file);
    expect(error.violations.map((v) => [v.pointer, v.field, v.file])).toEqual(
      expect.arrayContaining([
        ["/acme/endpoint", "acme.endpoint", file],
        ["/acme/retries", "acme.retries", file],
        ["/acme/retry", "acme.retry", file],
        ["/grading/jobs", "grading.jobs", file],
      ]),
    );
    expect(error.violations).toHaveLength(4);
    expect(error.message).toContain("acme.retries: must be <= 5");
    expect(error.message).toContain("acme.retry: unknown key");
  });

  it("reports a missing required key of the section at its pointer", async () => {
    const dir = project({ ...acmePlugin, "skillrig.config.json": '{"plugins":["@acme/skillrig-engine-acme"],"acme":{}}' });
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.pointer).toBe("/acme/endpoint");
    expect(error.message).toContain("acme.endpoint: is required");
  });
});

describe("an unknown section", () => {
  it("is refused, naming every section that exists and the package that contributes each", async () => {
    const dir = project({
      ...acmePlugin,
      "skillrig.config.json": JSON.stringify({ plugins: ["@acme/skillrig-engine-acme"], acme: { endpoint: "http://a" }, telemetry: {} }),
    });
    const error = await rejection(loadConfig({ cwd: dir, sections: [gradingSection] }));
    expect(error.code).toBe("invalid_config");
    expect(error.pointer).toBe("/telemetry");
    expect(error.field).toBe("telemetry");
    expect(error.message).toContain("telemetry: unknown section");
    expect(error.message).toContain("sections: acme (@acme/skillrig-engine-acme), grading (@acme/grading)");
    expect(error.message).toContain("core's keys: $schema, plugins, builtins, runs_dir");
    expect(error.details).toEqual({ sections: { grading: "@acme/grading", acme: "@acme/skillrig-engine-acme" } });
    expect(error.hint).toContain('add the plugin that contributes it to "plugins"');
  });

  it("is a plugin's section when the plugin is not listed, and a near name is suggested", async () => {
    const dir = project({ ...acmePlugin, "skillrig.config.json": '{"acme":{"endpoint":"http://a"},"gradin":{}}' });
    const error = await rejection(loadConfig({ cwd: dir, sections: [gradingSection] }));
    expect(error.violations.map((v) => [v.pointer, v.message])).toEqual([
      ["/acme", "unknown section"],
      ["/gradin", 'unknown section (did you mean "grading"?)'],
    ]);
    expect(error.message).toContain("sections: grading (@acme/grading);");
  });

  it("is refused by validateConfig too, which knows only the sections it is given", () => {
    expect(() => validateConfig({ runs_dir: "r" })).not.toThrow();
    expect(() => validateConfig({ grading: { jobs: 1 } })).toThrow(/grading: unknown section.*no sections are registered/s);
    expect(() => validateConfig({ grading: { jobs: 1 } }, "x.json", [gradingSection])).not.toThrow();
  });
});

describe("a section declaration", () => {
  it("contributed by two packages under one name is a plugin_conflict naming both", async () => {
    const dir = project({
      ...acmePlugin,
      ...pluginPackage(
        "acme-copycat",
        `export default () => ({ name: "acme-copycat", configSections: [{ section: "acme", owner: "acme-copycat", schema: { type: "object" } }], apply() {} });`,
      ),
      "skillrig.config.json": '{"plugins":["@acme/skillrig-engine-acme","acme-copycat"]}',
    });
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.code).toBe("plugin_conflict");
    expect(error.pointer).toBe("/plugins/1");
    expect(error.message).toContain(
      'config section "acme" is contributed by both @acme/skillrig-engine-acme and acme-copycat (plugins[1])',
    );
  });

  it("from a plugin that takes a core key, a bad name, a schema that does not compile or a remote $ref is refused, naming the plugin", async () => {
    const cases: Array<[string, string]> = [
      ['{ section: "plugins", owner: "p", schema: {} }', "one of core's own keys"],
      ['{ section: "__proto__", owner: "p", schema: {} }', "its name must match"],
      ['{ section: "Acme", owner: "p", schema: {} }', "its name must match"],
      ['{ section: "acme", owner: "p", schema: { type: "nonsense" } }', "its schema does not compile"],
      ['{ section: "acme", owner: "p", schema: { $ref: "https://attacker.example/s.json" } }', "its schema does not compile"],
      ['{ section: "acme", owner: "p", schema: "any" }', "its schema must be a JSON Schema object"],
      ['{ section: "acme", schema: {} }', "its owner must be a package name"],
    ];
    for (const [declaration, problem] of cases) {
      const dir = project({
        ...pluginPackage("bad-section", `export default () => ({ name: "bad-section", configSections: [${declaration}], apply() {} });`),
        "skillrig.config.json": '{"plugins":["bad-section"]}',
      });
      const error = await rejection(loadConfig({ cwd: dir }));
      expect(error.code, declaration).toBe("invalid_config");
      expect(error.pointer, declaration).toBe("/plugins/0");
      expect(error.message, declaration).toContain("(plugins[0]) contributes config section");
      expect(error.message, declaration).toContain(problem);
    }
  });

  it("list that is not an array is refused, naming the plugin", async () => {
    const dir = project({
      ...pluginPackage("bad-list", `export default () => ({ name: "bad-list", configSections: "acme", apply() {} });`),
      "skillrig.config.json": '{"plugins":["bad-list"]}',
    });
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.code).toBe("invalid_config");
    expect(error.pointer).toBe("/plugins/0");
    expect(error.message).toContain('plugin "bad-list" (plugins[0]) has a configSections that is not an array');
  });

  it("is checked by defineConfigSection as soon as a package defines it; its schema when a config is loaded with it", async () => {
    expect(() => defineConfigSection({ section: "runs_dir", owner: "@acme/x", schema: {} })).toThrow(/one of core's own keys/);
    // Compiling at import would cost every command: a schema that does not compile is named at load instead,
    // as a plugin's (with its pointer) or as a host's (by the composed schema's compile).
    const broken = defineConfigSection({ section: "ok", owner: "@acme/x", schema: { minimum: "one" } });
    expect(() => checkConfigSections([{ section: broken, pluginIndex: 0 }])).toThrow(/its schema does not compile/);
    const dir = project({ "skillrig.config.json": '{"ok": 1}' });
    const error = await rejection(loadConfig({ cwd: dir, sections: [broken] }));
    expect([error.code, error.field]).toEqual(["invalid_config", "ok"]);
    expect(error.message).toContain('config section "ok" of @acme/x is invalid: its schema does not compile');
  });

  it("given twice as the same package's (a host's list and the plugin object) counts once", () => {
    const copy = defineConfigSection({ ...gradingSection, schema: structuredClone(gradingSection.schema) });
    expect(checkConfigSections([{ section: gradingSection }, { section: copy, pluginIndex: 0 }])).toEqual([gradingSection]);
  });
});

describe("the composed schema", () => {
  it("is core's base schema with each section under properties, its owner named, and enforces what loadConfig does", () => {
    const acme = defineConfigSection({
      section: "acme",
      owner: "@acme/skillrig-engine-acme",
      schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { retries: { type: "integer" } } },
    });
    const schema = composeConfigSchema([gradingSection, acme]);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties)).toEqual(["$schema", "plugins", "builtins", "runs_dir", "acme", "grading"]);
    expect(properties.acme!.description).toBe("(contributed by @acme/skillrig-engine-acme)");
    expect(properties.acme!.$schema).toBeUndefined();
    // An editor using it flags what loading would.
    const bad = { acme: { retries: "3" }, grading: { jobs: 0 }, other: 1 };
    expect(
      compileSchema(schema)
        .validate(bad)
        .map((v) => v.pointer),
    ).toEqual(["/other", "/acme/retries", "/grading/jobs"]);
    expect(() => validateConfig(bad, undefined, [gradingSection, acme])).toThrow(
      /other: unknown section[\s\S]*acme.retries[\s\S]*grading.jobs/,
    );
  });

  it("keeps a fragment's own $refs pointing inside the fragment", () => {
    const limits = defineConfigSection({
      section: "limits",
      owner: "@acme/limits",
      schema: {
        definitions: { bytes: { type: "integer", minimum: 1 } },
        type: "object",
        properties: { memory: { $ref: "#/definitions/bytes" }, disk: { $ref: "#/definitions/bytes" }, note: { const: { $ref: "#/x" } } },
      },
    });
    const schema = composeConfigSchema([limits]);
    const memory = (schema.properties as Record<string, { properties: Record<string, unknown> }>).limits!.properties.memory;
    expect(memory).toEqual({ $ref: "#/properties/limits/definitions/bytes" });
    expect(() => validateConfig({ limits: { memory: 1, disk: 2, note: { $ref: "#/x" } } }, undefined, [limits])).not.toThrow();
    expect(() => validateConfig({ limits: { memory: 0 } }, undefined, [limits])).toThrow(/limits.memory: must be >= 1/);
  });

  it("leaves the section objects and core's base schema untouched", () => {
    const before = JSON.stringify(gradingSection);
    composeConfigSchema([gradingSection]);
    expect(JSON.stringify(gradingSection)).toBe(before);
    expect(Object.keys(composeConfigSchema([]).properties as object)).toEqual(["$schema", "plugins", "builtins", "runs_dir"]);
  });
});
