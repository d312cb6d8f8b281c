import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runner } from "@skillrig/core";
import sandboxPluginDefault, { availableLevels, createSandbox, sandboxPlugin } from "@skillrig/sandbox";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "skillrig-sandbox-basics-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function caseFolder(name: string): string {
  return mkdtempSync(join(root, `${name}-`));
}

const levels = availableLevels()
  .filter((l) => l.available)
  .map((l) => l.level);

describe.each(levels)("run() at level %s", (level) => {
  const sandbox = createSandbox({ level });

  it("feeds stdin, returns stdout and the exit code, and reports its level", async () => {
    const result = await sandbox.run({
      command: ["python3", "-c", "import sys; data = sys.stdin.read(); print(data.upper()); sys.exit(3)"],
      cwd: caseFolder("stdin"),
      stdin: "hello sandbox",
      limits: { wallMs: 10_000 },
    });
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: "HELLO SANDBOX\n",
      timedOut: false,
      outputLimited: false,
      memoryLimited: false,
      cpuLimited: false,
      fileSizeLimited: false,
      isolation: level,
    });
    expect(result.command[0]).toBe("python3");
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it("gives the code a scrubbed environment with HOME in its case folder, plus the caller's additions", async () => {
    const cwd = caseFolder("env");
    process.env.SKILLRIG_TEST_PARENT_VARIABLE = "parent-only";
    const result = await sandbox.run({
      command: ["python3", "-c", "import os, json; print(json.dumps(dict(os.environ)))"],
      cwd,
      env: { CASE_FLAG: "on" },
      limits: { wallMs: 10_000 },
    });
    delete process.env.SKILLRIG_TEST_PARENT_VARIABLE;
    const env = JSON.parse(result.stdout) as Record<string, string>;
    expect(env.HOME).toBe(cwd);
    expect(env.CASE_FLAG).toBe("on");
    expect(env.SKILLRIG_TEST_PARENT_VARIABLE).toBeUndefined();
    expect(env.PATH).toContain("/usr/bin");
  });
});

describe("the plugin", () => {
  it("answers the runner's sandbox hook with the config's level", () => {
    const runner = new Runner({ config: { sandbox: { level: "none" } } });
    runner.use(sandboxPlugin());
    const sandbox = runner.sandbox({ purpose: "function" });
    expect(sandbox.name).toBe("@skillrig/sandbox");
    expect(sandbox.isolation).toBe("none");
    expect(sandbox.warnings.join("\n")).toMatch(/weaker than "namespaces"/);
    expect(sandboxPluginDefault).toBe(sandboxPlugin);
  });

  it("lets a plugin tapped before it answer first", () => {
    const runner = new Runner();
    const own = { ...createSandbox({ level: "none" }), name: "team-containers" };
    runner.use({ name: "team-containers", apply: (r) => r.hooks.sandbox.tap("team-containers", () => own) });
    runner.use(sandboxPlugin());
    expect(runner.sandbox({ purpose: "script" }).name).toBe("team-containers");
  });

  it("rejects an unknown level with the option named", () => {
    expect(() => sandboxPlugin({ level: "chroot" as never })).toThrow(/option "level" of plugin "@skillrig\/sandbox" must be one of/);
  });
});
