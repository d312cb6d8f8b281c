/**
 * An engine that returns at once, so a job's wall time is all skillrig's own work (load, resolve, render, set up,
 * collect, validate). It taps core's `job.execute` hook for its engine name (which claims it), writes the artifact the skill declares
 * into the job's workspace, and returns the final output, the way a real engine's run would end.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { EngineOutcome, Runner, SkillrigPlugin } from "@skillrig/core";

export const INSTANT_ENGINE = "instant";

export class InstantEngine implements SkillrigPlugin {
  readonly name = "@skillrig/benchmarks/instant-engine";
  /** Milliseconds spent inside this engine per job, in order: subtracted from the job's wall time. */
  readonly engineMs: number[] = [];

  apply(runner: Runner): void {
    runner.claim("engine", INSTANT_ENGINE, this.name, { description: "returns at once; for measuring skillrig's own overhead" });
    runner.hooks.job.execute.for(INSTANT_ENGINE).tapPromise(this.name, async ({ work, input, prompt }) => {
      const started = performance.now();
      const title = String((input as { title?: unknown }).title ?? "");
      writeFileSync(join(work.run.workspace, "report.md"), `# ${title}\n\nprompt: ${prompt.text.length} characters\n`);
      const outcome: EngineOutcome = {
        ok: true,
        output: { summary: `report for ${title}`, report_file: "report.md" },
        engineVersion: "instant 0",
      };
      this.engineMs.push(performance.now() - started);
      return outcome;
    });
  }
}
