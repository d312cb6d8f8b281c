/**
 * What an engine plugin installs with engine-kit: what every engine needs, not the default sandbox or the loopback
 * model server. The jail comes through core's `sandbox` hook, and the mock model is an optional peer imported only
 * when a run plays a scenario. Checked on the built package in a real Node process that cannot resolve either.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { execa } from "execa";
import { confineEngine } from "@skillrig/engine-kit";

const PACKAGE = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
const OPTIONAL = ["@skillrig/sandbox", "@skillrig/mock-model"];

/**
 * A Node process in which neither optional peer resolves (as in a project that installed only the engine plugin):
 * runs `body` (an ES module's text) and returns what it printed.
 */
async function withoutOptionalPeers(body: string): Promise<string> {
  const hooks = `export async function resolve(specifier, context, next) {
    if (${JSON.stringify(OPTIONAL)}.some((name) => specifier === name || specifier.startsWith(name + "/"))) {
      const error = new Error("Cannot find package '" + specifier + "'");
      error.code = "ERR_MODULE_NOT_FOUND";
      throw error;
    }
    return next(specifier, context);
  }`;
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const { stdout } = await execa(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", body],
    {
      cwd: PACKAGE,
    },
  );
  return stdout;
}

describe("engine-kit's run-time dependencies", () => {
  it("are not the sandbox or the mock model: both are optional peers", () => {
    for (const name of OPTIONAL) {
      expect(manifest.dependencies?.[name], name).toBeUndefined();
      expect(manifest.peerDependencies?.[name], name).toBeDefined();
      expect(manifest.peerDependenciesMeta?.[name], name).toEqual({ optional: true });
    }
  });

  it("loads its entry without either, and a mock_scenario run without the mock model says what to install", async () => {
    const out = await withoutOptionalPeers(`
      const kit = await import("@skillrig/engine-kit");
      const { startScenarioModel } = await import("./dist/scenario-model.js");
      const failed = await startScenarioModel({ scenario: { turns: [] }, configDir: ".", attempt: 1, engine: "Acme CLI" }).catch((e) => e);
      console.log(JSON.stringify({ entry: typeof kit.createEnginePlugin, error: failed.toJSON() }));`);
    const seen = JSON.parse(out);
    expect(seen.entry).toBe("function");
    expect(seen.error).toMatchObject({ code: "usage", field: "mock_scenario" });
    expect(seen.error.message).toContain("Acme CLI: the engine option mock_scenario needs @skillrig/mock-model");
    expect(seen.error.hint).toContain("npm i -D @skillrig/mock-model");
  }, 60_000);

  it("runs no engine outside a jail by accident: no sandbox with an agent profile is an error naming what to add", async () => {
    const request = { command: ["/bin/true"], env: {}, workspace: "/tmp", readOnly: [], writable: [] } as never;
    const noSandbox = await confineEngine({ request, level: "auto", required: false, sandbox: () => undefined }).catch((e) => e);
    expect(noSandbox).toMatchObject({ code: "sandbox_unavailable", field: "jail" });
    expect(noSandbox.message).toContain("no sandbox plugin answered");
    expect(noSandbox.hint).toContain("@skillrig/sandbox");
    const deliverableOnly = { name: "acme-containers", isolation: "namespaces", warnings: [] } as never;
    const noProfile = await confineEngine({ request, level: "auto", required: false, sandbox: () => deliverableOnly }).catch((e) => e);
    expect(noProfile.message).toContain('the sandbox plugin "acme-containers" has no agent profile');
    // Chosen on purpose, the engine runs as it is, and says so.
    const chosen = await confineEngine({ request, level: "none", required: false });
    expect(chosen).toMatchObject({ file: "/bin/true", isolation: "none" });
    expect(chosen.warnings[0]).toContain('level "none" was chosen');
  });
});
