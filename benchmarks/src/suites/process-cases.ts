/**
 * 2. Script and cli cases: the per-case cost of a trivial main.py through `skillrig test` (whatever the CLI does for
 * them) with the sandbox on and off, against a bare `python3 main.py` spawn and the floor for a forked case (an
 * interpreter already up running the file as `__main__` in a fork per case); the sandbox alone, level by level,
 * through its API; and what merely starting the interpreter costs on this machine.
 */
import { chmodSync, cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DEFAULT_LIMITS } from "@skillrig/core";
import { availableLevels, createSandbox } from "@skillrig/sandbox";
import { type Attempt, Footnotes, attempt, both } from "../attempt.js";
import { bareSpawnPerCaseMs, forkMainPerCaseMs, interpreterStartMs } from "../baselines.js";
import { type Goal, type Section, type SuiteOutcome, formatMs, formatRatio } from "../report.js";
import type { BenchSettings } from "../settings.js";
import { skillrigTest } from "../skillrig-test.js";
import { median, repeat } from "../stats.js";
import { type ProcessWorkload, cliWorkload, scriptWorkload } from "../workloads.js";

/** The goal: a script or cli case at most this share of a bare `python3 main.py` spawn. */
const GOAL_RATIO = 0.6;

interface SandboxSetting {
  name: "on" | "off";
  configFile: string;
}

function writeConfigs(workDir: string): [SandboxSetting, SandboxSetting] {
  const on = join(workDir, "sandbox-on.config.json");
  const off = join(workDir, "sandbox-off.config.json");
  writeFileSync(on, JSON.stringify({ sandbox: { level: "auto" } }));
  writeFileSync(off, JSON.stringify({ sandbox: { level: "none" } }));
  return [
    { name: "on", configFile: on },
    { name: "off", configFile: off },
  ];
}

interface PerCase {
  perCaseMs: number;
  oneCaseWallMs: number[];
  manyCaseWallMs: number[];
  /** Median of the report's own per-case duration_ms. */
  reportedCaseMs: number;
}

interface Measured {
  bare: { ms: number; samples: number[] };
  /** The floor for a forked case (fork_main.py), measured alongside: what bounds the goal. */
  forkFloor: { ms: number; samples: number[] };
  on: Attempt<PerCase>;
  off: Attempt<PerCase>;
}

/**
 * Rounds interleave the bare spawn and both sandbox settings, so a busy spell on the machine hits all of them.
 * skillrig's per-case cost is the slope between a 1-case and an N-case run of the whole command, so Node
 * start-up and plugin set-up (paid once per command) do not count as per-case cost.
 */
async function measurePair(
  settings: BenchSettings,
  one: ProcessWorkload,
  many: ProcessWorkload,
  sandboxSettings: SandboxSetting[],
): Promise<Measured> {
  const python = settings.python.executable;
  const bare: number[] = [];
  const forkFloor: number[] = [];
  const wall = new Map<string, { one: number[]; many: number[]; reported: number[]; failure?: string }>();
  for (const setting of sandboxSettings) wall.set(setting.name, { one: [], many: [], reported: [] });
  for (let round = 0; round < settings.repeats; round++) {
    settings.log(
      `${many.label}: bare spawns, forked-case floor and skillrig test, 1 and ${many.cases} cases, sandbox on and off (round ${round + 1}/${settings.repeats})`,
    );
    bare.push(await bareSpawnPerCaseMs(python, many, many.cases));
    forkFloor.push(await forkMainPerCaseMs(python, many, many.cases));
    for (const setting of sandboxSettings) {
      const samples = wall.get(setting.name)!;
      if (samples.failure) continue;
      try {
        const common = { jobs: 1, configFile: setting.configFile, cwd: settings.workDir };
        const a = await skillrigTest({ ...common, taskFile: one.taskFile, deliverable: one.deliverableDir });
        const b = await skillrigTest({ ...common, taskFile: many.taskFile, deliverable: many.deliverableDir });
        samples.one.push(a.wallMs);
        samples.many.push(b.wallMs);
        if (b.caseDurationsMs.length > 0) samples.reported.push(median(b.caseDurationsMs));
      } catch (error) {
        samples.failure = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ");
      }
    }
  }
  const perCase = (name: string): Attempt<PerCase> => {
    const samples = wall.get(name)!;
    if (samples.failure) return { ok: false, reason: samples.failure };
    const slope = (median(samples.many) - median(samples.one)) / (many.cases - 1);
    if (!(slope > 0)) {
      return {
        ok: false,
        reason: `too noisy: the ${many.cases}-case runs (median ${Math.round(median(samples.many))} ms) were not slower than the 1-case runs (${Math.round(median(samples.one))} ms); rerun on a quieter machine`,
      };
    }
    return {
      ok: true,
      value: {
        perCaseMs: slope,
        oneCaseWallMs: samples.one,
        manyCaseWallMs: samples.many,
        reportedCaseMs: samples.reported.length > 0 ? median(samples.reported) : Number.NaN,
      },
    };
  };
  return {
    bare: { ms: median(bare), samples: bare },
    forkFloor: { ms: median(forkFloor), samples: forkFloor },
    on: perCase("on"),
    off: perCase("off"),
  };
}

