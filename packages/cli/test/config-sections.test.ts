/**
 * The bundled packages' config sections as a user meets them through the CLI: validated when the config loads
 * (pointers, key paths, exit 2), composed into the shipped schema init points `$schema` at (in step with the
 * fragments), typed by declaration merging, and extended by a project's own plugin with `skillrig config schema`.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { baseConfigSchema, compileSchema } from "@skillrig/core";
import { builtinConfigSections, bundledConfigSchema, schemaText } from "../src/config-sections.js";
import { skillrig } from "./cli-process.js";

const PACKAGE_DIR = resolve(import.meta.dirname, "..");
const TYPESCRIPT = createRequire(join(PACKAGE_DIR, "package.json")).resolve("typescript");

function project(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "skillrig-cli-sections-")));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

describe("the shipped config schema", () => {
  it("is in step with the bundled packages' fragments (regenerating it gives no diff)", async () => {
    const shipped = readFileSync(join(PACKAGE_DIR, "config.schema.json"), "utf8");
    expect(shipped, "run `pnpm --filter @skillrig/cli build` and commit config.schema.json").toBe(schemaText(bundledConfigSchema()));
  });

  it("is exported by the package and holds core's keys plus each bundled section, its owner named", async () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));
    expect(manifest.exports["./config-schema.json"]).toBe("./config.schema.json");
    expect(manifest.files).toContain("config.schema.json");
    const schema = JSON.parse(readFileSync(join(PACKAGE_DIR, manifest.exports["./config-schema.json"]), "utf8"));
    const properties = schema.properties as Record<string, { description?: string }>;
    expect(Object.keys(properties).sort()).toEqual(
      [
        ...Object.keys(baseConfigSchema().properties as object),
        "cost",
        "evals",
        "oracle",
        "run",
        "sandbox",
        "server",
        "skills",
        "solve",
      ].sort(),
    );
    for (const section of builtinConfigSections) {
      expect(properties[section.section]?.description, section.section).toContain(`(contributed by ${section.owner})`);
    }
    // Core's own schema keeps only core's keys.
    expect(Object.keys(baseConfigSchema().properties as object)).toEqual(["$schema", "plugins", "builtins", "runs_dir"]);
  });

  it("accepts the repository's example configs, as an editor would", async () => {
    const validator = compileSchema(bundledConfigSchema());
    for (const example of ["hello-skill", "solve-run-length"]) {
      const file = resolve(PACKAGE_DIR, "../../examples", example, "skillrig.config.json");
      const config = JSON.parse(readFileSync(file, "utf8"));
      expect(resolve(dirname(file), config.$schema), example).toBe(join(PACKAGE_DIR, "config.schema.json"));
      expect(validator.validate(config), example).toEqual([]);
    }
  });
});

describe("bundled sections in a loaded config", () => {
  it("names an unknown key of a section by its key path and pointer, exit 2", async () => {
    const dir = project({ "skillrig.config.json": '{"server":{"port":8080,"prot":1}}' });
    const r = await skillrig(["plugins", "--json"], dir);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error).toMatchObject({
      code: "invalid_config",
      field: "server.prot",
      pointer: "/server/prot",
      file: join(dir, "skillrig.config.json"),
    });
    expect(error.message).toContain("server.prot: unknown key");
  });

  it("lists every wrong value across sections at once", async () => {
    const dir = project({ "skillrig.config.json": '{"oracle":{"jobs":"two"},"skills":{"roots":"skills"},"sandbox":{"level":"max"}}' });
    const r = await skillrig(["plugins"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("oracle.jobs: must be integer");
    expect(r.stderr).toContain("skills.roots: must be array");
    expect(r.stderr).toContain('sandbox.level: must be one of "auto", "namespaces", "rlimits", "none"');
  });

  it("refuses a misspelt section, naming the sections and their packages", async () => {
    const dir = project({ "skillrig.config.json": '{"sever":{"port":1}}' });
    const r = await skillrig(["plugins"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sever: unknown section (did you mean "server"?)');
    expect(r.stderr).toContain("server (@skillrig/server)");
    expect(r.stderr).toContain("solve (@skillrig/solve)");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("knows the sections with builtins: false (that turns off plugins, not sections)", async () => {
    const dir = project({ "skillrig.config.json": '{"builtins":false,"oracle":{"jobs":2},"server":{"port":0}}' });
    const r = await skillrig(["config", "sections", "--json"], dir);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.sections).toContainEqual({ section: "oracle", owner: "@skillrig/oracle", set: true });
    expect(body.sections).toContainEqual({ section: "solve", owner: "@skillrig/solve", set: false });
  });
});

describe("skillrig config schema", () => {
  const plugin = {
    "node_modules/skillrig-plugin-lint/package.json": JSON.stringify({
      name: "skillrig-plugin-lint",
      type: "module",
      exports: "./index.js",
    }),
    "node_modules/skillrig-plugin-lint/index.js": `
      export default () => ({
        name: "skillrig-plugin-lint",
        configSections: [{
          section: "lint",
          owner: "skillrig-plugin-lint",
          schema: { type: "object", additionalProperties: false, properties: { max_warnings: { type: "integer", minimum: 0 } } },
        }],
        apply(runner) { runner.claim("reporter", "lint", this.name); },
      });`,
  };

  it("prints the bundled schema plus the project's plugins' sections, which validates the project's config", async () => {
    const config = { plugins: ["skillrig-plugin-lint"], lint: { max_warnings: 3 }, oracle: { jobs: 2 } };
    const dir = project({ ...plugin, "skillrig.config.json": JSON.stringify(config) });
    const r = await skillrig(["config", "schema"], dir);
    expect(r.code, r.stderr).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(schema.properties.lint.description).toBe("(contributed by skillrig-plugin-lint)");
    expect(schema.properties.server).toEqual((bundledConfigSchema().properties as Record<string, unknown>).server);
    const validator = compileSchema(schema);
    expect(validator.validate(config)).toEqual([]);
    expect(validator.validate({ ...config, lint: { max_warnings: -1 } }).map((v) => v.pointer)).toEqual(["/lint/max_warnings"]);
  });

  it("--out writes the file and says what $schema to put in the config", async () => {
    const dir = project({ ...plugin, "skillrig.config.json": '{"plugins":["skillrig-plugin-lint"]}' });
    const r = await skillrig(["config", "schema", "--out", ".skillrig/config.schema.json"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"$schema": "./.skillrig/config.schema.json"');
    const written = JSON.parse(readFileSync(join(dir, ".skillrig/config.schema.json"), "utf8"));
    expect(Object.keys(written.properties)).toContain("lint");
  });

  it("refuses the plugin's section with a bad value, at its pointer", async () => {
    const dir = project({ ...plugin, "skillrig.config.json": '{"plugins":["skillrig-plugin-lint"],"lint":{"max_warnings":"3"}}' });
    const r = await skillrig(["config", "schema", "--json"], dir);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "invalid_config", pointer: "/lint/max_warnings", field: "lint.max_warnings" });
  });
});

describe("section types, by declaration merging", () => {
  /**
   * Type-checks `source` as a file of this package (so @skillrig/* resolve as they do for the CLI's own code), in a
   * worker thread: a program over the packages' declarations takes seconds of CPU, which on a loaded machine would
   * hold the test worker's event loop (and vitest's RPC with it) if it ran here.
   */
  function typeErrors(source: string): Promise<string[]> {
    const file = join(PACKAGE_DIR, "src", "__config-types-check__.ts");
    const check = `
      const { parentPort, workerData } = require("node:worker_threads");
      const ts = require(workerData.typescript);
      const { file, source } = workerData;
      const options = {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      };
      const host = ts.createCompilerHost(options);
      const readFile = host.readFile.bind(host);
      const fileExists = host.fileExists.bind(host);
      host.readFile = (name) => (name === file ? source : readFile(name));
      host.fileExists = (name) => name === file || fileExists(name);
      const getSourceFile = host.getSourceFile.bind(host);
      host.getSourceFile = (name, version, ...rest) =>
        name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
      const program = ts.createProgram([file], options, host);
      parentPort.postMessage(
        ts.getPreEmitDiagnostics(program)
          .filter((d) => d.file?.fileName === file)
          .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\\n")),
      );
    `;
    const worker = new Worker(check, { eval: true, workerData: { typescript: TYPESCRIPT, file, source } });
    return new Promise((done, fail) => {
      worker.once("message", (errors: string[]) => {
        done(errors);
        void worker.terminate();
      });
      worker.once("error", fail);
      // Settled already when it answered; otherwise it ended without one (a crash), and the test says so at once.
      worker.once("exit", (code) => fail(new Error(`the type-check worker exited (code ${code}) without an answer`)));
    });
  }

  it("types a section once its package is imported, and not before", async () => {
    const withServer = await typeErrors(`
      import type { SkillrigConfig } from "@skillrig/core";
      import type {} from "@skillrig/server/config-section";
      export const ok: SkillrigConfig = { server: { port: 8080, queue: { backend: "redis", url: "redis://h" } } };
      export const bad: SkillrigConfig = { server: { port: "8080" } };
    `);
    expect(withServer).toHaveLength(1);
    expect(withServer[0]).toMatch(/Type 'string' is not assignable to type 'number'/);

    const coreOnly = await typeErrors(`
      import type { SkillrigConfig } from "@skillrig/core";
      export const c: SkillrigConfig = { server: { port: 8080 } };
    `);
    expect(coreOnly.join("\n")).toMatch(/'server' does not exist in type 'SkillrigConfig'/);
  }, 60_000);
});
