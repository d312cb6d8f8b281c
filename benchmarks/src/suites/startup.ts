/**
 * Start-up (`--only startup`): a one-case `skillrig test` of the example `skillrig init` writes, and
 * `skillrig --version`, whole process, against `node -e ''` and against the same command through the CLI's
 * unbundled modules (dist/main.js, what the bin loaded before dist/bundle/), rounds interleaved; and how many
 * modules each loads (counted by a module hook, one run each: a count, not a time, so it does not move with load).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Attempt, Footnotes, attempt } from "../attempt.js";
import { type Goal, type Section, type SuiteOutcome, formatMs } from "../report.js";
import { runProcess } from "../run-process.js";
import type { BenchSettings } from "../settings.js";
import { skillrigBin } from "../skillrig-test.js";
import { median } from "../stats.js";

const ONE_CASE_GOAL_MS = 300;
const VERSION_GOAL_MS = 20;

/** The example project `skillrig init` writes, with its task cut to its first case (the issue's one-case test). */
async function oneCaseProject(settings: BenchSettings): Promise<{ dir: string; testArgs: string[] }> {
  const dir = join(settings.workDir, "startup");
  const init = await runProcess(process.execPath, [skillrigBin(), "init", dir]);
  if (init.exitCode !== 0) throw new Error(`skillrig init exited ${init.exitCode}: ${init.stderr.slice(0, 300)}`);
  const taskFile = join(dir, "tasks/add-numbers/task.json");
  const task = JSON.parse(readFileSync(taskFile, "utf8")) as { tests: unknown[] };
  task.tests = task.tests.slice(0, 1);
  writeFileSync(taskFile, JSON.stringify(task, null, 2));
  return { dir, testArgs: ["test", "tasks/add-numbers/task.json", "--deliverable", "tasks/add-numbers/solution.py", "--json"] };
}