/** What stops a missed script/cli goal, from the forked-case floor measured in the same rounds. */
function processBound(caseMs: number, bareMs: number, floor: Attempt<{ ms: number }>): string {
  if (!floor.ok) return `bound not measured: ${floor.reason}`;
  const floorRatio = floor.value.ms / bareMs;
  const reach =
    floorRatio > GOAL_RATIO
      ? `so the goal is out of reach here for any grader that forks a started interpreter per case (the floor alone is over ${GOAL_RATIO}x)`
      : `so the goal is within reach of a forked case; skillrig adds ${formatMs(caseMs - floor.value.ms)} per case over that floor (sandbox, case folder and its snapshots, the round trip, the comparison; section 2b gives the sandbox alone)`;
  return `bound: a fork of a started python3 running main.py as \`__main__\` in a fresh folder, nothing else, takes ${formatMs(floor.value.ms)} per case here, ${formatRatio(floorRatio)} the bare spawn, ${reach}`;
}

export async function processCases(settings: BenchSettings): Promise<SuiteOutcome> {
  const [onSetting, offSetting] = writeConfigs(settings.workDir);
  const autoLevel = availableLevels().find((l) => l.available)?.level ?? "none";
  const python = settings.python.executable;
  const startup = await interpreterStartup(settings);
  const pairs: Array<[ProcessWorkload, ProcessWorkload]> = [
    [scriptWorkload(settings.workDir, 1), scriptWorkload(settings.workDir, settings.processCases)],
    [cliWorkload(settings.workDir, 1), cliWorkload(settings.workDir, settings.processCases)],
  ];
  const header = [
    "deliverable",
    `sandbox on (${autoLevel}), ms/case`,
    "sandbox off (none), ms/case",
    "bare python3 main.py, ms",
    "on vs bare",
    "goal",
    "on minus bare",
    "on vs off",
    "duration_ms in report (on)",
    "forked-case floor, ms",
    "bound (floor vs bare)",
  ];
  const notes = new Footnotes();
  const rows: string[][] = [];
  const figures: Record<string, unknown> = { interpreterStartup: startup.figures };
  const goals: Goal[] = [];

  for (const [one, many] of pairs) {
    const measured = await attempt(() => measurePair(settings, one, many, [onSetting, offSetting]));
    const bare: Attempt<{ ms: number }> = measured.ok ? { ok: true, value: measured.value.bare } : measured;
    const on: Attempt<PerCase> = measured.ok ? measured.value.on : measured;
    const off: Attempt<PerCase> = measured.ok ? measured.value.off : measured;
    const floor: Attempt<{ ms: number }> = measured.ok ? { ok: true, value: measured.value.forkFloor } : measured;
    const onBare = both(on, bare);
    const floorBare = both(floor, bare);
    rows.push([
      many.label,
      notes.cell(on, (r) => formatMs(r.perCaseMs)),
      notes.cell(off, (r) => formatMs(r.perCaseMs)),
      notes.cell(bare, (r) => formatMs(r.ms)),
      notes.cell(onBare, ([o, b]) => formatRatio(o.perCaseMs / b.ms)),
      `<= ${GOAL_RATIO}x`,
      notes.cell(onBare, ([o, b]) => formatMs(o.perCaseMs - b.ms)),
      notes.cell(both(on, off), ([o, f]) => formatRatio(o.perCaseMs / f.perCaseMs)),
      notes.cell(on, (r) => formatMs(r.reportedCaseMs)),
      notes.cell(floor, (r) => formatMs(r.ms)),
      notes.cell(floorBare, ([f, b]) => formatRatio(f.ms / b.ms)),
    ]);
    figures[many.kind] = { cases: many.cases, measured };
    const goal: Goal = {
      id: `${many.kind}-vs-bare-spawn`,
      description: `a ${many.kind} case (sandbox on) vs a bare \`python3 main.py\` spawn`,
      target: `<= ${GOAL_RATIO}x`,
      measured: notes.cell(onBare, ([o, b]) => `${formatRatio(o.perCaseMs / b.ms)} (${formatMs(o.perCaseMs)} vs ${formatMs(b.ms)})`),
      met: onBare.ok ? onBare.value[0].perCaseMs / onBare.value[1].ms <= GOAL_RATIO : null,
    };
    if (goal.met === false && onBare.ok) goal.note = processBound(onBare.value[0].perCaseMs, onBare.value[1].ms, floor);
    goals.push(goal);
  }

  const casesSection: Section = {
    title: "2. Script and cli cases",
    header,
    rows,
    notes: [
      `ms/case: the slope between a 1-case and a ${settings.processCases}-case \`skillrig test --jobs 1\` run (medians of ${settings.repeats}), so the command's fixed start-up is not counted per case. Each case gets a fresh folder with its files, the sandbox, and the comparison.`,
      'sandbox on: config `sandbox: { level: "auto" }` (the default: the strongest level the machine has); off: `sandbox: { level: "none" }`.',
      `bare: the real interpreter (${python}), site on, spawned from Node on main.py in one folder, one at a time; no folder set-up, no comparison: what a user's own harness runs.`,
      "forked-case floor: `fork_main.py`, an interpreter already up (started and main.py compiled before the timed loop) that per case makes a fresh folder with main.py, forks, runs it as `__main__` with the case's argv and stdin, reads stdout, reaps and removes the folder; no sandbox, uid, limits or protocol. Its ratio to the bare spawn bounds the goal: where it is over the goal, no grader that forks a started interpreter per case can meet it here.",
      ...notes.lines,
    ],
    figures,
  };

  return { sections: [startup.section, casesSection, await sandboxAlone(settings, pairs[0]![1])], goals };
}

