/**
 * A sample's verdict depends only on the sample. Graded side by side (a suite with `--jobs 2`: function samples in
 * one warm runtime, script samples in sandboxes of their own), a hostile sample tries to change its neighbours'
 * verdicts through what they share: the CPU (a hog that undoes its own pinning and spins on every core in threads
 * and processes) and the disk (many files, each under the file-size limit, past any total). Through the real CLI,
 * the real runtime and bubblewrap, at level namespaces.
 *
 * Verdicts, stated per fixture: the hog gets `timeout` on every case and every correct sample beside it passes; the
 * disk filler gets `output_limit` naming the disk cap (`sandbox.limits.disk_bytes`), and the host's disk use under
 * the run's temp folder stays near the cap while it writes. Nothing here is timed: the hog fails because its own
 * processes burn more CPU than its limit (on any machine, loaded or not), and the correct samples need a small
 * fraction of theirs (the same on a loaded machine: CPU time, unlike the wall clock, does not grow with the load).
 */
import { execFile } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { availableLevels } from "@skillrig/sandbox";
import { tempDir } from "./helpers.js";

const repo = resolve(fileURLToPath(import.meta.url), "../../../..");
const bin = join(repo, "packages/cli/dist/bin.js");
const fixtures = resolve(fileURLToPath(import.meta.url), "../reward-hacking");
const levels = availableLevels()
  .filter((l) => l.available && l.level === "namespaces")
  .map((l) => l.level);

const MiB = 1024 * 1024;
// Correct samples that do some honest work first: about 100 ms of CPU on this machine (10 times less than the limit
// of 1000 ms on the tests below), which a hog beside them can stretch past the limit in wall-clock time.
const WORK = "sum(i * i for i in range(600_000))";
const CORRECT_FUNCTION = `def solve(x):\n    ${WORK}\n    return x * 7 + 3\n`;
const CORRECT_SCRIPT = `${WORK}\nprint(int(input()) * 7 + 3)\n`;
const fixture = (name: string) => readFileSync(join(fixtures, name), "utf8");

interface CaseResult {
  status: string;
  message?: string;
}
interface SampleResult {
  sample: number;
  status: string;
  cases?: CaseResult[];
}

interface SuiteOptions {
  type: "function" | "script";
  cases: number;
  jobs: number;
  timeoutMs: number;
  /** Expected value of every case (function) or expected stdout (script) for x; default 7x + 3. */
  expected?: (x: number) => unknown;
  config?: Record<string, unknown>;
}

/**
 * Grades one task with the given samples in one `skillrig test` command. The command's temp folder (the warm
 * runtime's and the script cases' folders live there) is a folder of this test's own, whose allocated size is
 * sampled while the command runs: `peakBytes` is the most seen.
 */
async function gradeSuite(samples: string[], options: SuiteOptions) {
  const dir = tempDir("neighbours-");
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const tests = Array.from({ length: options.cases }, (_, x) => {
    const expected = options.expected ? options.expected(x) : x * 7 + 3;
    return options.type === "function"
      ? { name: `case ${x}`, input: [x], expected }
      : { name: `case ${x}`, input: { stdin: `${x}\n` }, expected: { stdout: `${expected}\n` } };
  });
  writeFileSync(
    join(dir, "task.json"),
    JSON.stringify({
      contract_version: "1.0",
      task_id: "neighbours",
      deliverable_type: options.type,
      entrypoint: options.type === "function" ? "solve" : "main.py",
      tests,
      limits: { timeout_ms: options.timeoutMs },
    }),
  );
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ sandbox: { level: "namespaces" }, ...options.config }));
  writeFileSync(join(dir, "samples.jsonl"), samples.map((solution) => JSON.stringify({ task_id: "neighbours", solution })).join("\n"));
  let peakBytes = 0;
  const sampler = setInterval(() => {
    peakBytes = Math.max(peakBytes, allocatedBytes(tmp));
  }, 25);
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [bin, "test", "task.json", "--samples", "samples.jsonl", "--json", "--jobs", String(options.jobs)],
      { cwd: dir, maxBuffer: 64 * MiB, env: { ...process.env, TMPDIR: tmp } },
      (error, stdout, stderr) => done({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
    );
  }).finally(() => clearInterval(sampler));
  let report: { tasks: Array<{ samples: SampleResult[] }> };
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`no JSON report (exit ${result.code}): ${result.stderr.slice(-2000)}`);
  }
  return { samples: (report.tasks[0]?.samples ?? []).sort((a, b) => a.sample - b.sample), peakBytes };
}

