/**
 * 1. Function cases through `skillrig test`, against a fresh python3 per case and against the floor.
 * 4. Scaling: the same workloads with --jobs 1 and 2.
 */
import { type Attempt, Footnotes, attempt, both } from "../attempt.js";
import { floorLoopSeconds, freshProcessPerCaseMs } from "../baselines.js";
import { type Goal, type Section, type SuiteOutcome, formatRate, formatRatio } from "../report.js";
import type { BenchSettings } from "../settings.js";
import { skillrigTest } from "../skillrig-test.js";
import { median, repeat } from "../stats.js";
import { type FunctionWorkload, addWorkload, collatzWorkload } from "../workloads.js";

const GOAL_SPEEDUP = 20;

interface Rate {
  casesPerSecond: number;
  samples: number[];
}

async function skillrigRate(settings: BenchSettings, workload: FunctionWorkload, jobs: number): Promise<Rate> {
  const wallMs = await repeat(
    settings.repeats,
    async (round) => {
      settings.log(`skillrig test ${workload.cases} x ${workload.label} --jobs ${jobs} (round ${round + 1}/${settings.repeats})`);
      const run = await skillrigTest({ taskFile: workload.taskFile, deliverable: workload.deliverableFile, jobs, cwd: settings.workDir });
      return run.wallMs;
    },
    settings.figureBudgetMs,
  );
  return { casesPerSecond: (workload.cases * 1000) / median(wallMs), samples: wallMs };
}

/** Per-case cost of a fresh interpreter per case, sampled; the rate is extrapolated from it. */
async function freshProcessRate(settings: BenchSettings, workload: FunctionWorkload, flags: string[]): Promise<Rate & { sample: number }> {
  const sample = Math.min(settings.baselineSample, workload.cases);
  const perCaseMs = await repeat(
    settings.repeats,
    (round) => {
      settings.log(
        `fresh python3${flags.map((f) => ` ${f}`).join("")} per case: ${workload.label}, ${sample} cases (round ${round + 1}/${settings.repeats})`,
      );
      return freshProcessPerCaseMs(settings.python.executable, workload, sample, 1, flags);
    },
    settings.figureBudgetMs / 2,
  );
  return { casesPerSecond: 1000 / median(perCaseMs), samples: perCaseMs, sample };
}

async function floorRate(settings: BenchSettings, workload: FunctionWorkload, forkPerCase = false): Promise<Rate> {
  const seconds = await repeat(settings.repeats, () => floorLoopSeconds(settings.python.executable, workload, forkPerCase));
  return { casesPerSecond: workload.cases / median(seconds), samples: seconds };
}

/** Marks a figure that got fewer rounds than asked because of the time budget. */
function rounds(settings: BenchSettings, rate: Rate): string {
  return rate.samples.length < settings.repeats ? ` (${rate.samples.length} of ${settings.repeats} rounds: time budget)` : "";
}

