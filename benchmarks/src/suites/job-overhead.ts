/**
 * 3. Skill job overhead: a job through @skillrig/skills' runJob with an engine that returns at once. What is left
 * of the job's wall time is what skillrig adds around an engine: load the skill, make the run folder, copy the
 * upload, resolve and validate input and parameters, render the prompt and SKILL.md, collect the artifact,
 * validate the output, write result.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Runner } from "@skillrig/core";
import { runJob, skillProtocolPlugin } from "@skillrig/skills";
import { attempt, Footnotes } from "../attempt.js";
import { INSTANT_ENGINE, InstantEngine } from "../instant-engine.js";
import { type Goal, type Section, type SuiteOutcome, formatMs } from "../report.js";
import type { BenchSettings } from "../settings.js";
import { median, percentile } from "../stats.js";

const GOAL_P50_MS = 50;
const SKILL_ID = "bench-report";

/** A skill with one file input, one inline input, a parameter with a default and an artifact output. */
function writeSkill(root: string): void {
  const dir = join(root, SKILL_ID);
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    "---\nname: bench-report\ndescription: Summarise a data file into report.md.\n---\n\n# bench-report\n\nRead the data file, write report.md with the first {{ parameter.limit }} rows, and answer with JSON.\n",
  );
  const json = (name: string, value: unknown) => writeFileSync(join(dir, "assets", name), JSON.stringify(value, null, 2));
  json("runner.json", {
    id: SKILL_ID,
    version: "1.0.0",
    name: "Bench: report",
    description: "Summarise a data file into report.md.",
    execution_modes: ["auto"],
    engines: [INSTANT_ENGINE],
    schemas: { input: "assets/input.schema.json", parameter: "assets/parameter.schema.json", output: "assets/output.schema.json" },
  });
  json("input.schema.json", {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      data_file: { type: "string", "x-input-source": "file", description: "the data to summarise" },
      title: { type: "string", "x-input-source": "inline", minLength: 1 },
    },
    required: ["data_file", "title"],
    additionalProperties: false,
  });
  json("parameter.schema.json", {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      limit: { type: "integer", minimum: 1, default: 10 },
      style: { type: "string", enum: ["short", "long"], default: "short" },
    },
    additionalProperties: false,
  });
  json("output.schema.json", {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      summary: { type: "string" },
      report_file: { type: "string", "x-type": "artifact", "x-role": "report", "x-filename": "report.md" },
    },
    required: ["summary", "report_file"],
    additionalProperties: false,
  });
}

export async function jobOverhead(settings: BenchSettings): Promise<SuiteOutcome> {
  const root = join(settings.workDir, "jobs");
  const skillsRoot = join(root, "skills");
  mkdirSync(skillsRoot, { recursive: true });
  writeSkill(skillsRoot);
  const dataFile = join(root, "data.csv");
  writeFileSync(dataFile, `id,value\n${Array.from({ length: 200 }, (_, i) => `${i},${i * i}`).join("\n")}\n`);

  const notes = new Footnotes();
  const measured = await attempt(async () => {
    const engine = new InstantEngine();
    const runner = new Runner({ cwd: root, configDir: root, config: { skills: { roots: ["skills"] }, runs_dir: "runs" } });
    runner.use(skillProtocolPlugin()).use(engine);
    const overheadMs: number[] = [];
    const reportedOverheadMs: number[] = [];
    const total = settings.jobWarmup + settings.jobs;
    let firstJobMs = Number.NaN;
    settings.log(`skill jobs with the instant engine: ${settings.jobWarmup} warm-up + ${settings.jobs} timed`);
    for (let i = 0; i < total; i++) {
      const before = engine.engineMs.length;
      const started = performance.now();
      const result = await runJob(runner, {
        skill_id: SKILL_ID,
        engine: INSTANT_ENGINE,
        input: { title: `run ${i}` },
        parameter: { limit: 5 },
        files: { data_file: dataFile },
      });
      const wall = performance.now() - started;
      if (result.status !== "succeeded" || result.artifacts.length !== 1) {
        throw new Error(`job ${i} ended ${result.status} with ${result.artifacts.length} artifacts: ${result.error?.message ?? ""}`);
      }
      const overhead = wall - (engine.engineMs[before] ?? 0);
      if (i === 0) firstJobMs = overhead;
      if (i < settings.jobWarmup) continue;
      overheadMs.push(overhead);
      if (typeof result.timings.overhead_ms === "number") reportedOverheadMs.push(result.timings.overhead_ms);
    }
    return {
      p50: median(overheadMs),
      p95: percentile(overheadMs, 95),
      firstJobMs,
      reportedP50: reportedOverheadMs.length > 0 ? median(reportedOverheadMs) : Number.NaN,
      samples: overheadMs,
      engineMsSamples: engine.engineMs,
    };
  });

  const section: Section = {
    title: "3. Skill job overhead",
    header: ["engine", "jobs", "p50", "p95", "first job in a process", "timings.overhead_ms p50 (as the result reports it)"],
    rows: [
      [
        `${INSTANT_ENGINE} (returns at once)`,
        String(settings.jobs),
        notes.cell(measured, (m) => formatMs(m.p50)),
        notes.cell(measured, (m) => formatMs(m.p95)),
        notes.cell(measured, (m) => formatMs(m.firstJobMs)),
        notes.cell(measured, (m) => (Number.isNaN(m.reportedP50) ? "-" : formatMs(m.reportedP50))),
      ],
    ],
    notes: [
      `Wall time of \`runJob(runner, request)\` minus the time spent inside the engine, one job at a time in one process after ${settings.jobWarmup} warm-up jobs; the skill has a file input (a 200-row CSV upload), an inline input, parameters with defaults and an artifact output. The runner is built once, as a server builds it; the first job pays module and schema compilation.`,
      "timings.overhead_ms is runJob's own figure (duration minus engine time), which leaves out the jobResult/runEnd hooks and writing result.json.",
      ...notes.lines,
    ],
    figures: { measured },
  };
  const goal: Goal = {
    id: "job-overhead-p50",
    description: "skill job overhead at p50",
    target: `< ${GOAL_P50_MS} ms`,
    measured: measured.ok ? `${formatMs(measured.value.p50)} (p95 ${formatMs(measured.value.p95)})` : "-",
    met: measured.ok ? measured.value.p50 < GOAL_P50_MS : null,
  };
  return { sections: [section], goals: [goal] };
}
