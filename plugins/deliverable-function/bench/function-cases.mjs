// Cases per second for trivial function cases (`add(a, b)`), three ways, measured in the same run:
//   plugin    1,000 cases through @skillrig/oracle's runTask with this plugin and the real sandbox (harness start
//             and stop included): one harness, a fork per case
//   baseline  a fresh python3 (the real interpreter, not a shim) per case (import the module, call, print JSON), as common harnesses do; no sandbox
//   floor     the same 1,000 calls (with the JSON decode/encode) in one Python process, no runner, no isolation
// Each figure is the median of several runs; the ratios compare medians. Both the plugin and the baseline run
// `--jobs` cases at once (default: the number of cores).
// usage: node bench/function-cases.mjs [--cases 1000] [--runs 5] [--baseline-cases 200] [--jobs N] [--out FILE]
import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile, chmod } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { Runner } from "@skillrig/core";
import { compareModesPlugin, runTask } from "@skillrig/oracle";
import sandboxPlugin from "@skillrig/sandbox";
import deliverableFunction from "@skillrig/deliverable-function";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "1000" },
    runs: { type: "string", default: "5" },
    "baseline-cases": { type: "string", default: "200" },
    jobs: { type: "string", default: String(availableParallelism()) },
    out: { type: "string", default: join(import.meta.dirname, "..", "bench-results", "function-cases.json") },
  },
});
const CASES = Number(values.cases);
const RUNS = Number(values.runs);
const BASELINE_CASES = Math.min(CASES, Number(values["baseline-cases"]));
const JOBS = Number(values.jobs);

const SOURCE = "def add(a, b):\n    return a + b\n";
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const inputs = Array.from({ length: CASES }, (_, i) => [i, i + 1]);

const dir = await mkdtemp(join(tmpdir(), "skillrig-bench-function-"));
await chmod(dir, 0o755);
const entryFile = join(dir, "solution.py");
await writeFile(entryFile, SOURCE);

async function pluginRun() {
  const runner = new Runner().use(compareModesPlugin()).use(deliverableFunction()).use(sandboxPlugin());
  const loaded = {
    displayPath: "bench.task.json",
    task: {
      contract_version: "1.0",
      task_id: "bench-add",
      deliverable_type: "function",
      entrypoint: "add",
      tests: inputs.map(([a, b], i) => ({ name: `add ${i}`, input: [a, b], expected: a + b })),
    },
  };
  const started = performance.now();
  const report = await runTask(runner, { loaded, deliverable: { dir, entryFile }, jobs: JOBS });
  const seconds = (performance.now() - started) / 1000;
  if (report.summary.passed !== CASES) throw new Error(`plugin run: only ${report.summary.passed} of ${CASES} cases passed`);
  return { casesPerSecond: CASES / seconds, isolation: report.isolation };
}

// The real interpreter behind `python3` (a pyenv shim would add a shell script's start-up to every baseline case).
const PYTHON = await new Promise((resolve, reject) =>
  execFile("python3", ["-c", "import sys; print(sys.executable)"], (error, stdout) => (error ? reject(error) : resolve(stdout.trim()))),
);

const BASELINE_SCRIPT =
  "import json, sys\nsys.path.insert(0, sys.argv[1])\nfrom solution import add\nprint(json.dumps(add(*json.loads(sys.argv[2]))))";

function spawnCase([a, b]) {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, ["-c", BASELINE_SCRIPT, dir, JSON.stringify([a, b])], (error, stdout) => {
      if (error) return reject(error);
      if (JSON.parse(stdout) !== a + b) return reject(new Error(`baseline: wrong result for add(${a}, ${b})`));
      resolve();
    });
  });
}

async function baselineRun() {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: JOBS }, async () => {
      while (next < BASELINE_CASES) await spawnCase(inputs[next++]);
    }),
  );
  return { casesPerSecond: BASELINE_CASES / ((performance.now() - started) / 1000) };
}

const FLOOR_SCRIPT = `
import json, sys, time
sys.path.insert(0, sys.argv[1])
from solution import add
lines = [json.dumps([i, i + 1]) for i in range(int(sys.argv[2]))]
started = time.perf_counter()
for line in lines:
    json.dumps(add(*json.loads(line)))
print(time.perf_counter() - started)
`;

function floorRun() {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ["-c", FLOOR_SCRIPT, dir, String(CASES)]);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve({ casesPerSecond: CASES / Number(out) }) : reject(new Error(`floor exited ${code}`)),
    );
  });
}

try {
  // Other work on the machine slows the plugin (latency-bound: a few process wake-ups per case) more than the
  // baseline (CPU-bound: an interpreter start-up per case); the load average goes with the figures.
  const loadBefore = loadavg()[0];
  const results = { plugin: [], baseline: [], floor: [] };
  await pluginRun(); // warm-up: the sandbox's probe, module loading
  for (let run = 0; run < RUNS; run++) {
    results.plugin.push(await pluginRun());
    results.baseline.push(await baselineRun());
    results.floor.push(await floorRun());
  }
  const med = Object.fromEntries(Object.entries(results).map(([k, rs]) => [k, median(rs.map((r) => r.casesPerSecond))]));
  const summary = {
    date: new Date().toISOString(),
    cases: CASES,
    baseline_cases: BASELINE_CASES,
    runs: RUNS,
    jobs: JOBS,
    isolation: results.plugin[0]?.isolation,
    cases_per_second: med,
    runs_cases_per_second: Object.fromEntries(Object.entries(results).map(([k, rs]) => [k, rs.map((r) => Math.round(r.casesPerSecond))])),
    plugin_vs_baseline: med.plugin / med.baseline,
    plugin_vs_floor: med.plugin / med.floor,
    goal_20x_baseline_met: med.plugin / med.baseline >= 20,
    load_average_1m: { before: loadBefore, after: loadavg()[0] },
  };
  const row = (label, value, note) => `${label.padEnd(44)} ${String(Math.round(value)).padStart(9)} cases/s   ${note}`;
  console.log(
    `function cases: ${CASES} x add(a, b), median of ${RUNS} runs, jobs ${JOBS}, sandbox isolation "${summary.isolation}", load average ${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`,
  );
  console.log(row("plugin (runTask, harness + fork per case)", med.plugin, ""));
  console.log(
    row(
      `baseline (fresh python3 per case, ${BASELINE_CASES} cases)`,
      med.baseline,
      `plugin is ${summary.plugin_vs_baseline.toFixed(1)}x faster (goal: 20x)`,
    ),
  );
  console.log(
    row("floor (all calls in one Python process)", med.floor, `plugin reaches ${(summary.plugin_vs_floor * 100).toFixed(2)}% of it`),
  );
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(values.out, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(`written: ${values.out}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
