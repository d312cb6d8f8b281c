import { execFileSync } from "node:child_process";
import "./python-for-uids.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Runner } from "@skillrig/core";
import sandboxPluginDefault, { availableLevels, createSandbox, probeHost, sandboxPlugin } from "@skillrig/sandbox";
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

  it("kills the tree when the caller aborts, without calling it a timeout", async () => {
    const controller = new AbortController();
    const running = sandbox.run({
      command: ["python3", "-c", "import time; print('started', flush=True); time.sleep(60)"],
      cwd: caseFolder("abort"),
      limits: { wallMs: 60_000 },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    const result = await running;
    expect(result).toMatchObject({ timedOut: false, exitCode: null, signal: "SIGKILL" });
    expect(result.durationMs).toBeLessThan(60_000);
  });

  it("does not call a MemoryError the code caught and survived a memory limit", async () => {
    const result = await sandbox.run({
      command: [
        "python3",
        "-c",
        "import sys\ntry:\n    b = bytearray(1 << 40)\nexcept MemoryError:\n    print('MemoryError handled', file=sys.stderr)",
      ],
      cwd: caseFolder("handled"),
      limits: { wallMs: 10_000 },
    });
    expect(result).toMatchObject({ exitCode: 0, memoryLimited: false, stderr: "MemoryError handled\n" });
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
    Reflect.deleteProperty(process.env, "SKILLRIG_TEST_PARENT_VARIABLE");
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

describe("choosing the level", () => {
  const withoutBubblewrap = { ...probeHost(), namespacesWork: false, namespacesError: "bubblewrap (bwrap) is not installed" };

  it("falls back to the next level with a warning that names the reason, never silently", () => {
    const sandbox = createSandbox({ host: withoutBubblewrap });
    expect(sandbox.isolation).toBe("rlimits");
    expect(sandbox.warnings[0]).toMatch(/"namespaces" is not available \(bubblewrap \(bwrap\) is not installed\).*level "rlimits"/);
  });

  it("refuses to fall back when the strongest level is required", () => {
    expect(() => createSandbox({ host: withoutBubblewrap, requireStrongest: true })).toThrow(
      expect.objectContaining({ code: "sandbox_unavailable", field: "sandbox.require_strongest" }),
    );
  });

  it("refuses a named level this machine does not have", () => {
    expect(() => createSandbox({ host: withoutBubblewrap, level: "namespaces" })).toThrow(
      expect.objectContaining({ code: "sandbox_unavailable", field: "sandbox.level" }),
    );
  });

  it("lets a caller that allows weaker isolation through when the config requires the strongest", () => {
    const runner = new Runner({ config: { sandbox: { level: "rlimits", require_strongest: true } } });
    runner.use(sandboxPlugin());
    expect(() => runner.sandbox({ purpose: "function" })).toThrow(/contradicts sandbox.require_strongest/);
    expect(runner.sandbox({ purpose: "function", allowWeaker: true }).isolation).toBe("rlimits");
  });

  it("fills limits the caller leaves out from the config's sandbox.limits", async () => {
    const runner = new Runner({ config: { sandbox: { limits: { output_bytes: 5 } } } });
    runner.use(sandboxPlugin());
    const result = await runner.sandbox({ purpose: "script" }).run({
      command: ["python3", "-c", "print('0123456789')"],
      cwd: caseFolder("config-limits"),
      limits: { wallMs: 10_000 },
    });
    expect(result).toMatchObject({ stdout: "01234", outputLimited: true });
  });

  it("says clearly when the case folder is missing", async () => {
    const sandbox = createSandbox();
    await expect(async () =>
      sandbox.run({ command: ["python3", "-c", "pass"], cwd: join(root, "no-such-case"), limits: { wallMs: 1000 } }),
    ).rejects.toThrow(/the case folder .*no-such-case does not exist; create it/);
  });

  it.each(levels)("reports a command that cannot start as exit 127 with the reason in stderr (level %s)", async (level) => {
    const result = await createSandbox({ level }).run({
      command: ["no-such-program-xyz"],
      cwd: caseFolder("missing"),
      limits: { wallMs: 5000 },
    });
    expect(result.exitCode).toBe(127);
    // "not found" is bash's word, when descriptors inherited by the runner are closed first (inherited-fds.ts).
    expect(result.stderr).toMatch(
      /no-such-program-xyz: .*No such file or directory|no-such-program-xyz ENOENT|no-such-program-xyz: not found/,
    );
  });
});

describe("the interpreter", () => {
  it("runs the python3 of the user's PATH, a virtualenv's included, with its own packages", async () => {
    const venv = join(root, "venv");
    const host = probeHost();
    execFileSync(host.python?.executable ?? "python3", ["-m", "venv", "--without-pip", venv]);
    // A package only this venv has.
    const sitePackages = execFileSync(join(venv, "bin", "python3"), ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], {
      encoding: "utf8",
    }).trim();
    writeFileSync(join(sitePackages, "only_in_venv.py"), "WHERE = 'venv'\n");
    const savedPath = process.env.PATH;
    process.env.PATH = `${join(venv, "bin")}:${savedPath}`;
    try {
      const sandbox = createSandbox({ fresh: true });
      const result = await sandbox.run({
        command: ["python3", "-c", "import sys, only_in_venv; print(sys.prefix, only_in_venv.WHERE)"],
        cwd: caseFolder("venv"),
        limits: { wallMs: 10_000 },
      });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe(`${venv} venv\n`);
    } finally {
      process.env.PATH = savedPath;
      probeHost(true);
    }
  });
});