/** Launchers written in the work folder: the CLI's main without the bundle, and a hook that lists loaded modules. */
function writeLaunchers(settings: BenchSettings): { unbundled: string; counter: string } {
  const mainFile = join(dirname(skillrigBin()), "../dist/main.js");
  const unbundled = join(settings.workDir, "skillrig-unbundled.mjs");
  writeFileSync(
    unbundled,
    `const { main } = await import(${JSON.stringify(mainFile)});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
  // The hook appends every URL the loader loads to the file the command's environment names.
  const hooks = join(settings.workDir, "count-hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) {\n  if (!url.startsWith("node:")) appendFileSync(process.env.SKILLRIG_BENCH_MODULES, url + "\\n");\n  return next(url, context);\n}\n`,
  );
  const counter = join(settings.workDir, "count-modules.mjs");
  writeFileSync(counter, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  return { unbundled, counter };
}

/** How many modules (ES modules, and CommonJS files imported from them) a command loads. */
async function modulesLoaded(settings: BenchSettings, cwd: string, counter: string, args: string[]): Promise<number> {
  const log = join(settings.workDir, `modules-${Date.now()}-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, "");
  const run = await runProcess(process.execPath, ["--import", counter, ...args], {
    cwd,
    env: { ...process.env, SKILLRIG_BENCH_MODULES: log },
  });
  if (run.exitCode !== 0) throw new Error(`${args.slice(1).join(" ")} exited ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
  return readFileSync(log, "utf8").split("\n").filter(Boolean).length;
}

interface StartupWalls {
  node: number[];
  version: number[];
  oneCase: number[];
  oneCaseUnbundled: number[];
}

async function timed(args: string[], cwd: string): Promise<number> {
  const run = await runProcess(process.execPath, args, { cwd });
  if (run.exitCode !== 0) throw new Error(`node ${args.join(" ")} exited ${run.exitCode}: ${run.stderr.slice(0, 300)}`);
  return run.wallMs;
}

/** Every round runs the four commands one after the other, so a busy spell on the machine hits all of them. */
async function interleavedWalls(settings: BenchSettings, dir: string, testArgs: string[], unbundled: string): Promise<StartupWalls> {
  const rounds = settings.quick ? 3 : 9;
  const walls: StartupWalls = { node: [], version: [], oneCase: [], oneCaseUnbundled: [] };
  for (let round = 0; round < rounds; round++) {
    settings.log(`start-up: node -e '', --version, a 1-case test bundled and unbundled (round ${round + 1}/${rounds})`);
    walls.node.push(await timed(["-e", ""], dir));
    walls.version.push(await timed([skillrigBin(), "--version"], dir));
    walls.oneCase.push(await timed([skillrigBin(), ...testArgs], dir));
    walls.oneCaseUnbundled.push(await timed([unbundled, ...testArgs], dir));
  }
  return walls;
}

export async function startup(settings: BenchSettings): Promise<SuiteOutcome> {
  const notes = new Footnotes();
  const { dir, testArgs } = await oneCaseProject(settings);
  const { unbundled, counter } = writeLaunchers(settings);
  const walls = await attempt(() => interleavedWalls(settings, dir, testArgs, unbundled));
  const counts: Attempt<{ version: number; oneCase: number; oneCaseUnbundled: number }> = await attempt(async () => ({
    version: await modulesLoaded(settings, dir, counter, [skillrigBin(), "--version"]),
    oneCase: await modulesLoaded(settings, dir, counter, [skillrigBin(), ...testArgs]),
    oneCaseUnbundled: await modulesLoaded(settings, dir, counter, [unbundled, ...testArgs]),
  }));
  const med = (pick: (w: StartupWalls) => number[]) => (w: StartupWalls) => median(pick(w));
  const node = med((w) => w.node);
  const version = med((w) => w.version);
  const oneCase = med((w) => w.oneCase);
  const oneCaseUnbundled = med((w) => w.oneCaseUnbundled);
  const rows = [
    ["`node -e ''`", notes.cell(walls, (w) => formatMs(node(w))), "", ""],
    [
      "`skillrig --version`",
      notes.cell(walls, (w) => formatMs(version(w))),
      notes.cell(walls, (w) => `+${formatMs(version(w) - node(w))}`),
      notes.cell(counts, (c) => String(c.version)),
    ],
    [
      "1-case `skillrig test` (the bin: dist/bundle/)",
      notes.cell(walls, (w) => formatMs(oneCase(w))),
      notes.cell(walls, (w) => `+${formatMs(oneCase(w) - node(w))}`),
      notes.cell(counts, (c) => String(c.oneCase)),
    ],
    [
      "1-case `skillrig test`, unbundled (dist/main.js)",
      notes.cell(walls, (w) => formatMs(oneCaseUnbundled(w))),
      notes.cell(walls, (w) => `+${formatMs(oneCaseUnbundled(w) - node(w))}`),
      notes.cell(counts, (c) => String(c.oneCaseUnbundled)),
    ],
  ];
  const versionGoal: Goal = {
    id: "startup-version",
    description: "`skillrig --version` against `node -e ''`, whole process (--only startup)",
    target: `<= +${VERSION_GOAL_MS} ms`,
    measured: notes.cell(walls, (w) => `+${formatMs(version(w) - node(w))} (${formatMs(version(w))} vs ${formatMs(node(w))})`),
    met: walls.ok ? version(walls.value) - node(walls.value) <= VERSION_GOAL_MS : null,
  };
  const oneCaseGoal: Goal = {
    id: "startup-one-case",
    description: "a 1-case `skillrig test` of the init example, whole process (--only startup)",
    target: `< ${ONE_CASE_GOAL_MS} ms`,
    measured: notes.cell(walls, (w) => formatMs(oneCase(w))),
    met: walls.ok ? oneCase(walls.value) < ONE_CASE_GOAL_MS : null,
  };
  if (oneCaseGoal.met === false && walls.ok) {
    const w = walls.value;
    oneCaseGoal.note = `Node's own start is ${formatMs(node(w))} of it; unbundled the same command takes ${formatMs(oneCaseUnbundled(w))}${counts.ok ? ` and loads ${counts.value.oneCaseUnbundled} modules against the bundle's ${counts.value.oneCase}` : ""}; section 5c (--only suites) splits it by phase`;
  }
  if (versionGoal.met === false && counts.ok)
    versionGoal.note = `it loads ${counts.value.version} module(s) of skillrig's; the rest is Node's own start of an ES module entry`;
  const section: Section = {
    title: "6. Start-up: a 1-case `skillrig test` and `skillrig --version`, whole process",
    header: ["command", "wall (median)", "over `node -e ''`", "modules loaded"],
    rows,
    notes: [
      "The 1-case test is the example `skillrig init` writes (`tasks/add-numbers`, function, its first case, level namespaces by default), `--json`. Rounds run the four commands in turn; each figure is the median of its rounds.",
      "Unbundled: the same `main()` imported from dist/main.js by a two-line launcher (the CLI before dist/bundle/). Modules loaded: every module URL the loader's `load` hook sees, one run each.",
      ...notes.lines,
    ],
    figures: { walls, counts },
  };
  return { sections: [section], goals: [versionGoal, oneCaseGoal] };
}
