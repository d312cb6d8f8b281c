import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { project, rejection } from "./config-project.js";
import { createRunner, defineConfigSection, findConfigFile, loadConfig, type SkillrigError } from "../src/index.js";

/** Sections a host registers, shaped like two of the bundled packages' (core itself knows none). */
const gradingSection = defineConfigSection({
  section: "grading",
  owner: "@acme/grading",
  schema: { type: "object", additionalProperties: false, properties: { jobs: { type: "integer", minimum: 1 } } },
});
const listenSection = defineConfigSection({
  section: "listen",
  owner: "@acme/listen",
  schema: {
    type: "object",
    additionalProperties: false,
    properties: { port: { type: "integer" }, roots: { type: "array", items: { type: "string" } } },
  },
});
const hostSections = [gradingSection, listenSection];

describe("config discovery", () => {
  it("walks up from the working directory to the nearest config file", async () => {
    const dir = project({ "skillrig.config.json": '{"grading":{"jobs":3}}', "a/b/c/.keep": "" });
    expect(findConfigFile(join(dir, "a/b/c"))).toBe(join(dir, "skillrig.config.json"));
    const loaded = await loadConfig({ cwd: join(dir, "a/b/c"), sections: hostSections });
    expect(loaded.config).toEqual({ grading: { jobs: 3 } });
    expect(loaded.dir).toBe(dir);
  });

  it("prefers the nearer folder, and within a folder the documented order (ts before json)", () => {
    const dir = project({
      "skillrig.config.json": "{}",
      "sub/skillrig.config.json": "{}",
      "sub/skillrig.config.ts": "export default {}",
    });
    expect(findConfigFile(join(dir, "sub"))).toBe(join(dir, "sub/skillrig.config.ts"));
  });

  it("loads TypeScript and ESM config files", async () => {
    const dir = project({
      "ts/skillrig.config.ts": "const jobs: number = 4;\nexport default { grading: { jobs } } as const;\n",
      "mjs/skillrig.config.mjs": "export default { runs_dir: 'out/runs' };\n",
    });
    expect((await loadConfig({ cwd: join(dir, "ts"), sections: hostSections })).config).toEqual({ grading: { jobs: 4 } });
    expect((await loadConfig({ cwd: join(dir, "mjs") })).config.runs_dir).toBe("out/runs");
  });

  it("uses --config when given and says when that file does not exist", async () => {
    const dir = project({ "custom.json": '{"runs_dir":"x"}' });
    expect((await loadConfig({ cwd: dir, configPath: "custom.json" })).config.runs_dir).toBe("x");
    const error = await rejection(loadConfig({ cwd: dir, configPath: "missing.json" }));
    expect(error.code).toBe("invalid_config");
    expect(error.message).toContain("missing.json does not exist");
  });

  it("gives defaults when no config file exists anywhere up the tree", async () => {
    const dir = project({ ".keep": "" });
    // tmpdir has no config above it on this machine; if it ever does, this test says so.
    expect(findConfigFile(dir)).toBeUndefined();
    expect((await loadConfig({ cwd: dir })).config).toEqual({});
  });
});

describe("config validation", () => {
  it("names an unknown key by its key path", async () => {
    const dir = project({ "skillrig.config.json": '{"listen":{"port":8080,"prot":1}}' });
    const error = await rejection(loadConfig({ cwd: dir, sections: hostSections }));
    expect(error.code).toBe("invalid_config");
    expect(error.field).toBe("listen.prot");
    expect(error.pointer).toBe("/listen/prot");
    expect(error.message).toContain("listen.prot: unknown key");
    expect(error.file).toBe(join(dir, "skillrig.config.json"));
  });

  it("names a wrong type by its key path and lists every problem", async () => {
    const dir = project({ "skillrig.config.json": '{"grading":{"jobs":"two"},"listen":{"roots":"skills"}}' });
    const error = await rejection(loadConfig({ cwd: dir, sections: hostSections }));
    expect(error.message).toContain("grading.jobs: must be integer");
    expect(error.message).toContain("listen.roots: must be array");
    expect(error.violations).toHaveLength(2);
  });

  it("rejects a plugin entry that is neither a name, a [name, options] pair nor a plugin", async () => {
    const dir = project({ "skillrig.config.json": '{"plugins":["ok", 42]}' });
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.message).toContain("plugins[1]: must be a plugin object, a package name");
    expect(error.violations).toHaveLength(1);
  });

  it("reports invalid JSON with the file", async () => {
    const dir = project({ "skillrig.config.json": '{"grading": ' });
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.message).toMatch(/skillrig\.config\.json is not valid JSON/);
  });

  it("rejects a config module whose default export is not an object", async () => {
    const dir = project({ "skillrig.config.mjs": "export default 7;" });
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.message).toContain("must be an object");
  });
});

