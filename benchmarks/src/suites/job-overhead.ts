/** 3. Skill job overhead: placeholder until @skillrig/skills exports runJob. */
import type { SuiteOutcome } from "../report.js";
import type { BenchSettings } from "../settings.js";

export async function jobOverhead(_settings: BenchSettings): Promise<SuiteOutcome> {
  return {
    sections: [{ title: "3. Skill job overhead", header: ["engine", "p50", "p95"], rows: [["instant", "not measured: @skillrig/skills has no runJob yet", ""]], notes: [], figures: {} }],
    goals: [{ id: "job-overhead-p50", description: "skill job overhead at p50", target: "< 50 ms", measured: "-", met: null }],
  };
}
