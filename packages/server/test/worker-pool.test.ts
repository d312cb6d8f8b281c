/**
 * The pool of job worker threads (src/worker-execution.ts), driven directly: jobs started in the same turn (a
 * BullMQ worker hands out several at once) each get a worker of their own. Before the fix, both saw the same idle
 * worker across the `await` between choosing it and marking it taken; the second overwrote the first, whose job
 * then never ended (the scale benchmark's redis rows hung with jobs left `running`).
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRunner, loadConfig, type ProjectBuiltins } from "@skillrig/core";
import { createJobExecution, serverConfigSection } from "@skillrig/server";
import { runConfigSection, skillsConfigSection } from "@skillrig/skills/config-section";
import { oracleConfigSection } from "@skillrig/oracle/config-section";
import { describe, expect, it } from "vitest";
import { makeProject } from "./support/server-harness.js";

// The pool spawns dist/job-worker.js next to it, so the built module is what runs (as with `skillrig serve`).
const built = resolve(fileURLToPath(import.meta.url), "..", "..", "dist", "worker-execution.js");
// The workers' built-in plugins (the skill protocol resolves a skill's inputs) are the CLI's, as with `skillrig serve`.
const { cliBuiltins: builtins } = (await import(
  resolve(fileURLToPath(import.meta.url), "..", "..", "..", "cli", "dist", "builtins.js")
)) as { cliBuiltins: ProjectBuiltins };

describe("the job worker pool", () => {
  it("gives jobs started in the same turn a worker each, and every one ends", async () => {
    const { createWorkerExecution } = (await import(built)) as typeof import("../src/worker-execution.js");
    const dir = makeProject();
    const loaded = await loadConfig({
      cwd: dir,
      sections: [serverConfigSection, oracleConfigSection, skillsConfigSection, runConfigSection],
    });
    const runner = await createRunner(loaded, { cwd: dir });
    const pool = createWorkerExecution(createJobExecution(runner), {
      size: 3,
      cwd: dir,
      configFile: join(dir, "skillrig.config.json"),
      builtins,
    });
    try {
      const signal = new AbortController().signal;
      const jobs = ["a", "b", "c", "d", "e"].map((name) =>
        pool.runSkillJob(
          { skill_id: "quick-echo", engine: "echo", input: { message: name } },
          { jobId: `job-${name}`, runsDir: join(dir, "runs"), signal, onEvent: () => undefined },
        ),
      );
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error("a job started with others never ended")), 30_000);
      });
      const results = await Promise.race([Promise.all(jobs), stuck]).finally(() => clearTimeout(timer));
      expect(results.map((r) => [r.job_id, r.status, r.output])).toEqual(
        ["a", "b", "c", "d", "e"].map((name) => [`job-${name}`, "succeeded", { echo: name }]),
      );
    } finally {
      await pool.close();
      await runner.close();
    }
  });
});