export async function functionCases(settings: BenchSettings): Promise<SuiteOutcome> {
  const workloads = [
    ...settings.trivialCaseCounts.map((n) => addWorkload(settings.workDir, n)),
    collatzWorkload(settings.workDir, settings.workCases),
  ];
  const header = [
    "cases",
    "skillrig, cases/s (--jobs 1)",
    "fresh python3 per case, cases/s",
    "floor (one process), cases/s",
    "fork per case (isolation floor), cases/s",
    "skillrig vs fresh python3",
    "skillrig vs fresh python3 -S",
    "skillrig vs floor",
  ];
  const notes = new Footnotes();
  const rows: string[][] = [];
  const figures: Record<string, unknown> = {};
  const goals: Goal[] = [];
  const jobs1 = new Map<FunctionWorkload, Rate>();

  // The baselines depend on the function, not on the case count: measured once per function.
  const baselines = new Map<string, { site: Attempt<Rate & { sample: number }>; noSite: Attempt<Rate & { sample: number }> }>();
  for (const workload of workloads) {
    if (baselines.has(workload.functionName)) continue;
    baselines.set(workload.functionName, {
      site: await attempt(() => freshProcessRate(settings, workload, [])),
      noSite: await attempt(() => freshProcessRate(settings, workload, ["-S"])),
    });
  }

  for (const workload of workloads) {
    const label = `${workload.cases.toLocaleString("en-US")} x ${workload.label}`;
    const baseline = baselines.get(workload.functionName)!;
    const floor = await attempt(() => floorRate(settings, workload));
    const forkFloor = await attempt(() => floorRate(settings, workload, true));
    const skillrig = await attempt(() => skillrigRate(settings, workload, 1));
    if (skillrig.ok) jobs1.set(workload, skillrig.value);
    const speedup = both(skillrig, baseline.site);
    const speedupNoSite = both(skillrig, baseline.noSite);
    const belowFloor = both(skillrig, floor);
    rows.push([
      label,
      notes.cell(skillrig, (r) => formatRate(r.casesPerSecond) + rounds(settings, r)),
      notes.cell(baseline.site, (r) => `${formatRate(r.casesPerSecond)} (${r.sample}-case sample, extrapolated)${rounds(settings, r)}`),
      notes.cell(floor, (r) => formatRate(r.casesPerSecond)),
      notes.cell(
        forkFloor,
        (r) =>
          `${formatRate(r.casesPerSecond)} (${formatRatio(r.casesPerSecond / (baseline.site.ok ? baseline.site.value.casesPerSecond : Number.NaN))} a fresh python3)`,
      ),
      notes.cell(speedup, ([s, b]) => `${formatRatio(s.casesPerSecond / b.casesPerSecond)} faster`),
      notes.cell(speedupNoSite, ([s, b]) => `${formatRatio(s.casesPerSecond / b.casesPerSecond)} faster`),
      notes.cell(belowFloor, ([s, f]) => `${formatRatio(f.casesPerSecond / s.casesPerSecond)} slower`),
    ]);
    figures[`${workload.functionName}-${workload.cases}`] = {
      cases: workload.cases,
      skillrigJobs1: skillrig,
      freshProcess: baseline.site,
      freshProcessNoSite: baseline.noSite,
      floor,
      forkPerCaseFloor: forkFloor,
    };
    if (workload.functionName === "add") {
      const ratio = speedup.ok ? speedup.value[0].casesPerSecond / speedup.value[1].casesPerSecond : undefined;
      const ratioNoSite = speedupNoSite.ok ? speedupNoSite.value[0].casesPerSecond / speedupNoSite.value[1].casesPerSecond : undefined;
      goals.push({
        id: `function-speedup-${workload.cases}`,
        description: `function cases (${label}) vs a fresh python3 per case`,
        target: `>= ${GOAL_SPEEDUP}x faster`,
        measured: ratio === undefined ? "-" : `${formatRatio(ratio)} faster`,
        met: ratio === undefined ? null : ratio >= GOAL_SPEEDUP,
        ...(ratioNoSite === undefined
          ? {}
          : {
              note: `against a fresh \`python3 -S\` (no site start-up; a lower bound for any machine) it is ${formatRatio(ratioNoSite)} faster`,
            }),
      });
    }
  }

  // Two trivial sets of different sizes split the command's time into a fixed part and a per-case part.
  const trivial = workloads.filter((w) => w.functionName === "add" && jobs1.has(w)).sort((a, b) => a.cases - b.cases);
  const split: string[] = [];
  if (trivial.length >= 2) {
    const small = trivial[0]!;
    const large = trivial[trivial.length - 1]!;
    const smallMs = (small.cases * 1000) / jobs1.get(small)!.casesPerSecond;
    const largeMs = (large.cases * 1000) / jobs1.get(large)!.casesPerSecond;
    const perCaseMs = (largeMs - smallMs) / (large.cases - small.cases);
    const fixedMs = smallMs - perCaseMs * small.cases;
    figures.split = { perCaseMs, fixedMs };
    split.push(
      `split of the trivial runs (slope between ${small.cases.toLocaleString("en-US")} and ${large.cases.toLocaleString("en-US")} cases): ${perCaseMs.toFixed(2)} ms per case plus ${Math.round(fixedMs)} ms per command (Node start-up, plugins, sandbox probe, harness start); the fixed part is why the smaller set gets a lower ratio.`,
    );
  }

  const functionSection: Section = {
    title: "1. Function cases",
    header,
    rows,
    notes: [
      "skillrig: the whole `skillrig test --json --jobs 1` command, Node start-up and report included: cases / wall time.",
      "fresh python3 per case: a new interpreter per case imports the deliverable, calls fn(*input), prints JSON, one at a time; run on a sample of the cases and extrapolated at the sampled per-case cost (the cost does not depend on how many cases there are). `-S`: the same without site start-up, the cheapest a fresh interpreter can be.",
      "floor: one Python process calls fn(*input) and compares, for every case; only the call loop is timed (no interpreter start-up, no isolation, no protocol).",
      "fork per case: the isolation floor: one Python process imports the deliverable once and forks a child per case, which calls fn and pipes back the JSON result, one case at a time; only the loop is timed. No runner can isolate cases by fork for less; in brackets, how many times a fresh python3 per case that is.",
      `the ${GOAL_SPEEDUP}x goal is judged on the trivial cases, where skillrig's own per-case cost is all there is; with real work every runner is bounded by the work itself (see the floor).`,
      ...split,
      ...notes.lines,
    ],
    figures,
  };

  // Scaling: the same workloads at --jobs 2, against the --jobs 1 figures above.
  const scaling = new Footnotes();
  const scalingRows: string[][] = [];
  const scalingFigures: Record<string, unknown> = {};
  // The smallest trivial set keeps the run short; per-case cost does not depend on the count (compare the rows above).
  const smallestTrivial = Math.min(...settings.trivialCaseCounts);
  for (const workload of workloads.filter((w) => w.functionName !== "add" || w.cases === smallestTrivial)) {
    const label = `${workload.cases.toLocaleString("en-US")} x ${workload.label}`;
    const one: Attempt<Rate> = jobs1.has(workload)
      ? { ok: true, value: jobs1.get(workload)! }
      : { ok: false, reason: "no --jobs 1 figure" };
    const two = one.ok ? await attempt(() => skillrigRate(settings, workload, 2)) : one;
    scalingRows.push([
      label,
      scaling.cell(one, (r) => formatRate(r.casesPerSecond)),
      scaling.cell(two, (r) => formatRate(r.casesPerSecond) + rounds(settings, r)),
      scaling.cell(both(one, two), ([a, b]) => formatRatio(b.casesPerSecond / a.casesPerSecond)),
    ]);
    scalingFigures[`${workload.functionName}-${workload.cases}`] = { jobs1: one, jobs2: two };
  }
  const scalingSection: Section = {
    title: "4. Scaling (function cases, 2 cores)",
    header: ["cases", "cases/s --jobs 1", "cases/s --jobs 2", "speed-up"],
    rows: scalingRows,
    notes: [
      "Whole-command throughput. The ideal speed-up on 2 cores is 2x, less the fixed start-up and the Node side that both workers share.",
      ...scaling.lines,
    ],
    figures: scalingFigures,
  };
  return { sections: [functionSection, scalingSection], goals };
}
