/**
 * core's openProjectRunner with the CLI's built-ins (builtins.ts), as the server's job workers call it (the modules
 * resolved from the CLI's folder as files) and as `skillrig` does (its own imports): a real config file in a temp
 * folder, the real plugin packages.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSkillrigError, loadProjectConfig, openProjectRunner, type Runner } from "@skillrig/core";
import { describe, expect, it } from "vitest";
import { cliBuiltins, cliModuleNames, importCliModule } from "../src/builtins.js";

/** A project folder with `config` as its skillrig.config.json and a plugin file that claims the `mine` reporter. */
function project(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-project-runner-"));
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ plugins: ["./mine.mjs"], ...config }));
  writeFileSync(join(dir, "mine.mjs"), 'export default { name: "mine", apply(runner) { runner.claim("reporter", "mine", "mine"); } };\n');
  return dir;
}

async function closing<T>(runner: Runner, use: (runner: Runner) => T): Promise<T> {
  try {
    return use(runner);
  } finally {
    await runner.close();
  }
}

describe("openProjectRunner with the CLI's built-ins", () => {
  it("applies the config's plugins, then the built-in plugins in the CLI's order, and validates the built-in sections", async () => {
    const dir = project({ sandbox: { level: "none" } });
    await closing(await openProjectRunner({ cwd: dir, builtins: cliBuiltins }), (runner) => {
      expect(runner.configFile).toBe(join(dir, "skillrig.config.json"));
      expect(runner.plugins[0]?.name).toBe("mine");
      expect(runner.plugins).toHaveLength(1 + cliBuiltins.plugins.length);
      expect(runner.claims("deliverable").map((c) => c.name)).toEqual(expect.arrayContaining(["function", "script", "cli"]));
      expect(runner.claimant("reporter", "mine")?.plugin).toBe("mine");
    });
  });

  it("builds the same runner with the CLI's own imports, which cover every module the list names", async () => {
    const listed = [...cliBuiltins.plugins, ...cliBuiltins.sections].map((m) => m.module);
    expect(listed.filter((m) => !cliModuleNames.includes(m))).toEqual([]);
    const dir = project({});
    const fromFiles = await openProjectRunner({ cwd: dir, builtins: cliBuiltins });
    const names = await closing(fromFiles, (runner) => runner.plugins.map((p) => p.name));
    await closing(await openProjectRunner({ cwd: dir, builtins: cliBuiltins, importModule: importCliModule }), (runner) => {
      expect(runner.plugins.map((p) => p.name)).toEqual(names);
    });
  });

  it("keeps the built-in sections but applies no built-in plugin when the config says builtins: false", async () => {
    const dir = project({ builtins: false, sandbox: { level: "none" } });
    await closing(await openProjectRunner({ cwd: dir, builtins: cliBuiltins }), (runner) => {
      expect(runner.plugins.map((p) => p.name)).toEqual(["mine"]);
      expect(runner.claims("deliverable")).toEqual([]);
    });
  });

  it("refuses a config whose built-in section is wrong, naming the field", async () => {
    const dir = project({ sandbox: { level: "no-such-level" } });
    const error = await openProjectRunner({ cwd: dir, builtins: cliBuiltins }).catch((e: unknown) => e);
    expect(isSkillrigError(error) && error.code).toBe("invalid_config");
    expect(String((error as Error).message)).toContain("sandbox");
  });

  it("stands in for an optional section whose package is not installed: the key is known and must be an object", async () => {
    const builtins = {
      from: mkdtempSync(join(tmpdir(), "skillrig-host-")),
      plugins: [],
      sections: [
        {
          module: "@skillrig/not-installed-anywhere/config-section",
          export: "section",
          optional: { section: "absent", owner: "@skillrig/not-installed-anywhere (not installed)", description: "absent's settings" },
        },
      ],
    };
    const loaded = await loadProjectConfig({ cwd: project({ absent: { any: 1 } }), builtins });
    expect(loaded.sections?.map((s) => [s.section, s.owner])).toEqual([["absent", "@skillrig/not-installed-anywhere (not installed)"]]);
    const error = await loadProjectConfig({ cwd: project({ absent: 3 }), builtins }).catch((e: unknown) => e);
    expect(isSkillrigError(error) && error.code).toBe("invalid_config");
  });
});
