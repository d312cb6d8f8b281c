/**
 * The shared sample host (one sandboxed parent serving every task run of a runner), for function samples: with the real sandbox at level
 * namespaces as root, the only place the sandbox can keep samples apart by uid. What happens to the pairs in flight
 * when the runtime is lost, and what the runner does with a runtime that misbehaves.
 */
import { getEventListeners } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { Runner, type LoadedTask } from "@skillrig/core";
import { compareModesPlugin, runSuite } from "@skillrig/oracle";
import sandboxPlugin, { availableLevels, createSandbox } from "@skillrig/sandbox";
import deliverableFunction from "@skillrig/deliverable-function";
import { removeModules, writeModule } from "./drive.js";

afterAll(removeModules);

const warmHere = process.getuid?.() === 0 && availableLevels().some((l) => l.level === "namespaces" && l.available);

const SLOW = "import time\n\ndef solve(x):\n    time.sleep(0.3)\n    return x * 7 + 3\n";

function task(cases: number): LoadedTask {
  return {
    displayPath: "warm.task.json",
    task: {
      contract_version: "1.0",
      task_id: "warm",
      deliverable_type: "function",
      entrypoint: "solve",
      tests: Array.from({ length: cases }, (_, x) => ({ name: `case ${x}`, input: [x], expected: x * 7 + 3 })),
    },
  };
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

function argv0(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
  } catch {
    return "";
  }
}

/** Sample hosts started by this process (found by their command line and their ancestry). */
function ourRuntimes(): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
    } catch {
      continue;
    }
    // The runtime itself: a python whose parent is not (its pairs are forks of it, bubblewrap's processes name it too).
    if (!cmdline.includes("sample_host.py") || !argv0(Number(name)).includes("python") || argv0(parentOf(Number(name))).includes("python"))
      continue;
    for (let pid = Number(name); pid > 1; pid = parentOf(pid)) {
      if (pid === process.pid) {
        found.push(Number(name));
        break;
      }
    }
  }
  return found;
}

describe.runIf(warmHere)("the shared sample host (root, level namespaces)", () => {
  test("lost mid-suite: the cases in flight and after run again in a harness of their run's own, and pass", async () => {
    const runner = new Runner()
      .use(compareModesPlugin())
      .use(deliverableFunction())
      .use(sandboxPlugin({ level: "namespaces" }));
    try {
      const loaded = task(4);
      const samples = await Promise.all([SLOW, SLOW, SLOW].map((source) => writeModule(source)));
      let killed: number[] = [];
      runner.hooks.task.caseResult.tap("kill-the-runtime", () => {
        if (killed.length > 0) return;
        killed = ourRuntimes();
        for (const pid of killed) process.kill(pid, "SIGKILL");
      });
      const report = await runSuite(runner, {
        entries: [{ loaded, samples: samples.map((deliverable, index) => ({ index, source: `sample ${index}`, deliverable })) }],
        jobs: 2,
      });
      expect(killed).toHaveLength(1);
      const results = report.tasks[0]?.samples ?? [];
      expect(results.map((s) => s.status)).toEqual(["passed", "passed", "passed"]);
      expect(results.flatMap((s) => s.report?.cases.map((c) => c.status) ?? [])).toEqual(Array(12).fill("passed"));
    } finally {
      await runner.close();
    }
    expect(ourRuntimes()).toEqual([]);
  }, 120_000);

  test("runner.close() stops the runtime; a runner that graded nothing starts none", async () => {
    const runner = new Runner()
      .use(compareModesPlugin())
      .use(deliverableFunction())
      .use(sandboxPlugin({ level: "namespaces" }));
    await runner.close();
    expect(ourRuntimes()).toEqual([]);
    const used = new Runner()
      .use(compareModesPlugin())
      .use(deliverableFunction())
      .use(sandboxPlugin({ level: "namespaces" }));
    const deliverable = await writeModule(SLOW);
    const report = await runSuite(used, { entries: [{ loaded: task(1), samples: [{ index: 0, source: "s", deliverable }] }] });
    expect(report.summary.samples_passed).toBe(1);
    expect(ourRuntimes()).toHaveLength(1);
    await used.close();
    await used.close(); // a second close waits for the first, nothing more
    expect(ourRuntimes()).toEqual([]);
  }, 60_000);

  test("a suite's pairs leave no listener on the suite's abort signal (twelve samples, one signal)", async () => {
    const runner = new Runner()
      .use(compareModesPlugin())
      .use(deliverableFunction())
      .use(sandboxPlugin({ level: "namespaces" }));
    const controller = new AbortController();
    try {
      const samples = await Promise.all(Array.from({ length: 12 }, () => writeModule(SLOW)));
      const report = await runSuite(runner, {
        entries: [{ loaded: task(1), samples: samples.map((deliverable, index) => ({ index, source: `s${index}`, deliverable })) }],
        jobs: 2,
        signal: controller.signal,
      });
      expect(report.summary.samples_passed).toBe(12);
      // Each pair listened while it ran (Ctrl-C kills its tree) and stopped listening when it closed.
      expect(getEventListeners(controller.signal, "abort")).toEqual([]);
    } finally {
      await runner.close();
    }
  }, 120_000);

  test("a pair that runs one case at a time keeps its tree on one core, pairs side by side on different ones; a pair running cases side by side is not pinned", async () => {
    // What the case's own process is allowed to run on (the case child inherits its pair's affinity).
    const CORES =
      "import time\n\ndef solve(x):\n    time.sleep(0.3)\n    with open('/proc/self/status') as f:\n" +
      "        return [l.split(':')[1].strip() for l in f if l.startswith('Cpus_allowed_list')][0]\n";
    const ours = readFileSync("/proc/self/status", "utf8").match(/^Cpus_allowed_list:\s*(\S+)/m)?.[1];
    const coresHere = (ours ?? "").split(",").reduce((n, range) => {
      const [a, b] = range.split("-").map(Number);
      return n + (b === undefined ? 1 : b - a! + 1);
    }, 0);
    const runner = new Runner()
      .use(compareModesPlugin())
      .use(deliverableFunction())
      .use(sandboxPlugin({ level: "namespaces" }));
    try {
      const samples = await Promise.all([CORES, CORES].map((source) => writeModule(source)));
      // Two samples at once, one case at a time each.
      const suite = await runSuite(runner, {
        entries: [{ loaded: task(2), samples: samples.map((deliverable, index) => ({ index, source: `s${index}`, deliverable })) }],
        jobs: 2,
      });
      const perSample = (suite.tasks[0]?.samples ?? []).map((s) => [...new Set(s.report?.cases.map((c) => c.actual))]);
      if (coresHere >= 2) {
        // Each sample's cases ran on one core, the same for both of its cases; the two samples on two cores.
        for (const cores of perSample) expect(cores).toHaveLength(1);
        for (const [core] of perSample) expect(core).toMatch(/^\d+$/);
        expect(new Set(perSample.map(([core]) => core)).size).toBe(2);
      } else {
        expect(perSample).toEqual([[ours], [ours]]);
      }
      // One sample, its cases two at a time: left to the scheduler on every core the runner may use.
      const alone = await runSuite(runner, {
        entries: [{ loaded: task(2), samples: [{ index: 0, source: "alone", deliverable: samples[0]! }] }],
        jobs: 2,
      });
      expect(alone.tasks[0]?.samples[0]?.report?.cases.map((c) => c.actual)).toEqual([ours, ours]);
    } finally {
      await runner.close();
    }
  }, 120_000);
});
