/**
 * A plugin author's loop through the real `skillrig`: a plugin package in a sibling folder with no node_modules of
 * its own, linked into a project as `npm i -D ../my-plugin` links it, loads with the project's one copy of core and
 * its kit; a `.ts` plugin file loads as `skillrig.config.ts` does; `skillrig plugins` says where each plugin came
 * from; and the skill `init` writes runs on an engine that is not one of the bundled CLIs.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCommand, runNode, skillrig } from "./processes.js";

const CLI_VERSION = JSON.parse(readFileSync(join(REPO, "packages/cli/package.json"), "utf8")).version;

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A project whose node_modules holds skillrig's packages as an install would (links into this workspace). */
function project(root: string, config: unknown): string {
  const dir = join(root, "project");
  for (const name of ["core", "deliverable-kit", "engine-kit"]) {
    mkdirSync(join(dir, "node_modules/@skillrig"), { recursive: true });
    symlinkSync(join(REPO, "packages", name), join(dir, "node_modules/@skillrig", name));
  }
  write(join(dir, "skillrig.config.json"), JSON.stringify(config));
  return dir;
}

/**
 * A deliverable plugin package written on the kit; its claim's description says whether the runner it was given is
 * an instance of the `Runner` of the core it imported (false when it got a second copy of core).
 */
function siblingPlugin(root: string, version = "1.2.3"): string {
  const dir = join(root, "my-plugin");
  write(join(dir, "package.json"), JSON.stringify({ name: "my-plugin", version, type: "module", exports: "./index.js" }));
  write(
    join(dir, "index.js"),
    `import { Runner } from "@skillrig/core";
import { defineProcessDeliverable } from "@skillrig/deliverable-kit";
export default () => {
  const plugin = defineProcessDeliverable({ name: "my-plugin", type: "shout", argv: true, runtime: ["node"], description: "x" });
  const apply = plugin.apply.bind(plugin);
  plugin.apply = (runner) => {
    apply(runner);
    runner.claim("reporter", runner instanceof Runner ? "one-core" : "two-cores", "my-plugin");
  };
  return plugin;
};
`,
  );
  return dir;
}

interface PluginsReport {
  plugins: { name: string; source: Record<string, unknown>; claims: string[] }[];
}