/** What starting python3 costs here, with and without site (site runs the machine's .pth files). */
async function interpreterStartup(
  settings: BenchSettings,
): Promise<{ section: Section; value: Attempt<{ siteMs: number; noSiteMs: number }>; figures: unknown }> {
  const python = settings.python.executable;
  const count = settings.processCases;
  const value = await attempt(async () => {
    const site = await repeat(settings.repeats, () => interpreterStartMs(python, count));
    const noSite = await repeat(settings.repeats, () => interpreterStartMs(python, count, ["-S"]));
    return { siteMs: median(site), noSiteMs: median(noSite), siteSamples: site, noSiteSamples: noSite };
  });
  const notes = new Footnotes();
  return {
    value,
    figures: value,
    section: {
      title: "0. Interpreter start-up on this machine",
      header: ["command", "ms"],
      rows: [
        ["python3 -c pass", notes.cell(value, (v) => formatMs(v.siteMs))],
        ["python3 -S -c pass (no site)", notes.cell(value, (v) => formatMs(v.noSiteMs))],
      ],
      notes: [
        "Every bare spawn pays this. The difference is the site step, which runs the .pth files of the interpreter's site-packages; on a machine with heavy .pth files (one that imports certifi, say) a bare spawn is slow, which makes ratios against it look better than on a clean install.",
        ...notes.lines,
      ],
      figures: {},
    },
  };
}

/** The sandbox's own cost per level, through its public API, without the oracle around it (for diagnosis). */
async function sandboxAlone(settings: BenchSettings, workload: ProcessWorkload): Promise<Section> {
  const notes = new Footnotes();
  const rows: string[][] = [];
  const figures: Record<string, unknown> = {};
  const count = workload.cases;
  const bare = await attempt(async () =>
    median(await repeat(settings.repeats, () => bareSpawnPerCaseMs(settings.python.executable, workload, count))),
  );
  rows.push(["bare spawn (no sandbox)", notes.cell(bare, formatMs), notes.cell(bare, () => "1.00x")]);
  figures.bareSpawnMs = bare;
  for (const availability of availableLevels()) {
    if (!availability.available) {
      rows.push([availability.level, `not available here: ${availability.reason ?? ""}`, ""]);
      continue;
    }
    const level = availability.level;
    const ms = await attempt(async () => {
      const sandbox = createSandbox({ level });
      const samples = await repeat(settings.repeats, async () => {
        const cwd = mkdtempSync(join(settings.workDir, `sandbox-${level}-`));
        // At level rlimits as root the code runs as an unprivileged uid, which must be able to enter the folder.
        chmodSync(cwd, 0o755);
        cpSync(join(workload.deliverableDir, "main.py"), join(cwd, "main.py"));
        const started = performance.now();
        for (let i = 0; i < count; i++) {
          // The limits and variables a script case gets by default, so this mirrors what the oracle asks for.
          const result = await sandbox.run({
            command: ["python3", "main.py"],
            cwd,
            readOnlyPaths: [cwd],
            env: { PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" },
            stdin: "",
            limits: DEFAULT_LIMITS,
          });
          if (result.exitCode !== 0)
            throw new Error(`sandbox level ${level} run exited ${result.exitCode}: ${result.stderr.slice(0, 300)}`);
        }
        return (performance.now() - started) / count;
      });
      return { ms: median(samples), samples };
    });
    rows.push([level, notes.cell(ms, (v) => formatMs(v.ms)), notes.cell(both(ms, bare), ([v, b]) => formatRatio(v.ms / b))]);
    figures[level] = ms;
  }
  return {
    title: "2b. The sandbox alone (diagnosis)",
    header: ["level", "ms/run", "vs bare spawn"],
    rows,
    notes: [
      `\`createSandbox({ level }).run()\` of \`python3 main.py\`, ${count} runs one at a time in one folder: how much of a script case is the sandbox and how much the oracle around it.`,
      ...notes.lines,
    ],
    figures,
  };
}
