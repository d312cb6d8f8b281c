/**
 * Runs `skillrig test <task> --deliverable <d> --json --jobs N` as a user would, through the built CLI,
 * and times the whole command (Node start, config, plugin set-up, every case, report).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { runProcess } from "./run-process.js";

const require = createRequire(import.meta.url);

/** The built `skillrig` bin of the workspace's @skillrig/cli. */
export function skillrigBin(): string {
  const manifestFile = require.resolve("@skillrig/cli/package.json");
  const manifest = require(manifestFile) as { bin?: Record<string, string> };
  const bin = manifest.bin?.skillrig;
  if (!bin) throw new Error(`@skillrig/cli has no "skillrig" bin in ${manifestFile}`);
  return join(dirname(manifestFile), bin);
}

export interface SkillrigTestRun {
  wallMs: number;
  total: number;
  passed: number;
  /** Median of the per-case `duration_ms` the report gives. */
  caseDurationsMs: number[];
  isolation?: string;
}

/** Thrown when the command is missing, refuses the task, or any case does not pass: the figure would mean nothing. */
export class BenchmarkRunError extends Error {}

interface JsonReport {
  task_id?: string;
  summary?: { total?: number; passed?: number };
  cases?: Array<{ name?: string; status?: string; duration_ms?: number; message?: string }>;
  [key: string]: unknown;
}

export async function skillrigTest(options: {
  taskFile: string;
  deliverable: string;
  jobs: number;
  configFile?: string;
  cwd: string;
}): Promise<SkillrigTestRun> {
  const args = [skillrigBin()];
  if (options.configFile) args.push("--config", options.configFile);
  args.push("test", options.taskFile, "--deliverable", options.deliverable, "--json", "--jobs", String(options.jobs));
  const run = await runProcess(process.execPath, args, { cwd: options.cwd });
  let report: JsonReport;
  try {
    report = JSON.parse(run.stdout) as JsonReport;
  } catch {
    throw new BenchmarkRunError(
      `skillrig test exited ${run.exitCode} without a JSON report: ${(run.stderr || run.stdout).trim().slice(0, 400)}`,
    );
  }
  const cases = report.cases ?? [];
  const passed = report.summary?.passed ?? cases.filter((c) => c.status === "passed").length;
  const total = report.summary?.total ?? cases.length;
  if (run.exitCode !== 0 || passed !== total || total === 0) {
    const failing = cases.find((c) => c.status !== "passed");
    const why = failing ? `case "${failing.name}" is ${failing.status}: ${failing.message ?? ""}` : JSON.stringify(report).slice(0, 400);
    throw new BenchmarkRunError(`skillrig test exited ${run.exitCode} with ${passed}/${total} passed; ${why}`.slice(0, 600));
  }
  const isolation = findIsolation(report);
  return {
    wallMs: run.wallMs,
    total,
    passed,
    caseDurationsMs: cases.map((c) => c.duration_ms).filter((d): d is number => typeof d === "number"),
    isolation,
  };
}

/** The report records the isolation level somewhere (the contract leaves where open); look for it. */
function findIsolation(report: JsonReport): string | undefined {
  const candidates = [
    report.isolation,
    (report.sandbox as { isolation?: unknown } | undefined)?.isolation,
    (report.sandbox as { level?: unknown } | undefined)?.level,
  ];
  for (const value of candidates) if (typeof value === "string") return value;
  return undefined;
}
