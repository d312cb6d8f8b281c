/**
 * One `checkJobRequest` (src/job-request.ts) for every caller: runJob asks it for a local job, the jobs server asks
 * it with `client` at POST /v1/jobs (its HTTP side: packages/server/test/job-request-check.test.ts). And runJob as a
 * library writes its run folder where core's runsFolderOf says, $SKILLRIG_RUNS_DIR included.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JobRequest } from "@skillrig/core";
import { checkJobRequest, runJob } from "@skillrig/skills";
import { SCRIPT_ENGINE } from "./support/script-engine.mjs";
import { tempDir, testRunner } from "./support/helpers.js";

const request = (skill: string, extra: Partial<JobRequest> = {}): JobRequest => ({ skill_id: skill, engine: SCRIPT_ENGINE, ...extra });
const client = { engineOptions: ["model", "timeout_ms"] };

describe("checkJobRequest", () => {
  it("refuses an interactive-only skill for a local job and a client's alike, naming the skill and the field", () => {
    const { runner } = testRunner();
    for (const options of [{}, { client }]) {
      expect(() => checkJobRequest(runner, request("demo-interactive-skill"), options)).toThrow(
        expect.objectContaining({ code: "skill_interactive_only", field: "execution_modes", pointer: "/execution_modes" }),
      );
    }
    // A dry run only renders the prompt: it is not refused.
    expect(checkJobRequest(runner, request("demo-interactive-skill", { options: { dry_run: true } })).id).toBe("demo-interactive-skill");
  });

  it("a client may set only the engine options the server allows; a local user may set any", () => {
    const { runner } = testRunner();
    const hostile = request("demo-auto-skill", { options: { engine: { binary: "/bin/sh", env: { PATH: "/tmp" }, model: "m" } } });
    const thrown = (() => {
      try {
        checkJobRequest(runner, hostile, { client });
      } catch (error) {
        return error as { code: string; violations: Array<{ pointer: string }> };
      }
      throw new Error("not refused");
    })();
    expect(thrown.code).toBe("schema_violation");
    expect(thrown.violations.map((v) => v.pointer).sort()).toEqual(["/options/engine/binary", "/options/engine/env"]);
  });

  it("an engine no plugin runs: engine_not_found at /engine, for a local job and a client's", () => {
    const { runner } = testRunner();
    const wrong = request("demo-auto-skill", { engine: "no-such-engine" });
    for (const options of [{}, { client }]) {
      expect(() => checkJobRequest(runner, wrong, options)).toThrow(
        expect.objectContaining({ code: "engine_not_found", pointer: "/engine", field: "engine" }),
      );
    }
  });

  it("a request that names no engine is a usage error naming the field", () => {
    const { runner } = testRunner();
    expect(() => checkJobRequest(runner, { skill_id: "demo-auto-skill", engine: "" })).toThrow(
      expect.objectContaining({ code: "usage", field: "engine" }),
    );
  });
});

describe("runJob as a library: where runs go", () => {
  const before = process.env.SKILLRIG_RUNS_DIR;
  afterEach(() => {
    if (before === undefined) Reflect.deleteProperty(process.env, "SKILLRIG_RUNS_DIR");
    else process.env.SKILLRIG_RUNS_DIR = before;
  });

  it("writes the run folder where $SKILLRIG_RUNS_DIR says, else under the config's runs_dir", async () => {
    const { runner, dir } = testRunner({ config: { runs_dir: "my-runs" } });
    Reflect.deleteProperty(process.env, "SKILLRIG_RUNS_DIR");
    const inConfig = await runJob(runner, request("demo-auto-skill", { options: { dry_run: true } }));
    expect(inConfig.run_dir.startsWith(join(dir, "my-runs"))).toBe(true);
    const elsewhere = join(tempDir(), "env-runs");
    process.env.SKILLRIG_RUNS_DIR = elsewhere;
    const inEnv = await runJob(runner, request("demo-auto-skill", { options: { dry_run: true } }));
    expect(inEnv.run_dir.startsWith(elsewhere)).toBe(true);
    expect(existsSync(join(inEnv.run_dir, "run.json"))).toBe(true);
  });
});