describe("plugins from outside node_modules", () => {
  it("a package linked from a sibling folder with no node_modules loads with the project's core and kit", async () => {
    const root = mkdtempSync(join(tmpdir(), "skillrig-sibling-"));
    const plugin = siblingPlugin(root);
    // As a plugin author does it: npm links the folder (and writes "file:../my-plugin" into package.json).
    write(join(root, "project/package.json"), JSON.stringify({ name: "project", private: true }));
    const npm = await runCommand("npm", ["i", "-D", "../my-plugin", "--offline", "--no-audit", "--no-fund"], join(root, "project"));
    expect(npm.code, npm.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(root, "project/package.json"), "utf8")).devDependencies).toEqual({
      "my-plugin": "file:../my-plugin",
    });
    const dir = project(root, { plugins: ["my-plugin"] });

    // Control: Node alone resolves the plugin's imports from its real folder, where there is no @skillrig/core.
    const plain = await runNode(["--input-type=module", "-e", 'await import("my-plugin")'], dir);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain("Cannot find package '@skillrig/core'");

    const r = await skillrig(["plugins", "--json"], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const mine = (JSON.parse(r.stdout) as PluginsReport).plugins[0]!;
    expect(mine).toEqual({
      name: "my-plugin",
      source: { kind: "linked", package: "my-plugin", version: "1.2.3", path: plugin, link: join(dir, "node_modules/my-plugin") },
      claims: ["deliverable:shout", "reporter:one-core"],
    });
  });

  it("a linked plugin that imports a package installed nowhere is refused naming it and what to install", async () => {
    const root = mkdtempSync(join(tmpdir(), "skillrig-sibling-"));
    const plugin = siblingPlugin(root);
    write(
      join(plugin, "index.js"),
      'import { scenario } from "@skillrig/mock-model";\nexport default () => ({ name: "x", apply() {} });\n',
    );
    const dir = project(root, { plugins: ["my-plugin"] });
    symlinkSync("../../my-plugin", join(dir, "node_modules/my-plugin"));
    const r = await skillrig(["plugins", "--json"], dir);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "invalid_config",
      pointer: "/plugins/0",
      message: expect.stringContaining(`plugin "my-plugin" (plugins[0]) failed to load: Cannot find package '@skillrig/mock-model'`),
      hint: "install @skillrig/mock-model in the project (npm i -D @skillrig/mock-model), or in the plugin's own dependencies",
    });
  });

  it("a linked plugin with its own copy of core keeps it (Node's resolution comes first)", async () => {
    const root = mkdtempSync(join(tmpdir(), "skillrig-sibling-"));
    const plugin = siblingPlugin(root);
    // The author installed the plugin's dev dependencies: a core of its own (here a stand-in that is another class).
    write(
      join(plugin, "node_modules/@skillrig/core/package.json"),
      JSON.stringify({ name: "@skillrig/core", type: "module", exports: "./index.js" }),
    );
    write(join(plugin, "node_modules/@skillrig/core/index.js"), "export class Runner {}\n");
    const dir = project(root, { plugins: ["my-plugin"] });
    symlinkSync("../../my-plugin", join(dir, "node_modules/my-plugin"));

    const r = await skillrig(["plugins", "--json"], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as PluginsReport).plugins[0]!.claims).toEqual(["deliverable:shout", "reporter:two-cores"]);
  });

  it("a .ts plugin file loads as skillrig.config.ts does, and the skill init writes runs on its engine", async () => {
    const root = mkdtempSync(join(tmpdir(), "skillrig-ts-plugin-"));
    const dir = join(root, "project");
    expect((await skillrig(["init", "project", "--json"], root)).code).toBe(0);
    project(root, { plugins: ["./plugins/line-engine.ts"], skills: { roots: ["skills"] } });
    write(
      join(dir, "plugins/line-engine.ts"),
      `import { definePlugin, type Runner } from "@skillrig/core";

interface Counted { lines: number; words: number; longest_line: string }

// An engine that needs no CLI and no model: it answers from the uploaded file itself.
export default definePlugin(() => ({
  name: "line-engine",
  apply(runner: Runner): void {
    runner.hooks.job.execute.for("lines").tapPromise("line-engine", async ({ input }) => {
      const { readFileSync } = await import("node:fs");
      const text: string = readFileSync(String(input.text), "utf8");
      const rows = text.split("\\n").filter((line) => line.length > 0);
      const output: Counted = {
        lines: rows.length,
        words: text.split(/\\s+/).filter(Boolean).length,
        longest_line: rows.reduce((a, b) => (b.length > a.length ? b : a), ""),
      };
      return { ok: true, output };
    });
  },
}));
`,
    );

    const listed = await skillrig(["plugins", "--json"], dir);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    const plugins = (JSON.parse(listed.stdout) as PluginsReport).plugins;
    expect(plugins[0]).toEqual({
      name: "line-engine",
      source: { kind: "path", path: join(dir, "plugins/line-engine.ts") },
      claims: ["engine:lines"],
    });
    expect(plugins.slice(1).map((p) => p.source)).toContainEqual({ kind: "bundled", package: "@skillrig/cli", version: CLI_VERSION });

    const human = await skillrig(["plugins"], dir);
    expect(human.stdout).toContain("line-engine  [engine:lines]\n      from a file: ./plugins/line-engine.ts");
    expect(human.stdout).toContain(`from bundled with @skillrig/cli@${CLI_VERSION}`);

    const run = await skillrig(["run", "line-count", "--engine", "lines", "--file", "text=samples/notes.txt", "--json"], dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.status).toBe("succeeded");
    expect(result.output).toMatchObject({ lines: 3 });
  }, 600_000);

  it("a plugin package installed in node_modules says so with its version", async () => {
    const root = mkdtempSync(join(tmpdir(), "skillrig-installed-"));
    const dir = project(root, { plugins: ["my-plugin"] });
    const installed = join(dir, "node_modules/my-plugin");
    siblingPlugin(join(dir, "node_modules"), "2.0.0");
    const r = await skillrig(["plugins", "--json"], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as PluginsReport).plugins[0]!.source).toEqual({
      kind: "package",
      package: "my-plugin",
      version: "2.0.0",
      path: installed,
    });
  });
});
