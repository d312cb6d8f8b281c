#!/usr/bin/env node
/**
 * pnpm bench: runs every suite, prints one Markdown table per suite on stdout (progress on stderr), and writes
 * the figures, with every sample, to bench-results/latest.json (and the tables to latest.md).
 *
 *   node dist/main.js [--quick] [--only function,process,jobs,suites,flood,meter,startup] [--suite-tasks N] [--out <dir>]
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { describeMachine } from "./machine.js";
import { resolvePython } from "./python.js";
import { type Goal, type Section, goalsSection, renderSection } from "./report.js";
import { type BenchSettings, sizes } from "./settings.js";
import { engineFlood } from "./suites/engine-flood.js";
import { functionCases } from "./suites/function-cases.js";
import { jobOverhead } from "./suites/job-overhead.js";
import { meteringProxyLatency } from "./suites/metering-proxy.js";
import { processCases } from "./suites/process-cases.js";
import { startup } from "./suites/startup.js";
import { suiteGrading } from "./suites/suite-grading.js";

const SUITES = {
  function: functionCases,
  process: processCases,
  jobs: jobOverhead,
  suites: suiteGrading,
  flood: engineFlood,
  meter: meteringProxyLatency,
  startup,
} as const;
type SuiteName = keyof typeof SUITES;

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      out: { type: "string", default: join(REPO_ROOT, "bench-results") },
      keep: { type: "boolean", default: false },
      "suite-tasks": { type: "string" },
    },
  });
  const only = (values.only?.split(",").map((s) => s.trim()) ?? Object.keys(SUITES)) as SuiteName[];
  const unknown = only.filter((name) => !(name in SUITES));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown suite ${unknown.join(", ")}; the suites are ${Object.keys(SUITES).join(", ")}\n`);
    return 2;
  }
  const quick = values.quick ?? false;
  const workDir = mkdtempSync(join(tmpdir(), "skillrig-bench-"));
  // Sandboxed code may run as an unprivileged uid (level rlimits as root): it must be able to enter the folder.
  chmodSync(workDir, 0o755);
  const settings: BenchSettings = {
    quick,
    ...sizes(quick),
    workDir,
    python: resolvePython(),
    ...(values["suite-tasks"] ? { suiteTasks: Number(values["suite-tasks"]) } : {}),
    log: (message) => process.stderr.write(`bench: ${message}\n`),
  };
  const machine = describeMachine(settings.python);
  const started = Date.now();
  const sections: Section[] = [];
  const goals: Goal[] = [];
  try {
    for (const name of only) {
      try {
        const outcome = await SUITES[name](settings);
        sections.push(...outcome.sections);
        goals.push(...outcome.goals);
      } catch (error) {
        // One suite's crash must not lose the others' figures.
        const reason = error instanceof Error ? error.message : String(error);
        settings.log(`suite ${name} failed: ${reason}`);
        sections.push({
          title: `suite "${name}" failed`,
          header: ["error"],
          rows: [[reason.replace(/\s+/g, " ").slice(0, 400)]],
          notes: [],
          figures: {},
        });
      }
    }
  } finally {
    if (!values.keep) rmSync(workDir, { recursive: true, force: true });
  }
  const durationMs = Date.now() - started;
  const all = [...sections, goalsSection(goals)];
  const heading = `## skillrig benchmarks (${quick ? "quick" : "full"} run, ${new Date(started).toISOString()})\n\nMachine: ${machine.summary}. Each figure is the median of ${settings.repeats} run(s); each ratio compares figures measured in this run on this machine. Took ${(durationMs / 1000).toFixed(0)} s.\n`;
  const markdown = [heading, ...all.map(renderSection)].join("\n");
  process.stdout.write(`${markdown}\n`);

  const outDir = resolve(values.out as string);
  mkdirSync(outDir, { recursive: true });
  const json = {
    startedAt: new Date(started).toISOString(),
    durationMs,
    mode: quick ? "quick" : "full",
    repeats: settings.repeats,
    machine,
    goals,
    sections: sections.map(({ title, header, rows, notes, figures }) => ({ title, header, rows, notes, figures })),
  };
  writeFileSync(join(outDir, "latest.json"), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(join(outDir, "latest.md"), `${markdown}\n`);
  process.stderr.write(
    `bench: wrote ${join(outDir, "latest.json")} and latest.md (${cpus().length} cores, ${(durationMs / 1000).toFixed(0)} s)\n`,
  );
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
