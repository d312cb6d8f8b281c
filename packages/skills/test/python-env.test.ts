import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "@skillrig/core";
import { ensurePythonEnv, runJob } from "@skillrig/skills";
import { SCRIPT_ENGINE } from "./support/script-engine.mjs";
import { FIXTURE_SKILLS, makeSkill, tempDir, testRunner } from "./support/helpers.js";
import { buildTinyWheel } from "./support/tiny-wheel.js";

/** An agent that uses the skill's dependency the way the fixtures do: `python3` and a console script from PATH. */
const AGENT = String.raw`
import json, subprocess
value = subprocess.check_output(["python3", "-c", "import tinydep; print(tinydep.VALUE)"], text=True).strip()
said = subprocess.check_output(["tinydep-cli"], text=True).strip()
print(json.dumps({"value": value, "said": said}))
`;

describe("runtime.dependencies: an isolated Python environment per dependency list", () => {
  it("builds the env from a local wheel folder, puts its bin first on the engine's PATH, and reuses it", async () => {
    const dir = tempDir();
    const wheels = join(dir, "wheels");
    mkdirSync(wheels);
    buildTinyWheel(wheels, "tinydep", "1.0.0", "forty-two");
    const root = join(dir, "skills");
    makeSkill(root, "uses-dep", {
      runner: {
        id: "uses-dep",
        runtime: { language: "python", dependencies: ["tinydep==1.0.0"] },
        schemas: { output: "assets/output.schema.json" },
      },
      output: { type: "object", properties: { value: { type: "string" }, said: { type: "string" } }, required: ["value", "said"] },
    });
    const { runner } = testRunner({
      dir,
      roots: ["skills"],
      config: { skills: { roots: ["skills"], python: { find_links: ["wheels"] } } },
    });
    const logs: string[] = [];
    runner.hooks.job.event.tap("test", (e: EngineEvent) => {
      if (e.type === "log") logs.push(e.line);
    });
    const job = { skill_id: "uses-dep", engine: SCRIPT_ENGINE, options: { engine: { script: AGENT } } };
    const first = await runJob(runner, job);
    expect(first.status, JSON.stringify(first.error)).toBe("succeeded");
    expect(first.output).toEqual({ value: "forty-two", said: "tinydep says forty-two" });
    const second = await runJob(runner, job);
    expect(second.status).toBe("succeeded");
    expect(logs[0]).toMatch(/^built Python \d+\.\d+ environment .*\.skillrig\/python-envs\/py.* for tinydep==1\.0\.0$/);
    expect(logs[1]).toBe(logs[0]!.replace(/^built/, "reusing"));
  });

  it("different dependency lists get different environments; an unavailable package is runtime_unavailable", async () => {
    const dir = tempDir();
    const wheels = join(dir, "wheels");
    mkdirSync(wheels);
    buildTinyWheel(wheels, "tinydep", "1.0.0", "a");
    buildTinyWheel(wheels, "otherdep", "2.0.0", "b");
    const envDir = join(dir, "envs");
    // Two jobs asking at once: one builds, the other waits on the lock and reuses the result.
    const [a, again] = await Promise.all([
      ensurePythonEnv(["tinydep"], { envDir, findLinks: [wheels] }),
      ensurePythonEnv(["tinydep", "tinydep"], { envDir, findLinks: [wheels] }),
    ]);
    expect([a.reused, again.reused].sort()).toEqual([false, true]);
    expect(again.dir).toBe(a.dir);
    const b = await ensurePythonEnv(["otherdep", "tinydep"], { envDir, findLinks: [wheels] });
    expect(b.dir).not.toBe(a.dir);
    expect(existsSync(join(b.bin, "otherdep-cli"))).toBe(true);
    await expect(ensurePythonEnv(["no-such-package-xyz"], { envDir, findLinks: [wheels] })).rejects.toMatchObject({
      code: "runtime_unavailable",
      message: expect.stringContaining("no-such-package-xyz"),
    });
    expect(existsSync(join(envDir))).toBe(true);
  });

  it("demo-pandas-stats fails with runtime_unavailable naming pandas when no wheel for it is available", async () => {
    const { runner, dir } = testRunner({ config: { skills: { roots: [FIXTURE_SKILLS], python: { find_links: [] } } } });
    const csv = join(dir, "data.csv");
    writeFileSync(csv, "a\n1\n");
    const result = await runJob(runner, {
      skill_id: "demo-pandas-stats",
      engine: SCRIPT_ENGINE,
      files: { csv_file: csv },
      parameter: { column: "a" },
      options: { engine: { script: "open('ran', 'w')" } },
    });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("runtime_unavailable");
    expect(result.error?.message).toContain("could not install pandas");
    expect(result.error?.hint).toContain("skills.python.find_links");
    expect(existsSync(join(result.run_dir, "workspace/ran"))).toBe(false);
  });

  it("warns when the skill asks for a Python version that is not installed", async () => {
    const env = await ensurePythonEnv([], { envDir: join(tempDir(), "envs"), version: "2.7" });
    expect(env.warnings[0]).toContain("asks for Python 2.7");
  });
});