/** Bytes allocated on disk under `path` (blocks, so a sparse file counts what it really holds); gone entries count 0. */
function allocatedBytes(path: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const child = join(path, name);
    try {
      const stat = lstatSync(child);
      total += stat.blocks * 512;
      if (stat.isDirectory()) total += allocatedBytes(child);
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

const statuses = (samples: SampleResult[]) => samples.map((s) => s.status);
const caseStatuses = (sample: SampleResult | undefined) => (sample?.cases ?? []).map((c) => c.status);

describe.each(levels)("a sample's verdict depends only on the sample, at level %s", () => {
  it("function samples: a hog that unpins itself and spins on every core gets timeout; the correct samples beside it pass", async () => {
    const hog = fixture("neighbour_cpu_hog.py");
    const { samples } = await gradeSuite([CORRECT_FUNCTION, hog, CORRECT_FUNCTION, CORRECT_FUNCTION, hog, CORRECT_FUNCTION], {
      type: "function",
      cases: 3,
      jobs: 2,
      timeoutMs: 1000,
    });
    expect(statuses(samples)).toEqual(["passed", "failed", "passed", "passed", "failed", "passed"]);
    for (const index of [1, 4]) {
      expect(caseStatuses(samples[index])).toEqual(["timeout", "timeout", "timeout"]);
      for (const c of samples[index]?.cases ?? []) expect(c.message).toMatch(/CPU time/);
    }
  });

  it("script samples: the same hog as a script gets timeout; the correct scripts beside it pass", async () => {
    const hog = fixture("neighbour_cpu_hog_script.py");
    const { samples } = await gradeSuite([CORRECT_SCRIPT, hog, CORRECT_SCRIPT, CORRECT_SCRIPT, hog, CORRECT_SCRIPT], {
      type: "script",
      cases: 2,
      jobs: 2,
      timeoutMs: 1000,
    });
    expect(statuses(samples)).toEqual(["passed", "failed", "passed", "passed", "failed", "passed"]);
    for (const index of [1, 4]) {
      expect(caseStatuses(samples[index])).toEqual(["timeout", "timeout"]);
      for (const c of samples[index]?.cases ?? []) expect(c.message).toMatch(/CPU time/);
    }
  });

  const DISK_CAP = 64 * MiB;
  const WRITTEN = 40 * 8 * MiB;

  // The hider: without the harness opening such a folder again this sample passed, 320 MiB written.
  it.each([
    ["a function that writes many files under the file-size limit", "neighbour_disk_filler.py", "function"],
    ["a function that hides its files in a folder it closed (chmod 000)", "neighbour_disk_hider.py", "function"],
    ["a script that writes many files under the file-size limit", "neighbour_disk_filler_script.py", "script"],
  ] as const)("%s gets output_limit naming the disk cap; the disk stays bounded", async (_, file, type) => {
    const { samples, peakBytes } = await gradeSuite([fixture(file)], {
      type,
      cases: 1,
      jobs: 1,
      timeoutMs: 20_000,
      expected: () => WRITTEN,
      config: { sandbox: { level: "namespaces", limits: { disk_bytes: DISK_CAP } } },
    });
    expect(caseStatuses(samples[0])).toEqual(["output_limit"]);
    expect(samples[0]?.cases?.[0]?.message).toMatch(/64 MiB.*disk_bytes/);
    // Stopped long before the 320 MiB it tries. How far past the cap it gets is what the filler writes between two
    // looks of the disk watch: on a quiet machine a few MiB, on a loaded one (a CI run beside a CPU hog) 134 MiB was
    // seen, so a bound tighter than "stopped before it was done" would test the machine's load, not the cap.
    expect(peakBytes).toBeLessThan(WRITTEN);
  });
});
