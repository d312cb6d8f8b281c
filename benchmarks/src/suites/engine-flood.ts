/**
 * 5. Engine output floods: a skill job whose engine prints N MiB (ordinary message lines, or one line without a
 * newline), each job in a process of its own, against the same job whose engine prints nothing (the baseline, same
 * run). The runner's peak RSS and the run folder's size must stay flat whatever N: past `sandbox.agent.output_bytes`
 * (64 MiB) or `line_bytes` (8 MiB) the job ends `output_limit`, and only a bounded copy is kept.
 */
import { fileURLToPath } from "node:url";
import { DEFAULT_AGENT_BOUNDS } from "@skillrig/sandbox";
import { attempt, Footnotes, type Attempt } from "../attempt.js";
import { writeFloodCli } from "../flood-engine.js";
import { type Goal, type Section, type SuiteOutcome, formatRatio } from "../report.js";
import { runProcess } from "../run-process.js";
import type { BenchSettings } from "../settings.js";

const FLOOD_JOB = fileURLToPath(new URL("../flood-job.js", import.meta.url));
const MiB = 1024 * 1024;
/** The largest flood's peak RSS may be at most this times the baseline's. */
const GOAL_RSS_RATIO = 1.5;

interface FloodRun {
  status: string;
  code: string | null;
  maxRssBytes: number;
  runFolderBytes: number;
  wallMs: number;
}

async function floodJob(settings: BenchSettings, binary: string, mode: string, mib: number): Promise<FloodRun> {
  const r = await runProcess(process.execPath, [FLOOD_JOB, settings.workDir, mode, String(mib), binary]);
  const last = r.stdout.trim().split("\n").pop() ?? "";
  if (r.exitCode !== 0 || !last.startsWith("{")) throw new Error(`the flood job failed (exit ${r.exitCode}): ${r.stderr.slice(-400)}`);
  return JSON.parse(last) as FloodRun;
}

const mb = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export async function engineFlood(settings: BenchSettings): Promise<SuiteOutcome> {
  const binary = writeFloodCli(settings.workDir);
  const sizes = settings.quick ? [16, 64] : [16, 64, 256];
  const notes = new Footnotes();
  settings.log("flood: baseline job (the engine prints nothing)");
  const baseline = await attempt(() => floodJob(settings, binary, "none", 0));
  const rows: string[][] = [];
  const figures: Record<string, Attempt<FloodRun>> = { baseline };
  const row = (label: string, sent: string, run: Attempt<FloodRun>) =>
    rows.push([
      label,
      sent,
      notes.cell(run, (r) => (r.code ? `${r.status} (${r.code})` : r.status)),
      notes.cell(run, (r) => mb(r.maxRssBytes)),
      notes.cell(run, (r) => (baseline.ok ? formatRatio(r.maxRssBytes / baseline.value.maxRssBytes) : "-")),
      notes.cell(run, (r) => mb(r.runFolderBytes)),
    ]);
  row("baseline (nothing printed)", "0 MiB", baseline);
  let largest: Attempt<FloodRun> | undefined;
  for (const mode of ["lines", "giant"] as const) {
    for (const mib of sizes) {
      settings.log(`flood: ${mode} ${mib} MiB`);
      const run = await attempt(() => floodJob(settings, binary, mode, mib));
      figures[`${mode}-${mib}`] = run;
      row(mode === "lines" ? "message lines (1 KiB each)" : "one line, no newline", `${mib} MiB`, run);
      if (mode === "lines" && mib === sizes[sizes.length - 1]) largest = run;
    }
  }
  const section: Section = {
    title: "Engine output floods: the runner's memory and the run folder against the bytes an engine prints",
    header: ["engine prints", "bytes sent", "job", "runner peak RSS", "x baseline", "run folder"],
    rows,
    notes: [
      `One skill job per process (\`src/flood-job.ts\`) through runJob, its engine a CLI on engine-kit in the agent jail; peak RSS is the job process's (\`process.resourceUsage().maxRSS\`), the run folder every file under it. Config defaults: output_bytes ${mb(DEFAULT_AGENT_BOUNDS.outputBytes)}, line_bytes ${mb(DEFAULT_AGENT_BOUNDS.lineBytes)}. One round per size: memory, not time, is the figure.`,
      "Before the bounds (issue 38): 96 MiB of message lines took the runner to 800 MiB and wrote 480 MiB into the run folder; one line of 600 MiB killed it (RangeError: Invalid string length).",
      ...notes.lines,
    ],
    figures,
  };
  const bounded = largest?.ok && baseline.ok ? largest.value : undefined;
  const goals: Goal[] = [
    {
      id: "flood-rss-flat",
      description: `runner peak RSS with a ${sizes[sizes.length - 1]} MiB flood, against the baseline job`,
      target: `<= ${GOAL_RSS_RATIO}x`,
      measured: bounded && baseline.ok ? formatRatio(bounded.maxRssBytes / baseline.value.maxRssBytes) : "-",
      met: bounded && baseline.ok ? bounded.maxRssBytes / baseline.value.maxRssBytes <= GOAL_RSS_RATIO : null,
    },
    {
      id: "flood-run-folder-bounded",
      description: `run folder after a ${sizes[sizes.length - 1]} MiB flood`,
      target: `<= output_bytes (${mb(DEFAULT_AGENT_BOUNDS.outputBytes)}) + 1 MiB`,
      measured: bounded ? mb(bounded.runFolderBytes) : "-",
      met: bounded ? bounded.runFolderBytes <= DEFAULT_AGENT_BOUNDS.outputBytes + MiB : null,
    },
  ];
  return { sections: [section], goals };
}
