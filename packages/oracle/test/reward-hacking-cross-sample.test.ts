/**
 * Reward hacking across samples: a suite graded in one command serves its samples from one warm runtime (one
 * sandbox) where the sandbox can keep them apart by uid. A hostile sample graded beside correct ones tries to
 * signal them, read and write their files, and leave files and a daemon for the samples after it. Through the real
 * CLI, the real runtime and bubblewrap, at level namespaces only: there everything the attacker can see is inside
 * this test's own sandbox (at weaker levels it would see the host's processes).
 */
import "./python-for-uids.js";
import { execFile } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

const VICTIM = "import time\n\ndef solve(x):\n    time.sleep(0.2)\n    return x * 7 + 3\n";

interface SampleResult {
  sample: number;
  status: string;
  cases?: Array<{ status: string; actual: unknown; message?: string }>;
}

/** Grades one task (solve(x) = 7x + 3 on x = 0..cases-1) with the given samples (sources) in one command. */
async function gradeSuite(samples: string[], options: { jobs: number; cases: number; expected?: unknown[] }) {
  const dir = tempDir("cross-sample-");
  const tests = Array.from({ length: options.cases }, (_, x) => ({
    name: `case ${x}`,
    input: [x],
    expected: options.expected?.[x] ?? x * 7 + 3,
  }));
  writeFileSync(
    join(dir, "task.json"),
    JSON.stringify({
      contract_version: "1.0",
      task_id: "cross-sample",
      deliverable_type: "function",
      entrypoint: "solve",
      tests,
      limits: { timeout_ms: 20_000 },
    }),
  );
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ sandbox: { level: "namespaces" } }));
  writeFileSync(join(dir, "samples.jsonl"), samples.map((solution) => JSON.stringify({ task_id: "cross-sample", solution })).join("\n"));
  copyFileSync(join(fixtures, "family.py"), join(dir, "family.py"));
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [bin, "test", "task.json", "--samples", "samples.jsonl", "--json", "--jobs", String(options.jobs)],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
    );
  });
  let report: { tasks: Array<{ samples: SampleResult[] }> };
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`no JSON report (exit ${result.code}): ${result.stderr.slice(-2000)}`);
  }
  return (report.tasks[0]?.samples ?? []).sort((a, b) => a.sample - b.sample);
}

/** Processes anywhere on this machine whose environment carries the attacker daemon's mark. */
function markedProcesses(): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes("SKILLRIG_CROSS_SAMPLE_DAEMON=1")) found.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

const attacker = readFileSync(join(fixtures, "cross_sample_attacker.py"), "utf8");
const checker = readFileSync(join(fixtures, "cross_sample_checker.py"), "utf8");
const NOTHING = { signalled: [], read: [], wrote: [], listed: [] };

describe.each(levels)("reward hacking across samples at level %s", () => {
  it("a sample graded beside others can signal, read or write none of them, and they all pass", async () => {
    const samples = await gradeSuite([VICTIM, attacker, VICTIM, VICTIM, attacker, VICTIM], { jobs: 2, cases: 3 });
    expect(samples.map((s) => s.status)).toEqual(["passed", "failed", "passed", "passed", "failed", "passed"]);
    for (const index of [1, 4]) {
      const cases = samples[index]?.cases ?? [];
      expect(cases).toHaveLength(3);
      for (const c of cases) expect(c.actual).toEqual(NOTHING);
    }
    expect(markedProcesses()).toEqual([]);
  });

  it("nothing a sample leaves (files in the shared /tmp and /dev/shm, a setsid daemon) meets the samples after it", async () => {
    const clean = { files: [], daemons: [] };
    const samples = await gradeSuite([attacker, checker, attacker, checker], {
      jobs: 1,
      cases: 2,
      expected: [clean, clean],
    });
    expect(samples.map((s) => s.status)).toEqual(["failed", "passed", "failed", "passed"]);
    expect(markedProcesses()).toEqual([]);
  });
});