describe("plugin resolution", () => {
  const pluginPackage = {
    "node_modules/skillrig-plugin-hello/package.json": JSON.stringify({
      name: "skillrig-plugin-hello",
      type: "module",
      exports: "./index.js",
    }),
    "node_modules/skillrig-plugin-hello/index.js": `
      export default function hello(options = {}) {
        if (options.greeting !== undefined && typeof options.greeting !== "string") throw new Error("options.greeting must be a string");
        return { name: "skillrig-plugin-hello", apply(runner) { runner.claim("engine", options.engine ?? "hello", "skillrig-plugin-hello"); } };
      }`,
    "local/class-plugin.mjs": `
      export default class LocalPlugin {
        constructor(options) { this.name = "local-class"; this.mode = options?.mode ?? "shout"; }
        apply(runner) { runner.claim("compare", this.mode, this.name); }
      }`,
  };

  it("imports package names and ./paths from the config's project, passing options, in order", async () => {
    const dir = project({
      ...pluginPackage,
      "skillrig.config.json": JSON.stringify({
        plugins: [
          ["skillrig-plugin-hello", { engine: "echo" }],
          ["./local/class-plugin.mjs", { mode: "loud" }],
        ],
      }),
    });
    const runner = await createRunner(await loadConfig({ cwd: dir }));
    expect(runner.plugins.map((p) => p.name)).toEqual(["skillrig-plugin-hello", "local-class"]);
    expect(runner.claimant("engine", "echo")?.plugin).toBe("skillrig-plugin-hello");
    expect(runner.claimant("compare", "loud")?.plugin).toBe("local-class");
  });

  it("names a missing package and the install command", async () => {
    const dir = project({ "skillrig.config.json": '{"plugins":["@acme/skillrig-engine-nope"]}' });
    const error = await rejection(loadConfig({ cwd: dir }).then((c) => createRunner(c)));
    expect(error.code).toBe("plugin_not_found");
    expect(error.message).toContain('"@acme/skillrig-engine-nope"');
    expect(error.hint).toBe("install it: npm i -D @acme/skillrig-engine-nope"); // no lockfile: npm
    expect(error.pointer).toBe("/plugins/0");
  });

  it("turns a plugin's rejection of its options into invalid_config pointing at the options", async () => {
    const dir = project({ ...pluginPackage, "skillrig.config.json": '{"plugins":[["skillrig-plugin-hello",{"greeting":5}]]}' });
    const error = await rejection(loadConfig({ cwd: dir }).then((c) => createRunner(c)));
    expect(error.code).toBe("invalid_config");
    expect(error.pointer).toBe("/plugins/0/1");
    expect(error.message).toContain("options.greeting must be a string");
  });

  it("keeps the code of an error a plugin throws from its own copy of core, its pointers read inside its options", async () => {
    // The plugin's own install of @skillrig/core: the built errors module, a second copy of the SkillrigError class.
    const coreCopy = readFileSync(resolve(import.meta.dirname, "../dist/errors.js"), "utf8");
    const dir = project({
      "node_modules/skillrig-plugin-coded/package.json": JSON.stringify({
        name: "skillrig-plugin-coded",
        type: "module",
        exports: "./index.js",
      }),
      "node_modules/skillrig-plugin-coded/node_modules/@skillrig/core/package.json": JSON.stringify({
        name: "@skillrig/core",
        type: "module",
        exports: "./errors.js",
      }),
      "node_modules/skillrig-plugin-coded/node_modules/@skillrig/core/errors.js": coreCopy,
      "node_modules/skillrig-plugin-coded/index.js": `
        import { SkillrigError } from "@skillrig/core";
        export default function coded(options = {}) {
          if (options.binary) throw new SkillrigError("engine_not_found", "no acme CLI at " + options.binary, { hint: "install acme" });
          throw new SkillrigError("invalid_config", "modle: unknown option", { pointer: "/modle", violations: [{ pointer: "/modle", message: "unknown option" }] });
        }`,
      "a/skillrig.config.json": '{"plugins":[["skillrig-plugin-coded",{"binary":"/opt/acme"}]]}',
      "b/skillrig.config.json": '{"plugins":[["skillrig-plugin-coded",{"modle":"m"}]]}',
    });
    const notFound = await rejection(loadConfig({ cwd: join(dir, "a") }).then((c) => createRunner(c)));
    expect(notFound.code).toBe("engine_not_found");
    expect(notFound.message).toContain("no acme CLI at /opt/acme");
    expect(notFound.hint).toBe("install acme");
    expect(notFound.pointer).toBe("/plugins/0/1");
    const badOption = await rejection(loadConfig({ cwd: join(dir, "b") }).then((c) => createRunner(c)));
    expect(badOption.code).toBe("invalid_config");
    expect(badOption.pointer).toBe("/plugins/0/1/modle");
    expect(badOption.violations).toEqual([
      { file: join(dir, "b/skillrig.config.json"), pointer: "/plugins/0/1/modle", message: "unknown option" },
    ]);
  });

  it("says when a module does not export a plugin", async () => {
    const dir = project({ "bad.mjs": "export const x = 1;", "skillrig.config.json": '{"plugins":["./bad.mjs"]}' });
    const error = await rejection(loadConfig({ cwd: dir }).then((c) => createRunner(c)));
    expect(error.message).toContain("does not export a plugin");
  });

  it("applies built-ins after the config's plugins, and skips them with builtins: false", async () => {
    const builtin = { name: "builtin", apply: (r: import("../src/index.js").Runner) => r.claim("deliverable", "function", "builtin") };
    const dir = project({
      ...pluginPackage,
      "on/skillrig.config.json": '{"plugins":["skillrig-plugin-hello"]}',
      "off/skillrig.config.json": '{"builtins":false}',
    });
    const on = await createRunner(await loadConfig({ cwd: join(dir, "on") }), { builtins: [builtin] });
    expect(on.plugins.map((p) => p.name)).toEqual(["skillrig-plugin-hello", "builtin"]);
    const off = await createRunner(await loadConfig({ cwd: join(dir, "off") }), { builtins: [builtin] });
    expect(off.plugins).toHaveLength(0);
  });
});
